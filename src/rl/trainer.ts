// The RL trainer: one call to step() runs one ReMA / GRPO iteration as a flat list of timed phases
// (rollout -> reward -> old log-probs -> reference log-probs -> advantages -> update -> eval), the way verl's
// RayPPOTrainer.fit does, and returns one MetricsRecord plus the step's rollouts. It talks to the model only
// through the Policy interface, so it runs the same on every backend, in the page's worker and in the CLI.

import type { Policy } from '../engine/policy.ts';
import type { Problem } from '../data/problem.ts';
import type { ChatTokenizer } from '../data/tokenizer.ts';
import type { ExperimentConfig } from './config.ts';
import type { MetricsRecord, PhaseTimes, RolloutRecord } from './metrics.ts';

export type PhaseName = keyof PhaseTimes;

export type TrainerEvent =
  /** a phase of a step starts */
  | { type: 'phase'; step: number; phase: PhaseName }
  /** work inside a phase: generated tokens, scored rows, evaluated problems */
  | { type: 'progress'; step: number; phase: PhaseName; done: number; total: number }
  /** a human-readable note (e.g. "all groups filtered out; nothing to train") */
  | { type: 'log'; step: number; message: string };

export interface TrainerOptions {
  config: ExperimentConfig;
  policy: Policy;
  tokenizer: ChatTokenizer;
  /** training problems (the trainer draws problemsPerStep per step, in a seeded order, epoch after epoch) */
  train: Problem[];
  /** held-out problems for greedy evaluation (the first evalSize are used; 0 = all) */
  eval: Problem[];
  onEvent?: (event: TrainerEvent) => void;
  /** the model's context length (prompt + generation); default: the policy's config.maxPositionEmbeddings when it has one */
  maxContext?: number;
}

export interface StepResult {
  metrics: MetricsRecord;
  rollouts: RolloutRecord[];
  /** the evaluation run at the end of this step, when it was an evaluation step */
  eval?: EvalResult;
}

export interface EvalResult {
  /** number of updates applied when the evaluation ran */
  step: number;
  /** fraction of held-out problems whose final answer was correct (greedy, pass@1) */
  accuracy: number;
  /** mean training reward the same episodes would have earned */
  reward_mean: number;
  n: number;
  /** accuracy per Problem.level (problems without a level are under "all") */
  by_level: Record<string, { n: number; accuracy: number }>;
  rollouts: RolloutRecord[];
  time_s: number;
}

/** Everything besides weights and optimiser moments that a resumed run needs (plain JSON). */
export interface TrainerState {
  version: 1;
  /** updates applied so far */
  step: number;
  /** data order: position in the current epoch's seeded permutation, and the epoch */
  cursor: number;
  epoch: number;
}

export interface Trainer {
  readonly config: ExperimentConfig;
  /** one RL iteration; evaluates after the update when (step % evalEvery == 0) or on the last step */
  step(): Promise<StepResult>;
  /** greedy evaluation on the held-out set with the current weights */
  evaluate(): Promise<EvalResult>;
  state(): TrainerState;
  restore(state: TrainerState): void;
}

export { createTrainer } from './trainer-impl.ts';
