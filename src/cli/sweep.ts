// `rema sweep`: a grid of config overrides x seeds, each run trained with `rema train` semantics into its own
// folder under --out (so a killed sweep resumes run by run), then the summaries: summary.csv holds one row per
// run and, after them, one row per grid point (seed "all": each column's mean over seeds, plus its min, max and
// std in the *_min / *_max / *_std columns); summary_by_config.csv the per-point means and spreads alone; and
// curves.svg the overlaid curves (per grid point the mean over seeds with a min-max band).
// A grid key whose values are objects is a bundle: each object's fields are set together, e.g.
//   {"variant": [{"ratio": "token", "aggregation": "seq-mean-token-mean"}, {"ratio": "turn-geometric", "aggregation": "trajectory"}]}
// (fully on-policy, token and turn ratios differ only through their aggregation, so they are swept as pairs).

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ablationSvg, meanArea, spread, type RunCurves } from '../rl/ablation-curves.ts';
import { validateConfig, type ExperimentConfig } from '../rl/config.ts';
import { writeNamed } from './run-files.ts';
import { runTrain, type TrainSummary } from './train.ts';
import type { BackendKind } from './setup.ts';

export type Grid = Record<string, unknown[]>;

export function parseGrid(json: unknown, source: string): Grid {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error(`${source}: the grid must be a JSON object of field -> list of values`);
  const grid: Grid = {};
  for (const [k, v] of Object.entries(json)) {
    if (!Array.isArray(v) || v.length === 0) throw new Error(`${source}: grid field "${k}" must be a non-empty list of values`);
    grid[k] = v;
  }
  return grid;
}

/** Every combination of the grid's values, in a stable order (first key slowest). */
export function gridPoints(grid: Grid): Record<string, unknown>[] {
  let points: Record<string, unknown>[] = [{}];
  for (const [k, values] of Object.entries(grid)) points = points.flatMap((p) => values.map((v) => ({ ...p, [k]: v })));
  return points;
}

const isBundle = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function valueLabel(v: unknown): string {
  if (isBundle(v)) return Object.entries(v).map(([k, x]) => `${k}:${typeof x === 'string' ? x : JSON.stringify(x)}`).join('+');
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function pointLabel(point: Record<string, unknown>): string {
  const parts = Object.entries(point).map(([k, v]) => `${k}=${valueLabel(v)}`);
  return parts.length > 0 ? parts.join(',') : 'base';
}

/** The config overrides of a grid point: plain keys as they are, bundles merged field by field. */
export function pointOverrides(point: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(point)) {
    if (isBundle(v)) Object.assign(out, v);
    else out[k] = v;
  }
  return out;
}

function folderName(label: string, seed: number): string {
  return `${label.replace(/[^A-Za-z0-9=.,_-]+/g, '_')}__seed${seed}`;
}

export interface RunRow {
  label: string;
  point: Record<string, unknown>;
  seed: number;
  steps: number;
  reward_first: number;
  reward_last: number;
  /** mean reward over the run (area under the reward curve per step: the paper's sample-efficiency measure) */
  reward_auc: number;
  eval_first: number | null;
  eval_last: number | null;
  eval_best: number | null;
  train_time_s: number;
  curves: RunCurves;
}

function avg(xs: number[]): number {
  return xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN;
}

/** Reward averaged over the first / last min(5, n) steps, and the first / last / best evaluation. */
export function summarizeRun(label: string, point: Record<string, unknown>, seed: number, s: TrainSummary): RunRow {
  const m = s.metrics;
  const w = Math.min(5, m.length);
  const evals = s.evals.map((e) => e.accuracy);
  return {
    label,
    point,
    seed,
    steps: m.length,
    reward_first: avg(m.slice(0, w).map((x) => x.reward_mean)),
    reward_last: avg(m.slice(m.length - w).map((x) => x.reward_mean)),
    reward_auc: meanArea(m.map((x) => ({ step: x.step, value: x.reward_mean }))),
    eval_first: evals.length > 0 ? evals[0] : null,
    eval_last: evals.length > 0 ? evals[evals.length - 1] : null,
    eval_best: evals.length > 0 ? Math.max(...evals) : null,
    train_time_s: m.reduce((a, x) => a + Object.values(x.time_s).reduce((p, q) => p + q, 0), 0),
    curves: {
      config: label,
      seed,
      reward: m.map((x) => ({ step: x.step, value: x.reward_mean })),
      eval: s.evals.map((e) => ({ step: e.step, value: e.accuracy })),
    },
  };
}

