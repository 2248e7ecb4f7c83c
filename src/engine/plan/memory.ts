// How many bytes the engine allocates for one training step, computed before any weight is downloaded: the same
// tensors EnginePolicy, decodeBatch (model/generate.ts), runSequences (model/decoder.ts), the LoRA / full
// trainables and AdamW allocate, in the order they allocate them, so the peak the backend's allocation ledger
// records can be predicted (tests/engine/plan/memory.test.ts holds the two within 15% on real steps).
// Sizes are what the ledger charges: 4 bytes per element, 2 for weights stored as f16 / bf16 and for a KV cache
// stored as f16 (model/kv-cache.ts: the default over an f16 base on WebGPU).
import type { ModelConfig } from '../model/config.ts';
import { parameterCounts } from '../model/params.ts';
import { LORA_TARGETS, projectionDims, type LoraTarget } from '../model/lora.ts';
import { fusedWorkspaceFloats, layerWorkspaceFloats } from '../model/layer.ts';
import { mergesInTraining, trainMergeLayerFloats } from '../model/lora-train-merge.ts';
import { mergedBytesOf, mergedDtype, mergeLoraAuto } from '../model/lora-merge.ts';
import { DEFAULT_PREFILL_TOKENS, prefillChunkPrompts } from '../model/generate.ts';
import { kvCacheBytesPerElement, type KvCacheDtype } from '../model/kv-cache.ts';
import { ADAMW_SCALARS } from '../optim/adamw.ts';
import type { BackendKind } from '../backend.ts';

/** Storage of the frozen base weights. */
export type WeightDtype = 'f32' | 'f16' | 'bf16';

export function weightBytesPerElement(dtype: WeightDtype): number {
  return dtype === 'f32' ? 4 : 2;
}

export type TrainingShape =
  { mode: 'lora'; adapters: number; rank: number; targets: readonly string[] } | { mode: 'full'; adapters: number };

/** One generate call: `sequences` decoded, `uniquePrompts` of them prefilled (GRPO samples share their prompt,
 *  each prompt's samples next to each other), prompts left-padded to `promptTokens`, up to `newTokens` generated;
 *  split into decodeBatch calls of at most `decodeBatch` sequences. */
export interface DecodeShape {
  sequences: number;
  uniquePrompts: number;
  promptTokens: number;
  newTokens: number;
  /** most sequences decoded together (EnginePolicyOptions maxDecodeBatch, config decodeBatch); default: all */
  decodeBatch?: number;
  /** padded prompt tokens per prefill pass (DecodeOptions / EnginePolicyOptions prefillTokens); default
   *  DEFAULT_PREFILL_TOKENS (model/generate.ts) */
  prefillTokens?: number;
  /** calls of a multi-turn exchange whose prompts extend an earlier call's sequences: where the policy keeps keys
   *  and values (MemoryShape keepKvBytes), every prompt after an agent's first runs at most `tokens` behind the
   *  kept rows (model/prefill-behind.ts), and only prompts of at most `wholePromptTokens` are prefilled whole */
  behind?: { tokens: number; wholePromptTokens: number };
}

/** One gradient chunk (runSequences with a backward): `sequences` rows padded to `tokens`, `selected` trained
 *  positions in all. */
export interface GradientShape {
  sequences: number;
  tokens: number;
  selected: number;
}

export interface MemoryShape {
  weightDtype: WeightDtype;
  training: TrainingShape;
  decode: DecodeShape;
  /** the held-out evaluation's largest decodeBatch call (distinct prompts, greedy), when an evaluation runs: it
   *  is a stage of its own, often with more sequences than the training rollout's */
  evalDecode?: DecodeShape;
  gradient: GradientShape;
  /** EnginePolicyOptions.activationBudgetBytes (default 64 MiB): every layer's internals kept when they fit */
  activationBudgetBytes?: number;
  /** EnginePolicyOptions.mergeLoraForInference (default 'auto': model/lora-merge.ts mergeLoraAuto) */
  mergeLoraForInference?: boolean | 'auto';
  /** the backend kind, for the 'auto' merge rule (default 'cpu': the CPU / WASM rule) */
  backend?: BackendKind;
  /** the backend's maxTotalBytes, for the 'auto' merge rule (default: unknown) */
  deviceBytes?: number;
  /** with f16 / bf16 weights: false when the backend keeps vectors (norms, biases) in f32 and only matrices as
   *  halves (the WASM backend); default true (WebGPU stores every weight as a half) */
  halfVectors?: boolean;
  /** storage of generation's KV cache (EnginePolicyOptions.kvCacheDtype); default what 'auto' gives: f16 with f16
   *  weights on WebGPU, else f32 */
  kvCacheDtype?: KvCacheDtype;
  /** EnginePolicyOptions.keepKvBytes (host memory, not counted in the device total); default 0. A DecodeShape's
   *  `behind` applies where the stores of two calls fit it. */
  keepKvBytes?: number;
}

