// The Echo Trap settings at the longest horizon the embedded model's context allows (scripts/echo/setting.ts). Run
// folders go under runs/echo-longest/<setting>/seed-<s> (not committed; finished runs are skipped, a killed one
// resumes); scripts/echo/summarize.ts writes the summary.
//   node --experimental-wasm-relaxed-simd --import tsx scripts/echo/run.ts [--settings cap16-stop,cap16-continue] [--seeds 0] [--steps 60]
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runTrain } from '../../src/cli/train.ts';
import { runtimeChoices } from '../../src/cli/runtime-choices.ts';
import { ECHO_RUNS, ECHO_SETTINGS } from './setting.ts';

const { values } = parseArgs({
  options: {
    settings: { type: 'string', default: Object.keys(ECHO_SETTINGS).join(',') },
    seeds: { type: 'string', default: '0' },
    steps: { type: 'string', default: '60' },
  },
});

const runtime = runtimeChoices({ threads: '1' });
for (const seed of values.seeds.split(',').map(Number))
  for (const name of values.settings.split(',')) {
    const make = ECHO_SETTINGS[name];
    if (!make) throw new Error(`unknown setting "${name}"; settings: ${Object.keys(ECHO_SETTINGS).join(', ')}`);
    const config = { ...make(), steps: Number(values.steps), seed };
    const out = join(ECHO_RUNS, name, `seed-${seed}`);
    const metrics = join(out, 'metrics.jsonl');
    if (existsSync(metrics) && readFileSync(metrics, 'utf8').trim().split('\n').length >= config.steps) {
      console.log(`${name} seed ${seed}: done`);
      continue;
    }
    const s = await runTrain({ config, out, backend: 'wasm', runtime, saveEvery: 5, progress: 'none' });
    console.log(
      `seed ${seed}: ${s.metrics.length} steps, eval ${s.evals[0]?.accuracy.toFixed(3)} -> ${s.evals.at(-1)?.accuracy.toFixed(3)}`,
    );
  }
