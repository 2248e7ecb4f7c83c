// A frozen agent on ONNX: the Policy interface (generate, score) over an onnxruntime session of a decoder exported
// in Hugging Face Optimum's layout (what transformers.js and the hub's "onnx-community" repos ship):
//   inputs  input_ids [B, T], attention_mask [B, P+T], position_ids [B, T], past_key_values.{l}.key/value [B, Hkv, P, Dh]
//   outputs logits [B, T, V], present.{l}.key/value [B, Hkv, P+T, Dh]
// It lets one agent run on onnxruntime (node, or web with the WebGPU / WASM execution providers) while the other
// trains on our engine, and evaluates any ONNX model with the same sampling code as the engine: the same seed gives
// the same tokens whenever the two agree on the logits. onnxruntime is injected, so this file imports neither
// onnxruntime-node nor onnxruntime-web. It implements Policy only: the model is frozen, nothing trains it.
import type { ModelConfig } from '../model/config.ts';
import type {
  Generation,
  GenerateRequest,
  Policy,
  SamplingParams,
  ScoreRequest,
  ScoreResult,
  TokenDecoder,
} from './policy.ts';
import { logSoftmaxAt, sampleToken, validateSampling } from '../sampling.ts';
import { acceptToken } from '../stop-rules.ts';

/** The parts of an onnxruntime Tensor this file reads. */
export interface OrtTensorLike {
  readonly data: unknown;
  readonly dims: readonly number[];
}

/** The parts of an onnxruntime InferenceSession this file uses. */
export interface OrtSessionLike {
  readonly inputNames: readonly string[];
  run(feeds: Record<string, OrtTensorLike>): Promise<Record<string, OrtTensorLike>>;
  /** frees the session's weights (onnxruntime's InferenceSession.release) */
  release?(): Promise<void>;
}

export interface OnnxPolicyOptions {
  session: OrtSessionLike;
  /** e.g. (type, data, dims) => new ort.Tensor(type, data, dims) */
  tensor(type: 'int64' | 'float32', data: BigInt64Array | Float32Array, dims: number[]): OrtTensorLike;
  /** the model's config.json (parseHfConfig) */
  config: ModelConfig;
  decoder: TokenDecoder;
  /** most sequences decoded in one onnxruntime call; default 16 */
  maxBatch?: number;
}

/** Entropy of softmax(row), in float64. */
function entropyOf(row: Float32Array): number {
  let max = -Infinity;
  for (const x of row) if (x > max) max = x;
  let sum = 0;
  for (const x of row) sum += Math.exp(x - max);
  const logZ = max + Math.log(sum);
  let h = 0;
  for (const x of row) h -= Math.exp(x - logZ) * (x - logZ);
  return h;
}

export class OnnxFrozenPolicy implements Policy {
  readonly vocabSize: number;
  readonly contextLength: number;
  private readonly numLayers: number;
  private readonly maxBatch: number;

  constructor(private readonly opts: OnnxPolicyOptions) {
    this.vocabSize = opts.config.vocabSize;
    this.contextLength = opts.config.maxPositionEmbeddings;
    const pastInputs = opts.session.inputNames.filter((n) => /^past_key_values\.\d+\.key$/.test(n));
    for (const needed of ['input_ids', 'attention_mask', 'position_ids']) {
      if (!opts.session.inputNames.includes(needed)) {
        throw new Error(
          `ONNX model: input "${needed}" missing (inputs: ${opts.session.inputNames.join(', ')}); export it with a KV cache in Optimum's layout`,
        );
      }
    }
    if (pastInputs.length !== opts.config.numLayers) {
      throw new Error(
        `ONNX model: ${pastInputs.length} past_key_values inputs but config.json has ${opts.config.numLayers} layers`,
      );
    }
    this.numLayers = pastInputs.length;
    this.maxBatch = Math.max(1, opts.maxBatch ?? 16);
  }

  /** Frees the onnxruntime session (its weights live outside the JS heap, e.g. in WASM memory or GPU buffers). */
  async dispose(): Promise<void> {
    await this.opts.session.release?.();
  }

  /**
   * One onnxruntime call for B sequences: ids [B, T] after a cache of `pastLength` positions (null: empty), with
   * mask [B, pastLength + T] (1 = real token, 0 = left padding) and positions [B, T]. Returns logits [B, T, V].
   */
  private async forward(
    B: number,
    ids: BigInt64Array,
    mask: BigInt64Array,
    positions: BigInt64Array,
    past: OrtTensorLike[] | null,
  ): Promise<{ logits: Float32Array; present: OrtTensorLike[] }> {
    const { tensor, config } = this.opts;
    const T = ids.length / B;
    const feeds: Record<string, OrtTensorLike> = {
      input_ids: tensor('int64', ids, [B, T]),
      attention_mask: tensor('int64', mask, [B, mask.length / B]),
      position_ids: tensor('int64', positions, [B, T]),
    };
    for (let l = 0; l < this.numLayers; l++) {
      for (const [i, kind] of (['key', 'value'] as const).entries()) {
        feeds[`past_key_values.${l}.${kind}`] = past
          ? past[2 * l + i]
          : tensor('float32', new Float32Array(0), [B, config.numKvHeads, 0, config.headDim]);
      }
    }
    const out = await this.opts.session.run(feeds);
    const logits = out.logits;
    if (!(logits?.data instanceof Float32Array)) throw new Error('ONNX model: output "logits" must be float32');
    if (logits.dims.at(-1) !== this.vocabSize)
      throw new Error(
        `ONNX model: logits have ${logits.dims.at(-1)} columns but config.json's vocab_size is ${this.vocabSize}`,
      );
    const present: OrtTensorLike[] = [];
    for (let l = 0; l < this.numLayers; l++) present.push(out[`present.${l}.key`], out[`present.${l}.value`]);
    return { logits: logits.data, present };
  }

