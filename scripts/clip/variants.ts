// Fig. 6's variants where clipping binds: tiny-default with 4 mini-batches per step (as scripts/replication) plus
// several PPO epochs over each batch and a larger learning rate, so that the policy moves within a step and the
// importance ratio leaves 1. CLIP_SETTING is the pilot's choice (results/fig6-clip/pilot.json).
import { resolve } from 'node:path';
import type { ExperimentConfig } from '../../src/rl/config.ts';
import { getPreset } from '../../src/rl/presets.ts';

/** committed summaries */
export const CLIP_ROOT = resolve(import.meta.dirname, '../../results/fig6-clip');
/** run folders (git-ignored) */
export const RUNS_ROOT = resolve(import.meta.dirname, '../../runs');

export interface ClipSetting {
  ppoEpochs: number;
  lr: number;
}

export const CLIP_SETTING: ClipSetting = { ppoEpochs: 2, lr: 3e-3 };

export const CLIP_VARIANT_NAMES = ['turn-shared', 'token-shared', 'turn-separate'] as const;
export type ClipVariantName = (typeof CLIP_VARIANT_NAMES)[number];

export function clipVariant(name: ClipVariantName, setting: ClipSetting = CLIP_SETTING): ExperimentConfig {
  const base: ExperimentConfig = { ...getPreset('tiny-default'), miniBatches: 4, ...setting, name: `clip-${name}` };
  if (name === 'token-shared') return { ...base, ratio: 'token', aggregation: 'seq-mean-token-mean' };
  if (name === 'turn-separate') return { ...base, paramMode: 'separate', switchEvery: 10, startAgent: 'meta' };
  return base;
}
