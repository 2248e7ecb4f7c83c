// Writes the committed summary of the clipping-regime Fig. 6 runs (results/fig6-clip/summary.json) from their run
// folders (runs/fig6-clip/<variant>/seed-<s>, written by scripts/clip/run.ts): the setting, and per run the clipped
// fraction, the ratio's spread and the rollout reward per step, and the held-out evaluations. Only finished steps
// count.
//   npx tsx scripts/clip/summarize.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readEvals, round, seedRuns } from '../lib/run-folder.ts';
import { CLIP_ROOT, CLIP_SETTING, CLIP_VARIANT_NAMES, RUNS_ROOT } from './variants.ts';

const runs = seedRuns(join(RUNS_ROOT, 'fig6-clip'), CLIP_VARIANT_NAMES).map(({ group, dir, config, metrics }) => ({
  variant: group,
  seed: config.seed,
  steps: config.steps,
  steps_done: metrics.length,
  clip_frac: metrics.map((m) => round(m.clip_frac_low + m.clip_frac_high)),
  ratio_std: metrics.map((m) => round(m.ratio_std ?? 0)),
  reward: metrics.map((m) => round(m.reward_mean, 3)),
  eval: readEvals(dir).map((e) => ({ step: e.step, accuracy: round(e.accuracy), n: e.n })),
}));
runs.sort((a, b) => a.seed - b.seed || CLIP_VARIANT_NAMES.indexOf(a.variant) - CLIP_VARIANT_NAMES.indexOf(b.variant));
mkdirSync(CLIP_ROOT, { recursive: true });
const out = join(CLIP_ROOT, 'summary.json');
writeFileSync(out, JSON.stringify({ setting: { ...CLIP_SETTING, miniBatches: 4 }, runs }, null, 1) + '\n');
console.log(`${out}: ${runs.length} runs`);