/** Bytes by category. `lora`: the trainable weights and their gradients (LoRA pairs, or full copies in full
 *  fine-tuning) plus LoRA-merged inference copies; `optimizer`: AdamW's two moments; `kv_cache`: the decode
 *  call's K and V caches (the larger call of the rollout's and the held-out evaluation's); `activations`: the
 *  largest of that decode call's scratch, the gradient chunk's scratch and the optimizer step's flat copies
 *  (optim/adamw.ts packs one adapter's gradients and parameters for the step). `total` is the peak: weights +
 *  lora + optimizer + the largest of (kv_cache + decode scratch) over the rollout and the evaluation, the gradient
 *  chunk and the step's copies, since each is freed before the next stage runs (so it is not the sum of the categories). */
export interface MemoryBytes {
  weights: number;
  lora: number;
  optimizer: number;
  kv_cache: number;
  activations: number;
  total: number;
}

export interface MemoryPlan {
  parameters: number;
  bytes: MemoryBytes;
  /** which stage sets the peak: the rollout's decode, the held-out evaluation's decode, a gradient chunk, AdamW */
  peakStage: 'decode' | 'eval' | 'gradient' | 'optimizer';
  /** the gradient chunk keeps every layer's internals (no recompute) */
  keepsAllLayers: boolean;
  /** the KV cache's storage the plan counts (2 bytes per element for f16, 4 for f32) */
  kvCacheDtype: KvCacheDtype;
}

/** The KV cache's storage of a shape: its own, or 'auto''s (model/kv-cache.ts resolveKvCacheDtype). */
export function planKvCacheDtype(shape: MemoryShape): KvCacheDtype {
  return shape.kvCacheDtype ?? (shape.backend === 'webgpu' && shape.weightDtype === 'f16' ? 'f16' : 'f32');
}

const F = 4; // bytes per f32 / i32 element
const MiB = 1024 * 1024;

export function parameterCount(config: ModelConfig): number {
  return parameterCounts(config).total;
}

/** Parameters in vectors (norms, biases): kept in f32 by a backend that stores only matrices as halves. */
function vectorParameters(config: ModelConfig): number {
  return parameterCounts(config).vectors;
}

function loraTargets(targets: readonly string[]): LoraTarget[] {
  const out: LoraTarget[] = [];
  for (const raw of targets) {
    const t = raw.replace(/_proj$/, '') as LoraTarget;
    if (!LORA_TARGETS.includes(t)) throw new Error(`LoRA target "${raw}" is not one of ${LORA_TARGETS.join(', ')}`);
    if (!out.includes(t)) out.push(t);
  }
  return out;
}

/** Bytes of the frozen base weights. */
function weightBytes(config: ModelConfig, shape: MemoryShape): number {
  const vectorsF32 = shape.weightDtype !== 'f32' && shape.halfVectors === false ? vectorParameters(config) : 0;
  return (parameterCount(config) - vectorsF32) * weightBytesPerElement(shape.weightDtype) + F * vectorsF32;
}

/** Floats of one LoRA adapter's A and B over every layer. */
export function loraFloats(config: ModelConfig, rank: number, targets: readonly string[]): number {
  let n = 0;
  for (const t of loraTargets(targets)) {
    const { nIn, nOut } = projectionDims(config, t);
    n += rank * (nIn + nOut);
  }
  return n * config.numLayers;
}

/** Bytes of one merged inference copy (lora-merge.ts: fused [q;k;v] and [gate;up], o and down when targeted; f16
 *  matrices over an f16 base on WebGPU). */
function copyBytesOf(config: ModelConfig, shape: MemoryShape): number {
  if (shape.training.mode !== 'lora') return 0;
  return mergedBytesOf(
    config,
    loraTargets(shape.training.targets),
    mergedDtype(shape.backend ?? 'cpu', shape.weightDtype),
  );
}

