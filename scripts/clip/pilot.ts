// A short pilot for the clipping regime: turn-shared Fig. 6 runs (4 mini-batches) with several PPO epochs and
// learning rates, a few steps each, printing per setting the clipped fraction and the ratio's spread, so that the
// 5-seed comparison (scripts/clip/run.ts) runs where the ratio leaves 1. Run folders go under runs/clip-pilot
// (not committed; a finished setting is read back, not rerun); the table is printed and written to
// results/fig6-clip/pilot.json.
//   node --experimental-wasm-relaxed-simd --import tsx scripts/clip/pilot.ts [--steps 5] [--epochs 2,4] [--lrs 0.003,0.01] [--read-only]
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runTrain } from '../../src/cli/train.ts';
import type { MetricsRecord } from '../../src/rl/metrics.ts';
import { runtimeChoices } from '../../src/cli/runtime-choices.ts';
import { CLIP_ROOT, clipVariant, RUNS_ROOT } from './variants.ts';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '5' },
    epochs: { type: 'string', default: '2,4' },
    lrs: { type: 'string', default: '0.003,0.01' },
    seed: { type: 'string', default: '0' },
    // tabulate the settings already run, without running the others
    'read-only': { type: 'boolean', default: false },
  },
});

const runtime = runtimeChoices({ threads: '1' });
const rows: Record<string, number>[] = [];
for (const ppoEpochs of values.epochs.split(',').map(Number))
  for (const lr of values.lrs.split(',').map(Number)) {
    const config = {
      ...clipVariant('turn-shared', { ppoEpochs, lr }),
      steps: Number(values.steps),
      seed: Number(values.seed),
      evalEvery: 0,
      evalBeforeTrain: false,
    };
    const out = join(RUNS_ROOT, 'clip-pilot', `epochs${ppoEpochs}-lr${lr}`);
    const file = join(out, 'metrics.jsonl');
    const logged = (): MetricsRecord[] =>
      existsSync(file)
        ? readFileSync(file, 'utf8')
            .split('\n')
            .filter((l) => l.trim() !== '')
            .map((l) => JSON.parse(l) as MetricsRecord)
        : [];
    const done = logged().length >= config.steps;
    if (!done && values['read-only']) continue;
    const m = done
      ? logged().slice(0, config.steps)
      : (await runTrain({ config, out, backend: 'wasm', runtime, saveEvery: 1, progress: 'none' })).metrics;
    const avg = (f: (x: (typeof m)[number]) => number) => m.reduce((a, x) => a + f(x), 0) / m.length;
    const row = {
      ppoEpochs,
      lr,
      steps: m.length,
      clip_frac: avg((x) => x.clip_frac_low + x.clip_frac_high),
      ratio_std: avg((x) => x.ratio_std ?? 0),
      reward_mean: avg((x) => x.reward_mean),
      update_s: avg((x) => x.time_s.update),
    };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
mkdirSync(CLIP_ROOT, { recursive: true });
writeFileSync(join(CLIP_ROOT, 'pilot.json'), JSON.stringify(rows, null, 2) + '\n');
