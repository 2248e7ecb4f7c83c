// The engine's implementation of TrainablePolicy (policy.ts): a Llama/Qwen2 decoder on a Backend with named trainable
// adapters (LoRA over one frozen base, or full trainable copies for tiny models), batched KV-cache generation,
// fused log-prob scoring, gradient accumulation of Σ coef·logp (+ entCoef·H), AdamW steps and checkpoint IO.
import type { Backend } from '../backend.ts';
import type { ModelConfig } from '../model/config.ts';
import type {
  Generation,
  GenerationFinish,
  GenerateRequest,
  GradientRequest,
  OptimizerStepResult,
  SamplingParams,
  ScoreOptions,
  ScoreRequest,
  ScoreResult,
  TrainablePolicy,
} from './policy.ts';
import { packSequences } from '../model/batch.ts';
import { runSequences, type ActiveWeights, type BackwardRequest, type GradientSinks } from '../model/decoder.ts';
import { decodeBatch, type DrawnToken } from '../model/generate.ts';
import { KeptKvPool } from './kept-kv-pool.ts';
import { foldGradients, foldRequests, unfoldResults } from './request-folding.ts';
import { createLoraAdapter, type LoraAdapter } from '../model/lora.ts';
import { adapterFromPeft, adapterToPeft } from '../model/lora-io.ts';
import {
  allocMerged,
  largestMergedTensorBytes,
  mergedBytes,
  mergedDtype,
  mergeLoraAuto,
  refreshMerged,
} from '../model/lora-merge.ts';
import { downloadParams, freeParams, namedParameters, uploadParams, type DecoderParams } from '../model/params.ts';
import { validateSampling } from '../sampling.ts';
import { resolveKvCacheDtype, type KvCacheDtype } from '../model/kv-cache.ts';
import { acceptSampled } from '../stop-rules.ts';
import { buildPeftAdapter, parsePeftAdapter } from '../io/peft.ts';
import { deserializeModelWeights, serializeModelWeights } from '../io/hf-model.ts';
import { resolveBaseDtype, validateEnginePolicyOptions, type EnginePolicyOptions } from './engine-policy-options.ts';
import { freeTrainable, makeFullTrainable, makeLoraTrainable, sinksOf, type Trainable } from './trainables.ts';
import { passRowLimit } from '../model/pass-rows.ts';
import { scoreSharedPrefixes } from '../model/prefix-score.ts';
import { trainSharedPrefixes } from '../model/prefix-train.ts';
import {
  chunkByTokens,
  chunkCoefficients,
  concat,
  groupBy,
  overrideTargets,
  prefixSharingPlan,
  targetIds,
} from './request-batching.ts';

export {
  resolveBaseDtype,
  type EnginePolicyOptions,
  type OptimizerSetup,
  type TrainingSetup,
} from './engine-policy-options.ts';

/** Which weights a request runs on (weightsFor). */
interface WeightsRequest {
  /** the reference policy: the frozen base without adapters */
  reference?: boolean;
  /** weights a backward will run through (never the merged inference copy) */
  forGradients?: boolean;
}

/** How forEachChunk runs its requests. */
interface ChunkRun {
  /** score under the reference policy (adapters off) */
  reference: boolean;
  /** the requests' coefficients when a backward follows the forward (null: forward only) */
  grads: readonly GradientRequest[] | null;
  temperature: number;
}

/** The one file of a full fine-tuning checkpoint (saveAdapter / loadAdapter of "full"). */
export const FULL_WEIGHTS_FILE = 'model.safetensors';

export class EnginePolicy implements TrainablePolicy {
  readonly vocabSize: number;
  readonly contextLength: number;
  readonly adapters: readonly string[];
  readonly backend: Backend;
  readonly config: ModelConfig;
  private readonly base: DecoderParams;
  /** storage of the frozen base and of generation's KV cache, as resolved from the options */
  readonly baseDtype: 'f32' | 'f16' | 'bf16';
  readonly kvCacheDtype: KvCacheDtype;
  private readonly trainables = new Map<string, Trainable>();
  private readonly maxBatchTokens: number;
  private readonly maxDecodeBatch: number;
  /** EnginePolicyOptions.activationBudgetBytes (default 64 MiB) */
  private readonly activationBudgetBytes: number;
  /** precompileOnce keys done */
  private readonly precompiled = new Set<string>();
  /** the options without the host weights: once uploaded they are the caller's to keep or let go */
  private readonly opts: Omit<EnginePolicyOptions, 'weights'>;
  /** keys and values generate calls kept for later ones (EnginePolicyOptions.keepKvBytes); cleared when weights change */
  private readonly kept: KeptKvPool;

