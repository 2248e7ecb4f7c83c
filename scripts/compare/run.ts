// Table 1's protocols on the embedded model: every arm of src/rl/protocol-arms.ts (VRP evaluated only, VRP_RL,
// MRP_RL, multi-turn ReMA) with the same step budget, training problems and held-out evaluation, seed by seed
// (every arm's seed 0 before any seed 1, so a partial run already compares them). Run folders go under
// runs/protocol-compare/<preset>/seed-<s> (not committed; a finished run is skipped, a killed one resumes from its
// checkpoint); scripts/compare/summarize.ts writes the committed summary.
//   node --experimental-wasm-relaxed-simd --import tsx scripts/compare/run.ts [--seeds 0,1,2,3,4] [--steps 60] [--presets vrp,vrp-rl,mrp-rl,tiny-default] [--base tiny-default]
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runTrain } from '../../src/cli/train.ts';
import { runtimeChoices } from '../../src/cli/runtime-choices.ts';
import { COMPARE_PRESETS, PRESET_AXIS, pointConfig } from '../../src/rl/protocol-arms.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { compareRunDir } from './paths.ts';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '0,1,2,3,4' },
    steps: { type: 'string', default: '60' },
    presets: { type: 'string', default: COMPARE_PRESETS.join(',') },
    base: { type: 'string', default: 'tiny-default' },
    tag: { type: 'string', default: 'arith' },
  },
});

const lines = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8').trim().split('\n').filter(Boolean).length : 0);

const runtime = runtimeChoices({ threads: '1' });
const base = { ...getPreset(values.base), steps: Number(values.steps) };
for (const seed of values.seeds.split(',').map(Number)) {
  for (const preset of values.presets.split(',')) {
    const point = { [PRESET_AXIS]: preset };
    const config = { ...pointConfig(point, point, base, `arm ${preset}`), seed };
    const out = compareRunDir(values.tag, preset, seed);
    const metrics = join(out, 'metrics.jsonl');
    const evals = join(out, 'eval.jsonl');
    if (config.steps > 0 ? lines(metrics) >= config.steps : lines(evals) > 0) {
      console.log(`${preset} seed ${seed}: done`);
      continue;
    }
    const t0 = Date.now();
    const s = await runTrain({ config, out, backend: 'wasm', runtime, saveEvery: 5, progress: 'none' });
    console.log(
      `${preset} seed ${seed}: ${s.metrics.length} steps in ${((Date.now() - t0) / 60000).toFixed(1)} min, eval ${s.evals[0]?.accuracy.toFixed(3)} -> ${s.evals.at(-1)?.accuracy.toFixed(3)}`,
    );
  }
}
