// The training and held-out problems a config names: the embedded tiny tasks are generated (seeded, with
// disjoint train / held-out splits), the shipped MATH / GSM8K sets are read from public/data, the larger MATH
// training set from the user's data folder (not shipped), and `file` from a user's JSONL. The caller hands in FileSources (fetch in
// the page, the disk in the CLI), so this stays free of fs and DOM.

import type { Problem } from '../data/problem.ts';
import { DATA_DIR_DATASETS, isDataDirDataset, loadProblems, SHIPPED_DATASETS } from '../data/datasets.ts';
import { tinyArithProblems, tinyJudgeProblems } from '../data/tiny-task/dataset.ts';
import type { FileSource } from '../util/file-source.ts';
import { Rng } from '../util/rng.ts';
import type { DatasetName, ExperimentConfig } from './config.ts';

export interface ProblemSources {
  /** public/data */
  shipped: FileSource;
  /** the folder of the sets that are not shipped (DATA_DIR_DATASETS), when the caller has one (the command line's
   *  --data-dir); needed for math8k */
  dataDir?: FileSource;
  /** opens a user's JSONL file by path, returning its FileSource and the file name inside it */
  userFile?: (path: string) => { source: FileSource; path: string };
}

/** Problems generated for the tiny tasks when the config asks for "all" (size 0). */
export const TINY_DEFAULT_TRAIN = 4000;
export const TINY_DEFAULT_HELDOUT = 200;
/** The tiny task's data seed: fixed, so every run (whatever its training seed) sees the same problems. */
export const TINY_DATA_SEED = 0;

async function loadNamed(name: DatasetName, file: string, sources: ProblemSources): Promise<Problem[]> {
  if (name === 'file') {
    if (!sources.userFile) throw new Error('dataset "file": no way to open user files here');
    const { source, path } = sources.userFile(file);
    return loadProblems(source, path);
  }
  if (name in SHIPPED_DATASETS)
    return loadProblems(sources.shipped, SHIPPED_DATASETS[name as keyof typeof SHIPPED_DATASETS]);
  if (isDataDirDataset(name)) {
    if (!sources.dataDir)
      throw new Error(
        `dataset "${name}" is not shipped: it is read from a data folder the user downloads it into (command line: --data-dir)`,
      );
    return loadProblems(sources.dataDir, DATA_DIR_DATASETS[name].file);
  }
  throw new Error(`dataset "${name}" cannot be loaded from files`);
}

function tiny(name: DatasetName, split: 'train' | 'heldout', count: number): Problem[] {
  const opts = { split, count, seed: TINY_DATA_SEED };
  return name === 'tiny-judge' ? tinyJudgeProblems(opts) : tinyArithProblems(opts);
}

/** A seeded subset of `size` problems (all when size is 0 or larger than the set). */
export function subset(problems: Problem[], size: number, seed: number): Problem[] {
  if (size === 0 || size >= problems.length) return problems;
  return new Rng(seed).shuffle([...problems]).slice(0, size);
}

const isTiny = (n: DatasetName) => n === 'tiny-arith' || n === 'tiny-judge';

export async function problemsForConfig(
  config: ExperimentConfig,
  sources: ProblemSources,
): Promise<{ train: Problem[]; eval: Problem[] }> {
  const train = isTiny(config.trainSet)
    ? tiny(config.trainSet, 'train', config.trainSize || TINY_DEFAULT_TRAIN)
    : subset(await loadNamed(config.trainSet, config.trainFile, sources), config.trainSize, 1);
  const evalProblems = isTiny(config.evalSet)
    ? tiny(config.evalSet, 'heldout', config.evalSize || TINY_DEFAULT_HELDOUT)
    : subset(await loadNamed(config.evalSet, config.evalFile, sources), config.evalSize, 2);
  return { train, eval: evalProblems };
}