  constructor(options: EnginePolicyOptions) {
    const { weights, ...opts } = options;
    this.opts = opts;
    const { backend: be, config, training } = opts;
    this.backend = be;
    this.config = config;
    this.vocabSize = config.vocabSize;
    this.contextLength = config.maxPositionEmbeddings;
    // a chunk's attention-side activations must each fit one binding (model/pass-rows.ts)
    this.maxBatchTokens = Math.min(
      opts.maxBatchTokens ?? 4096,
      passRowLimit(config, be.limits.maxStorageBufferBindingSize),
    );
    this.maxDecodeBatch = opts.maxDecodeBatch ?? 64;
    this.activationBudgetBytes = opts.activationBudgetBytes ?? 64 * 1024 * 1024;
    validateEnginePolicyOptions(options);
    this.adapters = [...training.adapters];
    const baseDtype = resolveBaseDtype(opts.baseDtype ?? 'auto', be, training.mode);
    if (baseDtype !== 'f32' && training.mode === 'full')
      throw new Error(`createEnginePolicy: baseDtype ${baseDtype} cannot be used with full fine-tuning`);
    this.baseDtype = baseDtype;
    this.kvCacheDtype = resolveKvCacheDtype(opts.kvCacheDtype ?? 'auto', be, baseDtype);
    this.kept = new KeptKvPool(this.kvCacheDtype === 'f32' ? (opts.keepKvBytes ?? 0) : 0);
    this.base = uploadParams(be, config, weights, 'base', baseDtype);
    training.adapters.forEach((name, i) => {
      if (training.mode === 'lora') {
        const lora = createLoraAdapter(be, config, {
          name,
          rank: training.rank,
          alpha: training.alpha,
          targets: training.targets,
          seed: opts.seed + i,
        });
        this.trainables.set(name, makeLoraTrainable(be, config, opts.optimizer, name, lora));
      } else {
        this.trainables.set(name, makeFullTrainable(be, config, this.base, opts.optimizer, name));
      }
    });
  }

  private trainable(adapter: string): Trainable {
    const t = this.trainables.get(adapter);
    if (!t) throw new Error(`policy: unknown adapter "${adapter}" (known: ${this.adapters.join(', ')})`);
    return t;
  }

  /** Weights for a request: null adapter or reference -> the frozen base without adapters. Without gradients a
   *  LoRA adapter runs merged into a copy of its target weights when that is enabled. */
  private weightsFor(
    adapter: string | null,
    { reference = false, forGradients = false }: WeightsRequest = {},
  ): ActiveWeights {
    if (adapter === null || reference) return { params: this.base, lora: null };
    const t = this.trainable(adapter);
    if (t.kind === 'full') return { params: t.params, lora: null };
    const lora = t.lora;
    // (once made, the copy is kept: the rule is not asked again with the copy itself counted as live memory)
    if (forGradients || (!t.merged && !this.mergeEnabled(lora))) return { params: this.base, lora };
    if (!t.merged) {
      t.merged = allocMerged(this.backend, this.config, this.base, lora);
      t.mergedFresh = true;
    }
    if (!t.mergedFresh) {
      refreshMerged(this.backend, this.config, this.base, lora, t.merged);
      t.mergedFresh = true;
    }
    return { params: t.merged.params, lora: null, fused: t.merged.fused };
  }

  private mergeEnabled(lora: LoraAdapter): boolean {
    const m = this.opts.mergeLoraForInference ?? 'auto';
    // each fused tensor must fit one storage binding (the fused kernels do not walk split tensors)
    const fits = largestMergedTensorBytes(this.config) <= this.backend.limits.maxStorageBufferBindingSize;
    if (m === 'auto') {
      return mergeLoraAuto({
        backend: this.backend.kind,
        baseF32: this.base.layers[0].q.dtype === 'f32',
        copyBytes: mergedBytes(this.config, lora, mergedDtype(this.backend.kind, this.base.layers[0].q.dtype)),
        fitsBinding: fits,
        maxTotalBytes: this.backend.limits.maxTotalBytes,
        liveBytes: this.backend.ledger().liveBytes,
      });
    }
    if (m && !fits) {
      throw new Error(
        `mergeLoraForInference: a fused [q;k;v] or [gate;up] matrix takes ${largestMergedTensorBytes(this.config)} bytes, over the backend's binding limit of ${this.backend.limits.maxStorageBufferBindingSize}`,
      );
    }
    return m;
  }

