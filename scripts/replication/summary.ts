// The committed summary of the Fig. 6 runs, results/fig6/summary.json: per variant and seed the run's config, the
// per-step metrics the reports read (reward, its std, entropy, lengths, clipped fractions) as columns rounded to
// 6 decimals, and the held-out evaluations. Written from the run folders (<logs>/<variant>/seed-<s>, fig6.ts), read
// by scripts/replication/report.ts and scripts/clip/report.ts, so a fresh clone regenerates the docs without logs.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ExperimentConfig } from '../../src/rl/config.ts';
import type { MetricsRecord } from '../../src/rl/metrics.ts';
import { readEvals, round, seedRuns } from '../lib/run-folder.ts';

export const FIG6_SUMMARY = resolve(import.meta.dirname, '../../results/fig6/summary.json');

/** The metrics of one step the reports read. */
export type Fig6Step = Pick<
  MetricsRecord,
  | 'step'
  | 'reward_mean'
  | 'reward_std'
  | 'entropy'
  | 'len_meta_mean'
  | 'len_reason_mean'
  | 'clip_frac_low'
  | 'clip_frac_high'
>;
const STEP_KEYS = [
  'step',
  'reward_mean',
  'reward_std',
  'entropy',
  'len_meta_mean',
  'len_reason_mean',
  'clip_frac_low',
  'clip_frac_high',
] as const satisfies readonly (keyof Fig6Step)[];

export interface Fig6Run {
  variant: string;
  seed: number;
  config: ExperimentConfig;
  metrics: Fig6Step[];
  evals: { step: number; accuracy: number }[];
}

/** Every finished step of every run folder under `logs` (<variant>/seed-<s>), runs in variant then seed order. */
export function summarizeFig6(logs: string, variants: readonly string[]): Fig6Run[] {
  return seedRuns(logs, variants)
    .filter((r) => r.metrics.length > 0)
    .toSorted((a, b) => variants.indexOf(a.group) - variants.indexOf(b.group) || a.config.seed - b.config.seed)
    .map(({ group, dir, config, metrics }) => ({
      variant: group,
      seed: config.seed,
      config,
      metrics: metrics.map((m) => Object.fromEntries(STEP_KEYS.map((k) => [k, round(m[k], 6)])) as Fig6Step),
      evals: readEvals(dir).map((e) => ({ step: e.step, accuracy: round(e.accuracy, 6) })),
    }));
}

/** One line per run; each run's steps as one column per metric. */
export function writeFig6Summary(runs: readonly Fig6Run[], file = FIG6_SUMMARY): void {
  const lines = runs.map((r) =>
    JSON.stringify({
      variant: r.variant,
      seed: r.seed,
      config: r.config,
      steps: Object.fromEntries(STEP_KEYS.map((k) => [k, r.metrics.map((m) => m[k])])),
      evals: r.evals,
    }),
  );
  writeFileSync(file, `{"runs": [\n${lines.join(',\n')}\n]}\n`);
}

export function readFig6Summary(file = FIG6_SUMMARY): Fig6Run[] {
  if (!existsSync(file))
    throw new Error(`${file} is missing: run scripts/replication/fig6.ts, then report.ts with --results`);
  const json = JSON.parse(readFileSync(file, 'utf8')) as {
    runs: (Omit<Fig6Run, 'metrics'> & { steps: Record<keyof Fig6Step, number[]> })[];
  };
  return json.runs.map(({ steps, ...r }) => ({
    ...r,
    metrics: steps.step.map((_, i) => Object.fromEntries(STEP_KEYS.map((k) => [k, steps[k][i]])) as Fig6Step),
  }));
}
