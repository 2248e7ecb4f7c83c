// The plain records a training run emits: one MetricsRecord per step (metrics.jsonl, the page's charts)
// and the step's rollouts (rollouts.jsonl, the page's inspector). Names are stable: the UI and CLI share them.

export type FinishReason = 'finished' | 'reach_max_turn' | 'stop_when_truncated' | 'completion_token_exceeded';

/** Seconds of each timed stage of a step (src/rl/train/stage-timer.ts), keyed by stage. */
export interface StageTimes {
  rollout: number;
  reward: number;
  old: number;
  ref: number;
  adv: number;
  update: number;
  eval: number;
}

export interface MetricsRecord {
  step: number;
  reward_mean: number;
  reward_std: number;
  /** fraction of training episodes whose final answer was correct */
  accuracy: number;
  /** held-out greedy accuracy; present on evaluation steps only */
  eval_accuracy?: number;
  kl: number;
  entropy: number;
  clip_frac_low: number;
  clip_frac_high: number;
  /** standard deviation of the per-token importance ratio over the step's mini-batches and epochs; present only when
   *  the ratio can leave 1 (several mini-batches or epochs, or old log-probs scored) */
  ratio_std?: number;
  grad_norm: number;
  frac_zero_std_groups: number;
  len_meta_mean: number;
  len_reason_mean: number;
  turns_mean: number;
  finish_reasons: Record<FinishReason, number>;
  /** seconds per stage of the step */
  time_s: StageTimes;
  lr: number;
  /** which agent was trained this step (separate-parameter alternation), else "shared" */
  trained?: string;
  /** mean policy loss over the step's mini-batches (ratio 1 when fully on-policy: -mean advantage, weighted) */
  loss?: number;
  /** fraction of problems dropped by the success-rate filter (Algorithm 1), when it is on */
  frac_filtered_groups?: number;
  /** mean reward of the held-out episodes; present on evaluation steps only */
  eval_reward_mean?: number;
  /** number of trained rows (agent conversations) and trained tokens this step */
  rows_trained?: number;
  tokens_trained?: number;
  // Divergence. A quantity that went NaN or infinite is NaN in memory and null in metrics.jsonl (JSON has no NaN);
  // these fields, present only on such steps, say so instead of leaving a silent null (or a placeholder 0).
  /** true when some number of this step's update was NaN or infinite */
  nonfinite?: true;
  /** which: "logprobs" (any forward), "entropy", "loss", "grad_norm" */
  nonfinite_quantities?: string[];
  /** consecutive non-finite steps up to and including this one (the run stops at config.maxNonFiniteSteps) */
  nonfinite_streak?: number;
  /** optimiser steps skipped this step because the gradients were not finite (the weights did not move) */
  updates_skipped?: number; // A model context shorter than the prompts (train/context.ts); present only on steps where it happened.
  /** episodes in which some turn's prompt + maxTokensPerTurn did not fit the model's context (cut short, or ended) */
  context_limited?: number;
  /** the model's context length (max_position_embeddings) those turns ran into */
  context_length?: number;
  /** the longest prompt, in tokens, among those turns */
  context_prompt_tokens?: number;
  // Meta-action JSON mode (config.metaActions "json", protocol/json-actions/actions.ts); present only in that mode.
  /** fraction of the step's meta-thinking turns that chose each action (the three sum to 1) */
  action_DECOMPOSE?: number;
  action_REWRITE?: number;
  action_EMPTY?: number;
  /** the same fractions per difficulty level of the problems (paper Fig. 4), with the number of turns n */
  action_by_level?: Record<string, { DECOMPOSE: number; REWRITE: number; EMPTY: number; n: number }>;
  /** meta-thinking turns that were not a complete answer (a token cap below the shortest answer) */
  action_invalid?: number;
  /** values past ±65,504 clamped on their way into the f16 KV cache this step (rollouts and evaluation; a half
   *  cannot hold them); present only on steps where it happened */
  kv_cache_clamped?: number;
}

/** The warning for a step whose keys or values left the f16 range. */
export function kvClampMessage(clamped: number, where: string): string {
  return (
    `${clamped} key / value entries past ±65,504 were clamped into the f16 KV cache at ${where}: the model's ` +
    "activations leave the half range (f32 weights keep the cache in f32: --weight-dtype f32, or the page's f32 weights)"
  );
}

export interface TurnRecord {
  role: 'meta' | 'reasoning';
  text: string;
  tokens: number;
  truncated: boolean;
  // Optional per-token view of the turn's trained tokens (present on training steps for the trained agents; at
  // most 512 tokens per turn). All arrays have one entry per trained token, in order.
  /** each trained token's decoded text (a character split over several tokens goes to its last token) */
  pieces?: string[];
  /** log-prob of the token under the rollout weights (pi_old) */
  logprobs?: number[];
  /** pi_theta / pi_old as the loss last used it in the configured ratio mode (turn modes: the turn's ratio) */
  ratio?: number[];
  /** -1 clipped low (A < 0), 0 not clipped, 1 clipped high (A > 0, or the dual clip) */
  clip?: number[];
  /** the advantage the loss gave the token */
  advantage?: number[];
}

export interface RolloutRecord {
  step: number;
  group: number;
  sample: number;
  question: string;
  gold: string;
  turns: TurnRecord[];
  reward: number;
  advantage: number;
  correct: boolean;
  finish_reason: FinishReason;
  /** answer the verifier extracted from the last reasoning turn */
  extracted?: string;
}