  async generate(
    requests: readonly GenerateRequest[],
    sampling: SamplingParams,
    onProgress?: (doneTokens: number) => void,
  ): Promise<Generation[]> {
    validateSampling(sampling);
    const out: Generation[] = requests.map(() => ({
      tokens: [],
      logprobs: [],
      text: '',
      finish: 'length' as GenerationFinish,
    }));
    let doneBefore = 0;
    for (const [adapter, indices] of groupBy(requests, (r) => r.adapter)) {
      for (let c = 0; c < indices.length; c += this.maxDecodeBatch) {
        const chunk = indices.slice(c, c + this.maxDecodeBatch);
        const maxNew = Math.max(...chunk.map((i) => requests[i].maxNewTokens));
        const base = doneBefore;
        const constrained = chunk.some((i) => requests[i].constraint);
        const mask = (b: number) => {
          const req = requests[chunk[b]];
          return req.constraint ? req.constraint.allowed(out[chunk[b]].tokens, req.maxNewTokens) : null;
        };
        const weights = this.weightsFor(adapter);
        const prompts = chunk.map((i) => requests[i].prompt);
        const decodeOpts = {
          kvDtype: this.kvCacheDtype,
          ...(this.opts.prefillTokens !== undefined ? { prefillTokens: this.opts.prefillTokens } : {}),
        };
        // a prompt that starts with a sequence an earlier call kept prefills only the rest
        const reuse = this.kept.best(adapter, prompts);
        const keep = maxNew > 0 && this.kept.budgetBytes > 0;
        // the kernels of the prefill and a decode step, compiled in parallel before the first runs
        await this.precompileOnce(`generate:${weightsKind(weights)}:${chunk.length}:${constrained}`, () => {
          const drawn = chunk.map(() => 0);
          return decodeBatch(
            this.backend,
            this.config,
            weights,
            prompts,
            { sampling, streams: chunk, next: (b) => (drawn[b]++ === 0 ? 0 : null), ...(constrained ? { mask } : {}) },
            { ...decodeOpts, maxNewTokens: 2 },
          );
        });
        const kept = await decodeBatch(
          this.backend,
          this.config,
          weights,
          prompts,
          // tokens are drawn on the device (the catalog's `sample` kernel, masked for constrained requests); the
          // request index is the sampling stream
          {
            sampling,
            streams: chunk,
            next: (b, drawn) => this.nextToken(requests[chunk[b]], out[chunk[b]], drawn),
            ...(constrained ? { mask } : {}),
          },
          {
            ...decodeOpts,
            maxNewTokens: maxNew,
            onStep: (n) => onProgress?.(base + n),
            reuse,
            keep,
            keepInto: this.kept.hostFloats,
          },
        );
        if (kept) this.kept.add(adapter, kept);
        doneBefore += chunk.reduce((s, i) => s + out[i].tokens.length + (out[i].finish === 'stop_token' ? 1 : 0), 0);
      }
    }
    this.kept.retireRead();
    for (const g of out) g.text = this.opts.decoder.decode(g.tokens);
    return out;
  }

  /** Stopping rules for one sequence's drawn token. */
  private nextToken(req: GenerateRequest, gen: Generation, drawn: DrawnToken): number | null {
    if (req.maxNewTokens <= 0) return null;
    return acceptSampled(req, gen, drawn.token, drawn.logp, this.opts.decoder);
  }

  async score(requests: readonly ScoreRequest[], opts: ScoreOptions = {}): Promise<ScoreResult[]> {
    return this.forEachChunk(requests, {
      reference: opts.reference === true,
      grads: null,
      temperature: opts.temperature ?? 1,
    });
  }

  async accumulateGradients(
    requests: readonly GradientRequest[],
    opts: { temperature?: number } = {},
  ): Promise<ScoreResult[]> {
    requests.forEach((r, i) => {
      if (r.adapter === null)
        throw new Error(`accumulateGradients: request ${i} has adapter null; the frozen base cannot be trained`);
      if (typeof r.coef !== 'function' && r.coef.length !== r.positions.length)
        throw new Error(
          `accumulateGradients: request ${i} has ${r.coef.length} coefficients for ${r.positions.length} positions`,
        );
      if (r.entropyCoef && r.entropyCoef.length !== r.positions.length) {
        throw new Error(
          `accumulateGradients: request ${i} has ${r.entropyCoef.length} entropy coefficients for ${r.positions.length} positions`,
        );
      }
    });
    return this.forEachChunk(requests, { reference: false, grads: requests, temperature: opts.temperature ?? 1 });
  }

  /** Requests folded into those that contain them (request-folding.ts), then runChunks. */
  private async forEachChunk(requests: readonly ScoreRequest[], run: ChunkRun): Promise<ScoreResult[]> {
    const f = foldRequests(requests);
    if (f.folded.length === requests.length) return this.runChunks(requests, run);
    const grads = run.grads ? foldGradients(run.grads, f) : null;
    return unfoldResults(await this.runChunks(f.folded, { ...run, grads }), f);
  }