/** How many adapters EnginePolicy merges into an inference copy for generation, in order (each decided by the
 *  'auto' rule with the earlier copies live), given the bytes live before the first merge. */
function mergedAdapters(config: ModelConfig, shape: MemoryShape, liveBefore: number): number {
  const t = shape.training;
  if (t.mode !== 'lora') return 0;
  const m = shape.mergeLoraForInference ?? 'auto';
  if (m !== 'auto') return m ? t.adapters : 0;
  const copyBytes = copyBytesOf(config, shape);
  let live = liveBefore;
  let n = 0;
  for (let i = 0; i < t.adapters; i++) {
    const yes = mergeLoraAuto({
      backend: shape.backend ?? 'cpu',
      baseF32: shape.weightDtype === 'f32',
      copyBytes,
      fitsBinding: true,
      maxTotalBytes: shape.deviceBytes ?? Infinity,
      liveBytes: live,
    });
    if (!yes) break;
    n++;
    live += copyBytes;
  }
  return n;
}

/** Host bytes of the keys and values a decode call of shape `d` keeps (each sequence's prompt and new tokens). */
function keptStoreBytes(config: ModelConfig, d: DecodeShape): number {
  return 2 * config.numLayers * d.sequences * (d.promptTokens + d.newTokens) * config.numKvHeads * config.headDim * F;
}

/** Whether the policy runs `d`'s later prompts behind kept rows: f32 caches off WebGPU, and the stores of two calls
 *  within keepKvBytes. */
function keepsKv(config: ModelConfig, shape: MemoryShape, d: DecodeShape): boolean {
  const keepBytes = shape.keepKvBytes ?? 0;
  return d.behind !== undefined && planKvCacheDtype(shape) === 'f32' && 2 * keptStoreBytes(config, d) <= keepBytes;
}

/** A decode shape as the policy runs it: `behind` only where keys and values are kept. */
function keptOrWhole(config: ModelConfig, shape: MemoryShape, d: DecodeShape): DecodeShape {
  if (keepsKv(config, shape, d)) return d;
  const { behind: _, ...whole } = d;
  return whole;
}

/** The largest of the decodeBatch calls a generate call is split into (at most `decodeBatch` sequences each, in
 *  order; a prompt's samples next to each other), by its peak floats. */
function decodeCallFloats(
  config: ModelConfig,
  d: DecodeShape,
  loraInDecode: { rank: number; targets: number } | null,
  fused: boolean,
  kvF: number,
): { cache: number; scratch: number } {
  const B = d.sequences;
  const cap = d.decodeBatch ?? B;
  if (!(Number.isInteger(cap) && cap >= 1))
    throw new Error(`planMemory: decode.decodeBatch must be a positive integer, got ${cap}`);
  if (cap >= B) return decodeFloats(config, d, loraInDecode, fused, kvF);
  const U = Math.max(1, Math.min(d.uniquePrompts, B));
  const promptOf = (i: number) => Math.floor((i * U) / B);
  let best = { cache: 0, scratch: 0 };
  for (let start = 0; start < B; start += cap) {
    const end = Math.min(B, start + cap);
    const call = decodeFloats(
      config,
      { ...d, sequences: end - start, uniquePrompts: promptOf(end - 1) - promptOf(start) + 1 },
      loraInDecode,
      fused,
      kvF,
    );
    if (call.cache + call.scratch > best.cache + best.scratch) best = call;
  }
  return best;
}

/** Peak floats of one decodeBatch call beyond the caches, and the caches themselves (generate.ts), in f32 units:
 *  a cache element counts kvF of them (1 in f32, 1/2 in f16). With `d.behind`, the larger of a first call (its
 *  prompts whole, at most wholePromptTokens) and a later one (every prompt distinct, run behind kept rows). */
