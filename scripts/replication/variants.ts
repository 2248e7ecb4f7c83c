// The Fig. 6 ablation variants on the embedded model (scripts/replication/fig6.ts runs them, report.ts reads them).
import { resolve } from 'node:path';
import type { ExperimentConfig } from '../../src/rl/config.ts';
import { getPreset } from '../../src/rl/presets.ts';

/** Where fig6.ts writes the run folders (<variant>/seed-<s>); out of the tree, summarized by report.ts --results. */
export const FIG6_RUNS = resolve(import.meta.dirname, '../../runs/fig6');

/** The paper's ablation setting on the tiny task: tiny-default with 4 mini-batches per step. */
const base = (): ExperimentConfig => ({ ...getPreset('tiny-default'), miniBatches: 4 });

export const VARIANTS: Record<string, () => ExperimentConfig> = {
  'turn-shared': () => ({ ...base(), name: 'fig6-turn-shared' }),
  'token-shared': () => ({ ...base(), name: 'fig6-token-shared', ratio: 'token', aggregation: 'seq-mean-token-mean' }),
  'turn-separate': () => ({
    ...base(),
    name: 'fig6-turn-separate',
    paramMode: 'separate',
    switchEvery: 10,
    startAgent: 'meta',
  }),
  // short per-turn caps (24 tokens, above the ~15-token messages the embedded model writes, so turns are not cut at
  // the start) and as many turns (5) as its 256-token context holds
  'echo-trap': () => ({ ...base(), name: 'fig6-echo-trap', maxTokensPerTurn: 24, maxTurns: 5 }),
};
