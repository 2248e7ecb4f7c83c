// Turning an ExperimentConfig into the engine policy's training and optimiser setup (and the tiny problem sets).
import type { OptimizerSetup, TrainingSetup } from '../../engine/engine-policy.ts';
import type { Problem } from '../../data/problem.ts';
import { tinyArithProblems, tinyJudgeProblems } from '../../data/tiny-task/dataset.ts';
import type { ExperimentConfig } from '../../rl/config.ts';
import { TINY_DATA_SEED, TINY_DEFAULT_HELDOUT, TINY_DEFAULT_TRAIN } from '../../rl/problems.ts';

/**
 * The tiny tasks' problems, synchronously (bench/peer.ts uses this). The page itself calls the RL core's
 * problemsForConfig, which gives the same tiny sets and also reads the shipped datasets.
 */
export function datasetsFor(config: ExperimentConfig): { train: Problem[]; eval: Problem[]; name: string } {
  const make = (name: ExperimentConfig['trainSet'], split: 'train' | 'heldout', count: number) => {
    if (name === 'tiny-arith') return tinyArithProblems({ split, count, seed: TINY_DATA_SEED });
    if (name === 'tiny-judge') return tinyJudgeProblems({ split, count, seed: TINY_DATA_SEED });
    throw new Error(`datasetsFor: "${name}" is read from files; use problemsForConfig (src/rl/problems.ts)`);
  };
  return {
    train: make(config.trainSet, 'train', config.trainSize || TINY_DEFAULT_TRAIN),
    eval: make(config.evalSet, 'heldout', config.evalSize || TINY_DEFAULT_HELDOUT),
    name: config.trainSet === config.evalSet ? config.trainSet : `${config.trainSet} / ${config.evalSet}`,
  };
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