  /** Group by adapter, pack into chunks of at most maxBatchTokens rows, run (and backpropagate when `grads`). */
  private async runChunks(
    requests: readonly ScoreRequest[],
    { reference, grads, temperature }: ChunkRun,
  ): Promise<ScoreResult[]> {
    const results: ScoreResult[] = Array.from({ length: requests.length });
    for (const [adapter, indices] of groupBy(requests, (r) => (reference ? null : r.adapter))) {
      const w = this.weightsFor(adapter, { reference, forGradients: grads !== null });
      // accumulateGradients refused a null adapter, so a backward always has a trainable's gradients to fill
      const sinks = grads && adapter !== null ? sinksOf(this.trainable(adapter)) : null;
      const whole = await this.runSharingPrefixes(requests, indices, w, { grads, sinks, temperature }, results);
      if (whole.length === 0) continue;
      // longest first, so that sequences of similar length share a chunk (less right padding)
      const byLength = whole.toSorted((a, b) => requests[b].tokens.length - requests[a].tokens.length || a - b);
      const run = async (chunk: number[]) => {
        const batch = packSequences(
          chunk.map((i) => requests[i]),
          this.vocabSize,
        );
        chunk.forEach((i, b) => overrideTargets(batch.targets, batch.selectedStart[b], requests[i], i, this.vocabSize));
        const backward =
          grads && sinks
            ? chunkBackward(
                chunk.map((i) => grads[i]),
                sinks,
              )
            : null;
        const r = await runSequences(this.backend, this.config, w, batch, backward, {
          activationBudgetBytes: this.activationBudgetBytes,
          temperature,
        });
        return { batch, r };
      };
      const chunks = chunkByTokens(byLength, (i) => requests[i].tokens.length, this.maxBatchTokens);
      // the kernels of a chunk's forward (and backward), compiled in parallel before the first runs
      await this.precompileOnce(`chunks:${weightsKind(w)}:${grads ? 'gradients' : 'score'}`, () => run(chunks[0]));
      for (const chunk of chunks) {
        const { batch, r } = await run(chunk);
        chunk.forEach((i, b) => {
          const s = batch.selectedStart[b];
          const e = batch.selectedStart[b + 1];
          results[i] = { logprobs: r.logprobs.slice(s, e), entropy: r.entropy.slice(s, e) };
        });
      }
    }
    return results;
  }

  /** Scoring (model/prefix-score.ts) or training (model/prefix-train.ts) of those requests[indices] whose context
   *  another has, each distinct context run once, when enabled (EnginePolicyOptions.sharePrefixes) and it saves work.
   *  Returns the indices left for the caller to run whole. */
  private async runSharingPrefixes(
    requests: readonly ScoreRequest[],
    indices: readonly number[],
    w: ActiveWeights,
    {
      grads,
      sinks,
      temperature,
    }: { grads: readonly GradientRequest[] | null; sinks: GradientSinks | null; temperature: number },
    results: ScoreResult[],
  ): Promise<readonly number[]> {
    if (!(this.opts.sharePrefixes ?? this.backend.kind !== 'webgpu')) return indices;
    const seqs = indices.map((i) => requests[i]);
    const plan = prefixSharingPlan(seqs, this.maxBatchTokens);
    if (!plan) return indices;
    for (const chunk of plan.chunks) {
      const inputs = chunk.map((k) => ({ ...seqs[k], targets: targetIds(seqs[k], indices[k], this.vocabSize) }));
      let r: ScoreResult[];
      if (grads && sinks) {
        const backward = chunkBackward(
          chunk.map((k) => grads[indices[k]]),
          sinks,
        );
        r = await trainSharedPrefixes(this.backend, this.config, w, inputs, backward, {
          activationBudgetBytes: this.activationBudgetBytes,
          temperature,
        });
      } else r = await scoreSharedPrefixes(this.backend, this.config, w, inputs, temperature, this.opts.prefillTokens);
      chunk.forEach((k, b) => (results[indices[k]] = r[b]));
    }
    return plan.rest.map((k) => indices[k]);
  }

  /** Backend.precompile of what `trace` runs, once per `key` (kinds of call, as the kernels they use differ): the
   *  kernels are compiled in parallel before the first dispatch instead of one by one as they are first met. */
  private async precompileOnce(key: string, trace: () => Promise<unknown>): Promise<void> {
    const be = this.backend;
    if (!be.precompile || this.opts.precompileKernels === false || this.precompiled.has(key)) return;
    this.precompiled.add(key);
    await be.precompile(async () => {
      await trace();
    });
  }

