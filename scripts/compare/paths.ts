// Where the protocol comparison's run folders (git-ignored) and committed summaries live.
import { join, resolve } from 'node:path';

export const COMPARE_RUNS = resolve(import.meta.dirname, '../../runs/protocol-compare');
export const COMPARE_RESULTS = resolve(import.meta.dirname, '../../results/protocol-compare');

export const compareRunDir = (tag: string, preset: string, seed: number): string =>
  join(COMPARE_RUNS, tag, preset, `seed-${seed}`);
