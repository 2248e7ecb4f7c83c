// The boundary between the RL layer and the engine: Policy (generate, score) for any agent and TrainablePolicy for
// the one the trainer updates. The trainer sees only these interfaces, so every
// GRPO / ReMA variant is plain arithmetic over per-token numbers in src/rl, and runs the same on any backend.
// Loss convention: the engine adds d/dθ of  L = Σ_t coef_t · logp_t (+ entCoef_t · H_t)  to the gradient
// buffers; the optimiser then MINIMISES L. The RL layer passes coef_t = dLoss/dlogp_t.

/** Something that turns token ids into text (the tokenizer), used for stop strings. */
export interface TokenDecoder {
  decode(ids: readonly number[]): string;
}

export interface SamplingParams {
  /** 0 means greedy */
  temperature: number;
  /** nucleus mass in (0, 1]; 1 disables */
  topP: number;
  /** keep the k most likely tokens; 0 or less disables */
  topK: number;
  /** seeds a counter-based RNG: same seed + same backend -> same tokens */
  seed: number;
}

/**
 * Constrained decoding (e.g. the meta-action JSON grammar, rl/protocol/json-actions): which ids the next draw may
 * take. The sampler gives every other id probability 0 before it draws (on the device: the `sample` kernel's mask),
 * so the drawn token's log-prob in Generation.logprobs is that of the masked, renormalised distribution; scoring and
 * training (Policy.score, accumulateGradients) never apply a mask.
 */
export interface TokenConstraint {
  /** The ids allowed after `generated` (the tokens drawn so far): ceil(vocabSize / 32) words, bit (i & 31) of word
   *  (i >> 5) set = id i allowed (stop ids included). `maxNewTokens` is the request's cap. At least one id is allowed. */
  allowed(generated: readonly number[], maxNewTokens: number): Uint32Array;
}

export interface GenerateRequest {
  /** prompt token ids (the rendered chat so far, ending with the generation prompt) */
  prompt: readonly number[];
  /** LoRA adapter to apply, or null for the base weights */
  adapter: string | null;
  maxNewTokens: number;
  /** generation stops when the decoded continuation contains one of these; the stop string is kept */
  stopStrings: readonly string[];
  /** generation stops after emitting one of these ids (end-of-turn / eos); the id is not part of `tokens` */
  stopTokenIds: readonly number[];
  /** restricts every draw of this request (constrained decoding); absent: every id */
  constraint?: TokenConstraint;
}

export type GenerationFinish = 'stop_token' | 'stop_string' | 'length';

export interface Generation {
  /** generated token ids, excluding a terminating stop token id */
  tokens: number[];
  /** log-prob of each generated token under the sampling distribution's base (temperature-1) policy (masked and
   *  renormalised when the request has a constraint) */
  logprobs: number[];
  text: string;
  finish: GenerationFinish;
}

export interface ScoreRequest {
  /** the full sequence: prompt + response tokens (+ end-of-turn) */
  tokens: readonly number[];
  /** indices t (>= 1) whose log-prob  log p(tokens[t] | tokens[<t])  is wanted, ascending */
  positions: readonly number[];
  adapter: string | null;
  /**
   * The token scored at each position when it is not tokens[position] (one per position). The ReMA code labels
   * the end of a finished response with eos_token_id while the sequence goes on with the template's closing token.
   */
  targets?: readonly number[];
}

export interface ScoreOptions {
  reference?: boolean;
  /** score softmax(logits / temperature); default 1 */
  temperature?: number;
}

export interface ScoreResult {
  /** one per requested position */
  logprobs: Float32Array;
  /** entropy of the next-token distribution at each requested position */
  entropy: Float32Array;
}