function decodeFloats(
  config: ModelConfig,
  d: DecodeShape,
  loraInDecode: { rank: number; targets: number } | null,
  fused: boolean,
  kvF: number,
  behindTokens?: number,
  takeFloats = 0,
): { cache: number; scratch: number } {
  const { hiddenSize: D, vocabSize: V, numKvHeads: Hkv, headDim: Dh, numLayers: L } = config;
  if (d.sequences <= 0 || d.newTokens <= 0) return { cache: 0, scratch: 0 };
  if (d.behind) {
    // each call also reads its sequences' rows back after its last step: a gather of up to B·S rows and their ids
    // (model/kv-keep.ts)
    const { behind, ...whole } = d;
    const take = d.sequences * (d.promptTokens + d.newTokens) * (Hkv * Dh + 1);
    const first = { ...whole, promptTokens: Math.min(d.promptTokens, behind.wholePromptTokens) };
    const a = decodeFloats(config, first, loraInDecode, fused, kvF, undefined, take);
    const later = { ...whole, uniquePrompts: d.sequences };
    const Ts = Math.max(1, Math.min(d.promptTokens, behind.tokens));
    const b = decodeFloats(config, later, loraInDecode, fused, kvF, Ts, take);
    return a.cache + a.scratch >= b.cache + b.scratch ? a : b;
  }
  const B = d.sequences;
  const U = Math.min(d.uniquePrompts, B);
  const P = d.promptTokens;
  const S = P + d.newTokens;
  const W = Hkv * Dh;
  const rope = config.ropeScaling ? Dh / 2 : 0;
  const r = loraInDecode?.rank ?? 0;
  const nt = loraInDecode?.targets ?? 0;
  // prefill: caches for U rows and the prompts' last hidden rows, then passes of Uc prompts (R = Uc·T rows, T the
  // tokens a pass runs per prompt: pos, keyStart, invFreq, ids, cur, the workspace, nxt, the pass's last rows and
  // their indices, and behind kept rows in several passes one layer's pass caches [Uc, P]), freed before hNorm, rstd
  // and the logits of all U prompts
  const prefillCache = 2 * L * U * S * W * kvF;
  const prefillPass = (Uc: number, T: number, passCaches: number) => {
    const R = Uc * T;
    // (the fused inference path updates one hidden state in place: no nxt)
    const ws = fused ? fusedWorkspaceFloats(config, R) - R * D : layerWorkspaceFloats(config, R, r, nt);
    return R + Uc + rope + R + ws + 2 * R * D + Uc * D + Uc + passCaches;
  };
  const budget = d.prefillTokens ?? DEFAULT_PREFILL_TOKENS;
  const Ub = Math.min(U, Math.max(1, Math.floor(budget / (behindTokens ?? 1)))); // prompts per pass behind
  const pass =
    behindTokens === undefined
      ? prefillPass(Math.min(U, prefillChunkPrompts(P, budget)), P, 0)
      : prefillPass(Ub, behindTokens, Ub < U ? 2 * Ub * P * W : 0);
  const prefillScratch = U * D + Math.max(pass, U * D + U + U * V);
  // compaction to B rows (each new layer cache allocated before the old one is freed) with its row ids; also a
  // prefill behind kept rows in several passes (its prompts in another order)
  const gathered = U !== B || (behindTokens !== undefined && U * behindTokens > budget);
  const compact = gathered ? B * S + (2 * L * B + U) * S * W * kvF : 0;
  // decode step state over B rows: workspace (T = 1), ids, pos, keyStart, invFreq, x, y, hNorm, rstd, logits
  const decodeCache = 2 * L * B * S * W * kvF;
  const decodeScratch =
    (fused ? fusedWorkspaceFloats(config, B) : layerWorkspaceFloats(config, B, r, nt)) +
    3 * B +
    rope +
    3 * B * D +
    B +
    B * V +
    takeFloats;
  const prefill = prefillCache + prefillScratch;
  const decode = decodeCache + decodeScratch;
  if (decode >= prefill && decode >= compact) return { cache: decodeCache, scratch: decodeScratch };
  if (prefill >= compact) return { cache: prefillCache, scratch: prefillScratch };
  return { cache: decodeCache, scratch: compact - decodeCache };
}

/** Floats one gradient chunk allocates (decoder.ts runSequences with a backward), and whether it keeps every
 *  layer's internals. */
