// Turning an ExperimentConfig into the engine policy's training and optimiser setup (and the tiny problem sets).
import type { Problem } from '../../data/problem.ts';
import { tinyArithProblems, tinyJudgeProblems } from '../../data/tiny-task/dataset.ts';
import type { ExperimentConfig } from '../../rl/config.ts';
import { TINY_DATA_SEED, TINY_DEFAULT_HELDOUT, TINY_DEFAULT_TRAIN } from '../../rl/problems.ts';

function make(name: ExperimentConfig['trainSet'], split: 'train' | 'heldout', count: number): Problem[] {
  if (name === 'tiny-arith') return tinyArithProblems({ split, count, seed: TINY_DATA_SEED });
  if (name === 'tiny-judge') return tinyJudgeProblems({ split, count, seed: TINY_DATA_SEED });
  throw new Error(`datasetsFor: "${name}" is read from files; use problemsForConfig (src/rl/problems.ts)`);
}

/**
 * The tiny tasks' problems, synchronously (bench/peer.ts uses this). The page itself calls the RL core's
 * problemsForConfig, which gives the same tiny sets and also reads the shipped datasets.
 */
export function datasetsFor(config: ExperimentConfig): { train: Problem[]; eval: Problem[]; name: string } {
  return {
    train: make(config.trainSet, 'train', config.trainSize || TINY_DEFAULT_TRAIN),
    eval: make(config.evalSet, 'heldout', config.evalSize || TINY_DEFAULT_HELDOUT),
    name: config.trainSet === config.evalSet ? config.trainSet : `${config.trainSet} / ${config.evalSet}`,
  };
}