export interface GradientRequest extends ScoreRequest {
  /**
   * coef_t per requested position, or a function giving them from the log-probs of the forward being
   * backpropagated (an on-policy step: the loss's derivative needs the very log-probs of that forward; called once
   * per backward, after the forward, with one log-prob per requested position)
   */
  coef: Float32Array | ((logprobs: Float32Array) => Float32Array);
  /** optional entropy coefficient per requested position */
  entropyCoef?: Float32Array;
}

/** One optimiser step as readOptimizerStats reports it. */
export interface OptimizerStepResult {
  /** global gradient norm before clipping */
  gradNorm: number;
  /** the learning rate of the step (of the schedule at the update's number; skipped steps do not advance it) */
  lr: number;
  /** false when the update was skipped because the gradients were not finite (NaN / Inf) */
  applied: boolean;
}

/** What every agent's model does, trained or frozen (the engine's EnginePolicy, the frozen ONNX agent): generate and
 *  score token sequences within its context. */
export interface Policy {
  readonly vocabSize: number;
  /** the model's context length in tokens (prompt + generation): config.json's max_position_embeddings */
  readonly contextLength: number;
  generate(
    requests: readonly GenerateRequest[],
    sampling: SamplingParams,
    onProgress?: (doneTokens: number) => void,
  ): Promise<Generation[]>;
  /**
   * Per-token log-probs under current weights, or under the reference policy (adapters off) when `reference`;
   * with `temperature` (default 1) of softmax(logits / temperature), as verl scores rollouts sampled at T.
   */
  score(requests: readonly ScoreRequest[], opts?: ScoreOptions): Promise<ScoreResult[]>;
  /** Frees what the policy holds (device tensors, an onnxruntime session); a backend stays its caller's. */
  dispose(): void | Promise<void>;
  /** Values its generation clamped to ±65,504 on their way into an f16 KV cache so far (Backend.halfClamps);
   *  absent: a policy that never stores halves. */
  kvCacheClamps?(): Promise<number>;
}

/** A policy the trainer updates: named trainable adapters, gradients, optimiser steps and checkpoint IO. */
export interface TrainablePolicy extends Policy {
  /** names of trainable adapters ("shared", or "meta" and "reasoning"); "full" for full fine-tuning */
  readonly adapters: readonly string[];
  /** Backward of Σ coef·logp (+ entCoef·H), log-probs at `temperature` (default 1); returns the log-probs/entropies of the forward it ran. */
  accumulateGradients(requests: readonly GradientRequest[], opts?: { temperature?: number }): Promise<ScoreResult[]>;
  zeroGrad(adapter: string): void;
  /**
   * Queues one optimiser step of `adapter` over its accumulated gradients. The gradient norm, the clip factor and
   * the skip of a non-finite step are decided where the gradients live (on a GPU: on the device), so this reads
   * nothing back: the step's figures come later from readOptimizerStats. Generation, scoring and gradients queued
   * after it see the updated weights.
   */
  optimizerStep(adapter: string): Promise<void>;
  /**
   * The results of `adapter`'s optimiser steps since the previous call, oldest first: one small read (callers read
   * once per training step, after its update stage). A backend may read them itself after many unread steps; none
   * is lost.
   */
  readOptimizerStats(adapter: string): Promise<OptimizerStepResult[]>;
  /** L2 norm of each trainable tensor's accumulated gradient (named as in checkpoints), read before optimizerStep;
   *  optional: used only to explain a step (rl/train/explain.ts) */
  gradientNorms?(adapter: string): Promise<{ name: string; norm: number }[]>;
  /** PEFT layout for LoRA adapters (adapter_config.json + adapter_model.safetensors); safetensors for "full" */
  saveAdapter(adapter: string): Promise<Record<string, Uint8Array>>;
  loadAdapter(adapter: string, files: Record<string, Uint8Array>): Promise<void>;
  /** optimiser + RNG state for resumable checkpoints */
  saveOptimizerState(adapter: string): Promise<Uint8Array>;
  loadOptimizerState(adapter: string, state: Uint8Array): Promise<void>;
}
