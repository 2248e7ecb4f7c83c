// What a caller sets up for an EnginePolicy (engine-policy.ts): the training setup (LoRA or full fine-tuning),
// AdamW's hyper-parameters, batching limits and storage choices, their validation, and the rule for the frozen
// base weights' storage on each backend.
import type { Backend } from '../backend.ts';
import type { HostWeights, ModelConfig } from '../model/config.ts';
import type { KvCacheChoice } from '../model/kv-cache.ts';
import { normalizeLoraTargets } from '../model/lora.ts';
import { validateAdamW, type AdamWOptions } from '../optim/adamw.ts';
import type { TokenDecoder } from './policy.ts';

export type TrainingSetup =
  | { mode: 'lora'; adapters: string[]; rank: number; alpha: number; targets: string[] }
  | { mode: 'full'; adapters: string[] };

/** AdamW hyper-parameters of each trainable adapter (see optim/adamw.ts for each field). */
export type OptimizerSetup = AdamWOptions;

export interface EnginePolicyOptions {
  backend: Backend;
  config: ModelConfig;
  /** the checkpoint's weights (float32, or 16-bit as loaded with keep16Bit: uploadParams stores or widens them) */
  weights: HostWeights;
  decoder: TokenDecoder;
  training: TrainingSetup;
  optimizer: OptimizerSetup;
  /** seeds LoRA initialisation (adapter i uses seed + i) */
  seed: number;
  /** most rows (sequences × padded length) in one forward/backward chunk; default 4096 */
  maxBatchTokens?: number;
  /** most sequences decoded together; default 64 */
  maxDecodeBatch?: number;
  /** most padded prompt tokens prefilled in one pass of generate (at least one prompt per pass); default
   *  DEFAULT_PREFILL_TOKENS (model/generate.ts). Bounds the prefill's scratch; the results do not depend on it. */
  prefillTokens?: number;
  /** scoring (reference and old log-probs: model/prefix-score.ts) and training (model/prefix-train.ts) run each
   *  context that several requests share (the tokens before a request's first scored position: a group's prompt)
   *  once and only each request's own tokens after it, where that pads to at most 85% of the rows of running every
   *  request whole (request-batching.ts prefixSharingPlan); default: on the CPU and WASM backends. Log-probs and
   *  gradients agree with whole rows to rounding. */
  sharePrefixes?: boolean;
  /** generate keeps each call's keys and values (prompt and fed-back tokens, in host memory) for later calls whose
   *  prompts start with them (a multi-turn rollout: an agent's next prompt extends its last one), which then prefill
   *  only the rest (model/prefill-behind.ts); at most this many bytes are kept (the oldest stores let go first), and
   *  none once weights change. Default 0 (off; rl/policy-setup.ts turns it on for multi-turn runs on the CPU and WASM
   *  backends: model/kv-keep.ts DEFAULT_KEEP_KV_BYTES); an f16 KV cache keeps nothing. Each call that keeps reads its
   *  sequences' rows back (a gather and one read per layer's keys and values). Logits agree with a whole prefill's
   *  to rounding. */
  keepKvBytes?: number;
  /** a training chunk keeps every layer's internals (skipping the backward's recompute) when they fit in this
   *  many bytes; default 64 MiB. 0 always recomputes (least memory). */
  activationBudgetBytes?: number;
  /** storage of the frozen base weights: 'auto' (default: resolveBaseDtype, f16 for LoRA on a WebGPU device with
   *  shader-f16, else f32), 'f32' (forces full precision), 'f16' (a WebGPU device that stores halves, or the WASM
   *  backend), 'bf16' (the WASM backend). LoRA, gradients and optimiser state are always f32. */
  baseDtype?: 'auto' | 'f32' | 'f16' | 'bf16';
  /** run generation and scoring with each LoRA adapter merged into an inference copy of the layer weights in the
   *  fused layout (model/lora-merge.ts: [q;k;v] and [gate;up] concatenated, o and down copied when targeted;
   *  refreshed on the device after every optimiser step): 9 kernels per layer and decode step instead of 17 + 2 per
   *  LoRA target, at the memory of that copy (about the base's layer weights in f32 when every projection is
   *  targeted; f16 over an f16 base on WebGPU). 'auto' (default): model/lora-merge.ts mergeLoraAuto (WebGPU: a copy of at most 8 GiB that takes at
   *  most half the memory left when the backend knows its total; CPU / WASM: f32 base and at most 256 MiB).
   *  Gradients never use it. */
  mergeLoraForInference?: boolean | 'auto';
  /** compile the kernels a kind of call (generation at a batch size, scoring, gradients) uses in parallel before its
   *  first dispatch, from a trace of its first chunk (Backend.precompile; WebGPU: createComputePipelineAsync);
   *  default true. false compiles each kernel when first dispatched. */
  precompileKernels?: boolean;
  /** written to adapter_config.json base_model_name_or_path */
  baseModelName?: string;
  /** storage of generation's KV cache (model/kv-cache.ts): 'auto' (default: f16 halves when the base is f16 on
   *  WebGPU, else f32), 'f32' (forces full precision), 'f16' (WebGPU or the CPU twin). Scoring and gradients never
   *  read it, so trained log-probs do not depend on it; sampled tokens and their log-probs may (bench/README.md). */
  kvCacheDtype?: KvCacheChoice;
}

/** The frozen base's storage for baseDtype 'auto': f16 halves for LoRA on a WebGPU device with shader-f16 (half
 *  the memory and weight reads of a memory-bound decode; bf16 checkpoints are converted on load; computed in f32),
 *  f32 otherwise (the CPU and WASM backends compute in f32 and gain no speed from halves; full fine-tuning trains
 *  every weight in f32). On f16 the golden fixtures agree to 2e-3 of max |value| (logits, log-probs) and 2e-2
 *  (LoRA gradients) instead of 4e-5 / 4e-4 (tests/engine/golden-f16.test.ts). */
export function resolveBaseDtype(
  choice: 'auto' | 'f32' | 'f16' | 'bf16',
  be: Backend,
  mode: 'lora' | 'full',
): 'f32' | 'f16' | 'bf16' {
  if (choice !== 'auto') return choice;
  return mode === 'lora' && be.prefersF16 === true && be.supportsF16 ? 'f16' : 'f32';
}

/** Throws a clear error for an option the policy cannot run with (batch sizes, LoRA rank and alpha, adapters). */
export function validateEnginePolicyOptions(opts: EnginePolicyOptions): void {
  const { training } = opts;
  const maxDecodeBatch = opts.maxDecodeBatch ?? 64;
  if (!Number.isInteger(maxDecodeBatch) || maxDecodeBatch < 1)
    throw new Error(`createEnginePolicy: maxDecodeBatch must be a positive integer, got ${maxDecodeBatch}`);
  validateAdamW(opts.optimizer);
  if (training.mode === 'lora') {
    normalizeLoraTargets(training.targets);
    if (!Number.isInteger(training.rank) || training.rank < 1)
      throw new Error(`createEnginePolicy: training.rank must be a positive integer, got ${training.rank}`);
    if (!(training.alpha > 0)) throw new Error(`createEnginePolicy: training.alpha must be > 0, got ${training.alpha}`);
  }
  if (training.adapters.length === 0)
    throw new Error('createEnginePolicy: training.adapters must name at least one adapter');
  if (new Set(training.adapters).size !== training.adapters.length)
    throw new Error(`createEnginePolicy: duplicate adapter names in [${training.adapters.join(', ')}]`);
}
