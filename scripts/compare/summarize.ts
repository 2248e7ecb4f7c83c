// Writes the protocol comparison's committed summary (results/protocol-compare/<tag>.json) from its run folders
// (runs/protocol-compare/<tag>/<preset>/seed-<s>, written by scripts/compare/run.ts): per run its protocol, the
// held-out evaluations, the rollout reward per step, the trained tokens, the wall time and the held-out errors by
// kind at the first and last evaluation. Only finished steps count; unfinished runs are listed as such.
//   npx tsx scripts/compare/summarize.ts [--tag arith]
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { protocolRowName } from '../../src/rl/protocol-arms.ts';
import type { ExperimentConfig } from '../../src/rl/config.ts';
import { readEvalRollouts, readEvals, readMetrics, round } from '../lib/run-folder.ts';
import { errorCounts } from './errors.ts';
import { COMPARE_RESULTS, COMPARE_RUNS } from './paths.ts';

const { values } = parseArgs({ options: { tag: { type: 'string', default: 'arith' } } });
const root = join(COMPARE_RUNS, values.tag);
const runs = [];
for (const preset of existsSync(root) ? readdirSync(root).toSorted() : []) {
  for (const seedDir of readdirSync(join(root, preset)).filter((d) => /^seed-\d+$/.test(d))) {
    const dir = join(root, preset, seedDir);
    if (!existsSync(join(dir, 'config.json'))) continue;
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as ExperimentConfig;
    const metrics = readMetrics(dir);
    const evals = readEvals(dir);
    const rollouts = readEvalRollouts(dir);
    const at = (step: number | undefined) => errorCounts(rollouts.filter((r) => r.step === step));
    runs.push({
      preset,
      protocol: protocolRowName(config),
      seed: config.seed,
      steps: config.steps,
      steps_done: metrics.length,
      finished: config.steps === 0 ? evals.length > 0 : metrics.length >= config.steps,
      eval: evals.map((e) => ({ step: e.step, accuracy: round(e.accuracy), n: e.n })),
      reward: metrics.map((m) => round(m.reward_mean, 3)),
      tokens_trained: metrics.reduce((a, m) => a + (m.tokens_trained ?? 0), 0),
      // the steps' stages (their evaluations included) and the evaluation before the first step
      wall_s: round(
        metrics.reduce((a, m) => a + Object.values(m.time_s).reduce((p, q) => p + q, 0), 0) +
          (evals[0]?.step === 0 ? (evals[0].time_s ?? 0) : 0),
        1,
      ),
      errors_first: at(evals[0]?.step),
      errors_last: at(evals.at(-1)?.step),
    });
  }
}
mkdirSync(COMPARE_RESULTS, { recursive: true });
const out = join(COMPARE_RESULTS, `${values.tag}.json`);
writeFileSync(out, JSON.stringify({ tag: values.tag, runs }, null, 1) + '\n');
console.log(`${out}: ${runs.length} runs`);
