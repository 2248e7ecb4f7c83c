// Runs the paper's Fig. 6 ablations on the embedded model in the regime where the ratio matters: 4 mini-batches
// per step (so from the second mini-batch on, the ratio departs from 1 and clipping acts), 5 seeds each:
//   turn-shared     turn-level (geometric) ratio, trajectory aggregation, one shared adapter (the code's default)
//   token-shared    token-level ratio, per-row token mean (the code's `trajectory` in token mode)
//   turn-separate   turn-level ratio, one adapter per agent, the trained agent switching every 10 steps
//   echo-trap       turn-shared with the Echo Trap setting: short per-turn caps (24 tokens) and more turns (5)
// Each run is a `rema train` run folder under runs/fig6/<variant>/seed-<s> (--out; not committed); an interrupted
// sweep resumes (finished runs are skipped, a killed one resumes from its checkpoint). `report.ts --results
// runs/fig6` summarizes the folders into results/fig6/summary.json and docs/replication.md's figures.
//   node --experimental-wasm-relaxed-simd --import tsx scripts/replication/fig6.ts [--seeds 0,1,2,3,4] [--variants a,b] [--threads 1] [--out runs/fig6]
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runTrain } from '../../src/cli/train.ts';
import { runtimeChoices } from '../../src/cli/runtime-choices.ts';
import { validateConfig } from '../../src/rl/config.ts';
import { FIG6_RUNS, VARIANTS } from './variants.ts';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '0,1,2,3,4' },
    variants: { type: 'string', default: Object.keys(VARIANTS).join(',') },
    threads: { type: 'string', default: '1' },
    out: { type: 'string', default: FIG6_RUNS },
  },
});

{
  const runtime = runtimeChoices({ threads: values.threads });
  const seeds = values.seeds.split(',').map(Number);
  for (const seed of seeds) {
    for (const name of values.variants.split(',')) {
      const make = VARIANTS[name];
      if (!make) throw new Error(`unknown variant "${name}"; variants: ${Object.keys(VARIANTS).join(', ')}`);
      const config = validateConfig({ seed }, `variant ${name}`, make());
      const out = join(values.out, name, `seed-${seed}`);
      const metrics = join(out, 'metrics.jsonl');
      const done = existsSync(metrics) && readFileSync(metrics, 'utf8').trim().split('\n').length >= config.steps;
      if (done) {
        console.log(`${name} seed ${seed}: done`);
        continue;
      }
      const t0 = Date.now();
      const s = await runTrain({ config, out, backend: 'wasm', runtime, saveEvery: 5, progress: 'none' });
      const evals = s.evals;
      console.log(
        `${name} seed ${seed}: ${s.steps} steps in ${((Date.now() - t0) / 60000).toFixed(1)} min, eval ${evals[0]?.accuracy.toFixed(3)} -> ${evals.at(-1)?.accuracy.toFixed(3)}`,
      );
    }
  }
}