function gradientFloats(
  config: ModelConfig,
  g: GradientShape,
  training: TrainingShape,
  budgetBytes: number,
  baseF32: boolean,
): { floats: number; keepAll: boolean } {
  const { hiddenSize: D, intermediateSize: Fi, numHeads: H, numKvHeads: Hkv, headDim: Dh, numLayers: L } = config;
  if (g.sequences <= 0 || g.tokens <= 0) return { floats: 0, keepAll: false };
  const B = g.sequences;
  const R = B * g.tokens;
  const Rq = Math.min(g.selected, R);
  const r = training.mode === 'lora' ? training.rank : 0;
  const nt = training.mode === 'lora' ? loraTargets(training.targets).length : 0;
  const ws = layerWorkspaceFloats(config, R, r, nt);
  const keepAll = F * L * ws <= budgetBytes;
  const rope = config.ropeScaling ? Dh / 2 : 0;
  let n = R + R + B + rope; // ids, pos, keyStart, invFreq
  n += (keepAll ? L : 1) * ws;
  n += (L + 1) * R * D; // every layer's input, and the last output
  n += 2 * Rq + 2 * Rq * D + 4 * Rq; // selectedRows, targets, hSel, hSelNorm, rstdFinal, logp, entropy, lse
  n += 2 * Rq + 2 * Rq * D + R * D + (Rq + 1) + Rq; // coef, entCoef, dhSelNorm, dhSel, dres, rowStart, rowList
  n += 2 * R * D + 3 * R * Fi + 2 * R * H * Dh + 2 * R * Hkv * Dh + R * r; // LayerGradScratch
  if (training.mode === 'full') n += 2 * Math.min(R, config.vocabSize) + 1 + R; // uniqueIds, rowStart, rowList (at most)
  const targets = training.mode === 'lora' ? loraTargets(training.targets) : [];
  if (training.mode === 'lora' && mergesInTraining(config, targets, baseF32))
    n += L * trainMergeLayerFloats(config, targets); // the pass's merged weights (lora-train-merge.ts)
  return { floats: n, keepAll };
}

/** The engine's allocation for one step: persistent tensors plus the larger of the decode and gradient peaks. */
export function planMemory(config: ModelConfig, shape: MemoryShape): MemoryPlan {
  const parameters = parameterCount(config);
  const t = shape.training;
  if (!(t.adapters >= 1)) throw new Error(`planMemory: training.adapters must be at least 1, got ${t.adapters}`);
  if (t.mode === 'full' && shape.weightDtype !== 'f32')
    throw new Error(`planMemory: full fine-tuning needs f32 weights, not ${shape.weightDtype}`);
  const weights = weightBytes(config, shape);
  const trainable = t.mode === 'lora' ? loraFloats(config, t.rank, t.targets) : parameters; // floats of one adapter's trainable weights
  const optimizer = F * t.adapters * (2 * trainable + ADAMW_SCALARS); // AdamW m + v + its scalars, per adapter
  // per adapter: weights + gradients, plus the merged copies ('auto': decided with the rest live)
  const mergedCount = mergedAdapters(config, shape, weights + F * t.adapters * 2 * trainable + optimizer);
  const merge = t.mode === 'lora' && mergedCount === t.adapters;
  const lora = F * t.adapters * 2 * trainable + (t.mode === 'lora' ? mergedCount * copyBytesOf(config, shape) : 0);
  const loraInDecode = t.mode === 'lora' && !merge ? { rank: t.rank, targets: loraTargets(t.targets).length } : null;
  const kvCacheDtype = planKvCacheDtype(shape);
  const kvF = kvCacheBytesPerElement(kvCacheDtype) / F;
  const train = decodeCallFloats(config, keptOrWhole(config, shape, shape.decode), loraInDecode, merge, kvF);
  const held = shape.evalDecode
    ? decodeCallFloats(config, keptOrWhole(config, shape, shape.evalDecode), loraInDecode, merge, kvF)
    : { cache: 0, scratch: 0 };
  const evalPeaks = held.cache + held.scratch > train.cache + train.scratch;
  const dec = evalPeaks ? held : train;
  const grad = gradientFloats(
    config,
    shape.gradient,
    t,
    shape.activationBudgetBytes ?? 64 * MiB,
    shape.weightDtype === 'f32',
  );
  const decodeBytes = F * (dec.cache + dec.scratch);
  const gradientBytes = F * grad.floats;
  // the AdamW step packs one adapter's gradients and parameters into flat copies while it runs
  const stepBytes = F * 2 * trainable;
  const stageBytes = Math.max(decodeBytes, gradientBytes, stepBytes);
  const peakStage =
    decodeBytes === stageBytes
      ? evalPeaks
        ? 'eval'
        : 'decode'
      : gradientBytes === stageBytes
        ? 'gradient'
        : 'optimizer';
  const kv_cache = F * dec.cache;
  const activations = Math.max(F * dec.scratch, gradientBytes, stepBytes);
  return {
    parameters,
    bytes: { weights, lora, optimizer, kv_cache, activations, total: weights + lora + optimizer + stageBytes },
    peakStage,
    keepsAllLayers: grad.keepAll,
    kvCacheDtype,
  };
}
