// Turning an ExperimentConfig into the things the trainer needs in the page: the problem sets and the engine
// policy's training and optimiser setup. Only datasets the page can build offline are accepted.
import type { Problem } from '../../data/problem.ts';
import { tinyArithProblems, tinyJudgeProblems } from '../../data/tiny-task/dataset.ts';
import type { OptimizerSetup, TrainingSetup } from '../../engine/engine-policy.ts';
import type { DatasetName, ExperimentConfig } from '../../rl/config.ts';

/** Sizes used when the config says 0 (= all) for a generated set. */
const GENERATED_TRAIN = 2000;
const GENERATED_EVAL = 200;

function problems(name: DatasetName, split: 'train' | 'heldout', count: number, seed: number): Problem[] {
  if (name === 'tiny-arith') return tinyArithProblems({ split, count, seed });
  if (name === 'tiny-judge') return tinyJudgeProblems({ split, count, seed });
  throw new Error(`dataset "${name}" is not available in the page yet; use tiny-arith or tiny-judge (the CLI reads the others)`);
}

export function datasetsFor(config: ExperimentConfig): { train: Problem[]; eval: Problem[]; name: string } {
  const train = problems(config.trainSet, 'train', config.trainSize || GENERATED_TRAIN, config.seed);
  const evalSet = problems(config.evalSet, 'heldout', config.evalSize || GENERATED_EVAL, config.seed);
  return { train, eval: evalSet, name: config.trainSet === config.evalSet ? config.trainSet : `${config.trainSet} / ${config.evalSet}` };
}

/** Adapter names: one per agent in separate mode, else one shared set ("full" for full fine-tuning). */
export function trainingSetupFor(config: ExperimentConfig): TrainingSetup {
  if (config.finetune === 'full') return { mode: 'full', adapters: ['full'] };
  const adapters = config.paramMode === 'separate' ? ['meta', 'reasoning'] : ['shared'];
  return { mode: 'lora', adapters, rank: config.loraRank, alpha: config.loraAlpha, targets: config.loraTargets };
}

export function optimizerSetupFor(config: ExperimentConfig): OptimizerSetup {
  const schedule: OptimizerSetup['schedule'] =
    config.lrSchedule === 'cosine'
      ? { kind: 'warmup-cosine', warmupSteps: config.warmupSteps, totalSteps: Math.max(1, config.steps) }
      : { kind: 'constant', warmupSteps: config.warmupSteps };
  return {
    lr: config.lr,
    beta1: config.adamBeta1,
    beta2: config.adamBeta2,
    eps: 1e-8,
    weightDecay: config.weightDecay,
    gradClip: config.gradClip,
    schedule,
  };
}
