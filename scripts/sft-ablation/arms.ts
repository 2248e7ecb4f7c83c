// The "meta-thinking SFT then RL vs CoT SFT then RL" ablation on the embedded model (paper Sec. 4.2.1,
// Fig. 3): where its files live and what each arm runs. Shared by run.ts (which trains) and report.ts (which reads
// the results), so both agree on the settings and the folders.
//   base   scripts/tiny/pretrain.ts --mix direct: the tiny architecture trained from random weights on the task's
//          questions and boxed answers only (no plan, no dialogue, no chain of thought)
// Each arm runs at two SFT budgets (short, long), each with its own seeds.
//   meta   rema sft --preset tiny-sft-meta from the base, then rema train --preset tiny-default (multi-turn ReMA)
//   cot    rema sft --preset tiny-sft-cot from the base, then rema train --preset tiny-default with mode vrp-rl
//          (the single-agent CoT baseline, VRP_RL) and maxTurns 1; every other RL setting is the same
import { join } from 'node:path';

export const REPO = join(import.meta.dirname, '../..');
/** weights (ignored by git): the base, the SFT run folders with their model, the RL run folders */
export const WORK = 'runs/sft-ablation';
/** each run's files as the report reads them (ignored by git): configs, SFT settings, per-step metrics, evals */
export const LOGS = 'runs/sft-ablation/logs';
/** the committed summary (summary.json: settings, curves, evals per arm and seed; the base's training log) */
export const RESULTS = 'results/sft-ablation';
export const BASE_DIR = join(WORK, 'base');

/** pretrain.ts flags of the base (from random weights; about 3 minutes on a 2-core CPU) */
export const BASE_ARGS = [
  '--mix',
  'direct',
  '--steps',
  '600',
  '--seed',
  '1',
  '--eval-every',
  '100000',
  '--eval-size',
  '60',
];

export type Arm = 'meta' | 'cot';
export const ARMS: readonly Arm[] = ['meta', 'cot'];

export const ARM_LABEL: Record<Arm, string> = {
  meta: 'meta-thinking SFT -> multi-turn ReMA RL',
  cot: 'CoT SFT -> single-agent CoT RL (VRP_RL)',
};

/** SFT budgets: `rema sft` overrides over the arm's preset, full fine-tuning at lr 3e-3 (the base knows neither format);
 *  short = 4096 problems once, long = 16384 problems once (4x the chats and steps) */
export type Budget = 'short' | 'long';
export const BUDGETS: readonly Budget[] = ['short', 'long'];
export const SFT_SET: Record<Budget, string[]> = {
  short: ['finetune="full"', 'lr=3e-3', 'sft.tinyProblems=4096', 'sft.epochs=1'],
  long: ['finetune="full"', 'lr=3e-3', 'sft.tinyProblems=16384', 'sft.epochs=1'],
};
export const SFT_PRESET: Record<Arm, string> = { meta: 'tiny-sft-meta', cot: 'tiny-sft-cot' };

/** `rema train` overrides over tiny-default (LoRA rank 8, lr 1e-3, 8 problems x 8 samples per step) */
export const RL_STEPS = 30;
export const RL_SET: Record<string, unknown> = { steps: RL_STEPS, evalEvery: 10, evalSize: 64 };
export const RL_MODE: Record<Arm, Record<string, unknown>> = { meta: {}, cot: { mode: 'vrp-rl', maxTurns: 1 } };

export const sftDir = (budget: Budget, arm: Arm, seed: number) => join(WORK, budget, `sft-${arm}-seed-${seed}`);
export const rlDir = (budget: Budget, arm: Arm, seed: number) => join(WORK, budget, `rl-${arm}-seed-${seed}`);
export const logDir = (budget: Budget, arm: Arm, seed: number) => join(LOGS, budget, arm, `seed-${seed}`);