  zeroGrad(adapter: string): void {
    this.trainable(adapter).optimizer.zeroGrad();
  }

  gradientNorms(adapter: string): Promise<{ name: string; norm: number }[]> {
    return this.trainable(adapter).optimizer.slotGradNorms();
  }

  /** Each trainable tensor's accumulated gradient (named as in checkpoints), read back before optimizerStep. */
  gradients(adapter: string): Promise<Map<string, Float32Array>> {
    return this.trainable(adapter).optimizer.slotGradients();
  }

  async optimizerStep(adapter: string): Promise<void> {
    const t = this.trainable(adapter);
    await t.optimizer.step();
    this.kept.clear(); // kept keys and values are of the weights before the step
    // whether it applied is known on the device only: the merged copy is refreshed either way
    if (t.kind === 'lora') t.mergedFresh = false;
  }

  async readOptimizerStats(adapter: string): Promise<OptimizerStepResult[]> {
    return this.trainable(adapter).optimizer.readStats();
  }

  async saveAdapter(adapter: string): Promise<Record<string, Uint8Array>> {
    const t = this.trainable(adapter);
    if (t.kind === 'full')
      return { [FULL_WEIGHTS_FILE]: serializeModelWeights(await downloadParams(this.backend, t.params)) };
    const peft = await adapterToPeft(this.backend, t.lora, this.opts.baseModelName ?? null);
    return buildPeftAdapter(peft, this.config);
  }

  async loadAdapter(adapter: string, files: Record<string, Uint8Array>): Promise<void> {
    const t = this.trainable(adapter);
    this.kept.clear();
    if (t.kind === 'full') {
      const bytes = files[FULL_WEIGHTS_FILE];
      if (!bytes)
        throw new Error(
          `loadAdapter "${adapter}": ${FULL_WEIGHTS_FILE} is missing (full fine-tuning checkpoints are one safetensors file)`,
        );
      const weights = deserializeModelWeights(bytes, this.config, FULL_WEIGHTS_FILE);
      for (const [name, tensor] of namedParameters(t.params)) this.backend.upload(tensor, weights.get(name)!.data);
      return;
    }
    const lora = adapterFromPeft(this.backend, this.config, adapter, parsePeftAdapter(files, this.config));
    // the new adapter starts a new optimiser; the old one's unread step results stay readable
    const unread = await t.optimizer.readStats();
    freeTrainable(this.backend, t);
    const fresh = makeLoraTrainable(this.backend, this.config, this.opts.optimizer, adapter, lora);
    fresh.optimizer.hold(unread);
    this.trainables.set(adapter, fresh);
  }

  async saveOptimizerState(adapter: string): Promise<Uint8Array> {
    return this.trainable(adapter).optimizer.saveState({ adapter });
  }

  async loadOptimizerState(adapter: string, state: Uint8Array): Promise<void> {
    const opt = this.trainable(adapter).optimizer;
    opt.hold(await opt.readStats());
    opt.loadState(state, `optimizer state of "${adapter}"`);
  }

  /** Number of optimizer updates applied to an adapter as of its last readOptimizerStats, saveOptimizerState or
   *  loadOptimizerState. */
  optimizerSteps(adapter: string): number {
    return this.trainable(adapter).optimizer.stepCount;
  }

  /** Frees every device tensor the policy owns (the backend itself stays the caller's). */
  kvCacheClamps(): Promise<number> {
    return this.backend.halfClamps?.() ?? Promise.resolve(0);
  }

  dispose(): void {
    this.kept.clear();
    for (const t of this.trainables.values()) freeTrainable(this.backend, t);
    this.trainables.clear();
    freeParams(this.backend, this.base);
  }
}

export function createEnginePolicy(opts: EnginePolicyOptions): EnginePolicy {
  return new EnginePolicy(opts);
}

/** Which layer kernels weights run through (the fused inference copy, the base with LoRA, the base alone). */
/** The backward of a chunk's requests: their coefficients (and entropy coefficients) in order, into `sinks`. */
function chunkBackward(requests: readonly GradientRequest[], sinks: GradientSinks): BackwardRequest {
  return {
    coef: chunkCoefficients(requests),
    entropyCoef: requests.some((r) => r.entropyCoef)
      ? concat(requests.map((r) => r.entropyCoef ?? new Float32Array(r.positions.length)))
      : null,
    sinks,
  };
}

function weightsKind(w: ActiveWeights): string {
  return w.fused ? 'fused' : w.lora ? 'lora' : 'base';
}
