// Fig. 6 where clipping binds: turn-shared, token-shared and turn-separate (scripts/clip/variants.ts) at the
// pilot's PPO epochs and learning rate, seed by seed (every variant's seed 0 before any seed 1). Run folders go
// under runs/fig6-clip/<variant>/seed-<s> (not committed; finished runs are skipped, a killed one resumes from its
// checkpoint); scripts/clip/summarize.ts writes the committed summary.
//   node --experimental-wasm-relaxed-simd --import tsx scripts/clip/run.ts [--seeds 0,1,2,3,4] [--steps 60] [--variants turn-shared,...]
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runTrain } from '../../src/cli/train.ts';
import { runtimeChoices } from '../../src/cli/runtime-choices.ts';
import { CLIP_VARIANT_NAMES, clipVariant, RUNS_ROOT, type ClipVariantName } from './variants.ts';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '0,1,2,3,4' },
    steps: { type: 'string', default: '60' },
    variants: { type: 'string', default: CLIP_VARIANT_NAMES.join(',') },
  },
});

const runtime = runtimeChoices({ threads: '1' });
for (const seed of values.seeds.split(',').map(Number)) {
  for (const name of values.variants.split(',')) {
    if (!(CLIP_VARIANT_NAMES as readonly string[]).includes(name))
      throw new Error(`unknown variant "${name}"; variants: ${CLIP_VARIANT_NAMES.join(', ')}`);
    const config = { ...clipVariant(name as ClipVariantName), steps: Number(values.steps), seed };
    const out = join(RUNS_ROOT, 'fig6-clip', name, `seed-${seed}`);
    const metrics = join(out, 'metrics.jsonl');
    if (existsSync(metrics) && readFileSync(metrics, 'utf8').trim().split('\n').length >= config.steps) {
      console.log(`${name} seed ${seed}: done`);
      continue;
    }
    const t0 = Date.now();
    const s = await runTrain({ config, out, backend: 'wasm', runtime, saveEvery: 5, progress: 'none' });
    console.log(
      `${name} seed ${seed}: ${s.metrics.length} steps in ${((Date.now() - t0) / 60000).toFixed(1)} min, eval ${s.evals[0]?.accuracy.toFixed(3)} -> ${s.evals.at(-1)?.accuracy.toFixed(3)}`,
    );
  }
}
