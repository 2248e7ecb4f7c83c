// The Echo Trap setting at the longest horizon the embedded model's context allows (scripts/echo/horizon.ts): per-turn
// caps of 16 tokens (just above the ~12-15-token messages the model writes, so turns are not cut at the start) and 5
// rounds, on the Fig. 6 base (tiny-default with 4 mini-batches). Run folders go under runs/echo-longest/seed-<s>
// (not committed; finished runs are skipped, a killed one resumes); scripts/echo/summarize.ts writes the summary.
//   node --experimental-wasm-relaxed-simd --import tsx scripts/echo/run.ts [--seeds 0] [--steps 60]
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runTrain } from '../../src/cli/train.ts';
import { useThreads } from '../../src/cli/setup.ts';
import { ECHO_RUNS, echoLongest } from './setting.ts';

const { values } = parseArgs({
  options: { seeds: { type: 'string', default: '0' }, steps: { type: 'string', default: '60' } },
});

useThreads('1');
for (const seed of values.seeds.split(',').map(Number)) {
  const config = { ...echoLongest(), steps: Number(values.steps), seed };
  const out = join(ECHO_RUNS, `seed-${seed}`);
  const metrics = join(out, 'metrics.jsonl');
  if (existsSync(metrics) && readFileSync(metrics, 'utf8').trim().split('\n').length >= config.steps) {
    console.log(`seed ${seed}: done`);
    continue;
  }
  const s = await runTrain({ config, out, backend: 'wasm', saveEvery: 5, progress: 'none' });
  console.log(
    `seed ${seed}: ${s.metrics.length} steps, eval ${s.evals[0]?.accuracy.toFixed(3)} -> ${s.evals.at(-1)?.accuracy.toFixed(3)}`,
  );
}