  /** Row r of logits [R, V]. */
  private row(logits: Float32Array, r: number): Float32Array {
    return logits.subarray(r * this.vocabSize, (r + 1) * this.vocabSize);
  }

  /**
   * Requests decode together in batches of up to maxBatch (a GRPO group in one onnxruntime call per token), left
   * padded to the longest prompt. Request i samples from stream i at step s, as the engine does, so the same seed
   * gives the same tokens whenever the two agree on the logits.
   */
  async generate(
    requests: readonly GenerateRequest[],
    sampling: SamplingParams,
    onProgress?: (doneTokens: number) => void,
  ): Promise<Generation[]> {
    validateSampling(sampling);
    const out: Generation[] = requests.map(() => ({ tokens: [], logprobs: [], text: '', finish: 'length' }));
    const work = requests.flatMap((r, i) => (r.maxNewTokens > 0 && r.prompt.length > 0 ? [i] : []));
    let doneTokens = 0;
    const tick = (): void => onProgress?.(++doneTokens);
    for (let c = 0; c < work.length; c += this.maxBatch)
      await this.generateBatch(work.slice(c, c + this.maxBatch), requests, out, sampling, tick);
    for (const g of out) g.text = this.opts.decoder.decode(g.tokens);
    return out;
  }

  private async generateBatch(
    streams: readonly number[],
    requests: readonly GenerateRequest[],
    out: Generation[],
    sampling: SamplingParams,
    tick: () => void,
  ): Promise<void> {
    const B = streams.length;
    const P = Math.max(...streams.map((i) => requests[i].prompt.length));
    // prefill: ids, mask and positions [B, P], prompts right-aligned after left padding (id 0, mask 0, position 0)
    const ids = new BigInt64Array(B * P);
    let mask = new BigInt64Array(B * P);
    const positions = new BigInt64Array(B * P);
    const nextPosition = streams.map((i, b) => {
      const prompt = requests[i].prompt;
      const pad = P - prompt.length;
      prompt.forEach((token, t) => {
        ids[b * P + pad + t] = BigInt(token);
        mask[b * P + pad + t] = 1n;
        positions[b * P + pad + t] = BigInt(t);
      });
      return prompt.length;
    });
    let step = await this.forward(B, ids, mask, positions, null);
    let T = P;
    const live = streams.map(() => true);
    for (let s = 0; ; s++) {
      const next = new BigInt64Array(B);
      for (const [b, i] of streams.entries()) {
        if (!live[b]) continue;
        const token = this.nextToken(requests[i], out[i], this.row(step.logits, b * T + T - 1), sampling, i, s);
        tick();
        if (token === null) live[b] = false;
        else next[b] = BigInt(token);
      }
      if (!live.includes(true)) return;
      // one more column of the mask for the new token (finished rows keep decoding a pad token, unread)
      const columns = mask.length / B;
      const grown = new BigInt64Array(B * (columns + 1));
      for (let b = 0; b < B; b++) {
        grown.set(mask.subarray(b * columns, (b + 1) * columns), b * (columns + 1));
        grown[b * (columns + 1) + columns] = 1n;
      }
      mask = grown;
      step = await this.forward(
        B,
        next,
        mask,
        BigInt64Array.from(nextPosition, (p) => BigInt(p)),
        step.present,
      );
      for (let b = 0; b < B; b++) nextPosition[b]++;
      T = 1;
    }
  }

  /** Sampling and stopping rules for one sequence (the engine's, stop-rules.ts); null when it has finished. */
  private nextToken(
    req: GenerateRequest,
    gen: Generation,
    logits: Float32Array,
    sampling: SamplingParams,
    stream: number,
    step: number,
  ): number | null {
    const allowed = req.constraint ? req.constraint.allowed(gen.tokens, req.maxNewTokens) : null;
    return acceptToken(
      req,
      gen,
      logits,
      sampleToken(logits, sampling, stream, step, allowed),
      this.opts.decoder,
      allowed,
    );
  }

  async score(requests: readonly ScoreRequest[]): Promise<ScoreResult[]> {
    const results: ScoreResult[] = [];
    for (const [i, req] of requests.entries()) {
      for (const t of req.positions) {
        if (!Number.isInteger(t) || t < 1 || t >= req.tokens.length)
          throw new Error(`score: request ${i} position ${t} is outside 1..${req.tokens.length - 1}`);
      }
      const T = req.tokens.length;
      const ids = BigInt64Array.from(req.tokens, (x) => BigInt(x));
      const { logits } = await this.forward(
        1,
        ids,
        new BigInt64Array(T).fill(1n),
        BigInt64Array.from({ length: T }, (_, t) => BigInt(t)),
        null,
      );
      const logprobs = new Float32Array(req.positions.length);
      const entropy = new Float32Array(req.positions.length);
      req.positions.forEach((t, j) => {
        const row = this.row(logits, t - 1);
        logprobs[j] = logSoftmaxAt(row, req.tokens[t]);
        entropy[j] = entropyOf(row);
      });
      results.push({ logprobs, entropy });
    }
    return results;
  }
}