function msHeader(k: string): string[] {
  return [`${k}_mean`, `${k}_sd`, `${k}_min`, `${k}_max`];
}

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : typeof v === 'number' ? (Number.isFinite(v) ? String(Number(v.toFixed(6))) : '') : typeof v === 'string' ? v : JSON.stringify(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(header: string[], rows: unknown[][]): string {
  return [header, ...rows].map((r) => r.map(csvCell).join(',')).join('\n') + '\n';
}

export interface SweepOptions {
  base: ExperimentConfig;
  grid: Grid;
  seeds: number[];
  out: string;
  backend: BackendKind;
  progress?: 'bar' | 'lines' | 'none';
}

export async function runSweep(opts: SweepOptions): Promise<RunRow[]> {
  await mkdir(opts.out, { recursive: true });
  const keys = Object.keys(opts.grid);
  const rows: RunRow[] = [];
  const points = gridPoints(opts.grid);
  // validate every point before spending time on any run
  const configs = points.map((p) => validateConfig(pointOverrides(p), `sweep grid point ${pointLabel(p)}`, opts.base));
  for (let i = 0; i < points.length; i++) {
    for (const seed of opts.seeds) {
      const label = pointLabel(points[i]);
      const config = { ...configs[i], seed, name: `${opts.base.name} ${label} seed ${seed}` };
      process.stderr.write(`sweep: ${label} seed ${seed}\n`);
      const summary = await runTrain({ config, out: join(opts.out, folderName(label, seed)), backend: opts.backend, progress: opts.progress ?? 'lines' });
      rows.push(summarizeRun(label, points[i], seed, summary));
    }
  }
  const metricNames = ['steps', 'reward_first', 'reward_last', 'reward_auc', 'eval_first', 'eval_last', 'eval_best', 'train_time_s'] as const;
  const spreadNames = ['reward_last', 'reward_auc', 'eval_last', 'eval_best'] as const;
  type Metric = (typeof metricNames)[number];
  const value = (r: RunRow, k: Metric): number => r[k] ?? Number.NaN;
  const stats = (rs: RunRow[], k: Metric) => spread(rs.map((r) => value(r, k)));
  const runHeader = ['label', ...keys, 'seed', ...metricNames, 'seeds', ...spreadNames.flatMap((k) => [`${k}_min`, `${k}_max`, `${k}_std`])];
  const blanks = Array.from({ length: 1 + 3 * spreadNames.length }, () => null);
  const runLines = rows.map((r) => [r.label, ...keys.map((k) => valueLabel(r.point[k])), r.seed, ...metricNames.map((k) => r[k]), ...blanks]);
  const pointRows = points.map((p) => ({ p, label: pointLabel(p), rs: rows.filter((r) => r.label === pointLabel(p)) }));
  const configLines = pointRows.map(({ p, label, rs }) => [
    label, ...keys.map((k) => valueLabel(p[k])), 'all', ...metricNames.map((k) => stats(rs, k).mean), rs.length,
    ...spreadNames.flatMap((k) => {
      const st = stats(rs, k);
      return [st.min, st.max, st.std];
    }),
  ]);
  await writeNamed(join(opts.out, 'summary.csv'), toCsv(runHeader, [...runLines, ...configLines]));
  const byPoint = pointRows.map(({ p, label, rs }) => {
    const gain = spread(rs.map((r) => (r.eval_last !== null && r.eval_first !== null ? r.eval_last - r.eval_first : Number.NaN)));
    const ms = (k: Metric) => {
      const st = stats(rs, k);
      return [st.mean, st.std, st.min, st.max];
    };
    return [label, ...keys.map((k) => valueLabel(p[k])), rs.length, ...ms('reward_last'), ...ms('reward_auc'), ...ms('eval_first'), ...ms('eval_last'), gain.mean, gain.std, gain.min, gain.max];
  });
  await writeNamed(
    join(opts.out, 'summary_by_config.csv'),
    toCsv(['label', ...keys, 'seeds', ...msHeader('reward_last'), ...msHeader('reward_auc'), ...msHeader('eval_first'), ...msHeader('eval_last'), ...msHeader('eval_gain')], byPoint),
  );
  await writeNamed(join(opts.out, 'curves.svg'), ablationSvg(rows.map((r) => r.curves), `${opts.base.name}: ${keys.join(' x ') || 'base'}`));
  return rows;
}
