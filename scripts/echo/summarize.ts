// Writes the committed summary of the longest Echo Trap runs (results/echo-longest/summary.json) from their run
// folders (runs/echo-longest/<setting>/seed-<s>, written by scripts/echo/run.ts): per run and step the reward, its
// spread, the entropy, the messages' lengths, the rounds and how episodes ended, the held-out evaluations, and
// what the page's Echo Trap alarm (src/app/analysis/echo-trap.ts) says on the run's metrics.
//   npx tsx scripts/echo/summarize.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectEchoTrap } from '../../src/app/analysis/echo-trap.ts';
import { readEvals, round, seedRuns } from '../lib/run-folder.ts';
import { ECHO_RESULTS, ECHO_RUNS, ECHO_SETTINGS } from './setting.ts';

const runs = seedRuns(ECHO_RUNS, Object.keys(ECHO_SETTINGS)).map(({ group, dir, config, metrics }) => ({
  setting: group,
  seed: config.seed,
  maxTurns: config.maxTurns,
  maxTokensPerTurn: config.maxTokensPerTurn,
  stopWhenTruncated: config.stopWhenTruncated,
  steps: config.steps,
  steps_done: metrics.length,
  reward: metrics.map((m) => round(m.reward_mean, 3)),
  reward_std: metrics.map((m) => round(m.reward_std, 3)),
  entropy: metrics.map((m) => round(m.entropy, 3)),
  length: metrics.map((m) => round(m.len_meta_mean + m.len_reason_mean, 1)),
  turns: metrics.map((m) => round(m.turns_mean, 2)),
  finish: metrics.map((m) => m.finish_reasons),
  context_limited: metrics.map((m) => m.context_limited ?? 0),
  eval: readEvals(dir).map((e) => ({ step: e.step, accuracy: round(e.accuracy), n: e.n })),
  // the alarm as the page raises it while the run goes on: the steps at which it was on, and the end's ratios
  alarm_steps: metrics.filter((_, i) => detectEchoTrap(metrics.slice(0, i + 1)).alarm).map((m) => m.step),
  alarm_ratios: ((r) => ({
    reward_std: round(r.rewardStd.ratio, 3),
    entropy: round(r.entropy.ratio, 3),
    length: round(r.length.ratio, 3),
  }))(detectEchoTrap(metrics)),
}));
mkdirSync(ECHO_RESULTS, { recursive: true });
const out = join(ECHO_RESULTS, 'summary.json');
writeFileSync(out, JSON.stringify({ runs }, null, 1) + '\n');
console.log(`${out}: ${runs.length} runs`);
