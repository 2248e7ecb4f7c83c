// `rema sweep`: a grid of config overrides x seeds, each run trained with `rema train` semantics into its own
// folder under --out (so a killed sweep resumes run by run), then the summaries: summary.csv holds one row per
// run and, after them, one row per grid point (seed "all": each column's mean over seeds, plus its min, max and
// std in the *_min / *_max / *_std columns); summary_by_config.csv the per-point means and spreads alone; and
// curves.svg the overlaid curves (per grid point the mean over seeds with a min-max band).
// A grid key whose values are objects is a bundle: each object's fields are set together, e.g.
//   {"variant": [{"ratio": "token", "aggregation": "seq-mean-token-mean"}, {"ratio": "turn-geometric", "aggregation": "trajectory"}]}
// (fully on-policy, token and turn ratios differ only through their aggregation, so they are swept as pairs).
// The key "preset" compares protocols: each point runs that preset on the base's model, data, evaluation and steps
// (src/rl/protocol-arms.ts), e.g. {"preset": ["vrp", "vrp-rl", "mrp-rl", "tiny-default"]}.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ablationSvg, spread } from '../rl/ablation-curves.ts';
import {
  gridPoints,
  metricSpread,
  pointLabel,
  pointOverrides,
  summarizeRun,
  summaryCsv,
  toCsv,
  valueLabel,
  type Grid,
  type RunMetric,
  type RunRow,
} from '../rl/ablation.ts';
import type { ExperimentConfig } from '../rl/config.ts';
import { pointConfig } from '../rl/protocol-arms.ts';
import { fnv1aHex } from '../util/fnv1a.ts';
import { writeNamed } from './run-files.ts';
import { runTrain } from './train.ts';
import type { RuntimeChoices } from './runtime-choices.ts';
import type { BackendKind } from '../engine/backend.ts';

export { gridPoints, pointLabel, pointOverrides, summarizeRun, toCsv, type Grid, type RunRow };

export function parseGrid(json: unknown, source: string): Grid {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error(`${source}: the grid must be a JSON object of field -> list of values`);
  const grid: Grid = {};
  for (const [k, v] of Object.entries(json)) {
    if (!Array.isArray(v) || v.length === 0)
      throw new Error(`${source}: grid field "${k}" must be a non-empty list of values`);
    grid[k] = v;
  }
  checkGrid(grid, source);
  return grid;
}

/**
 * A grid whose points are all different runs: no `seed` field (seeds are swept by --seeds, and the run's seed
 * would overwrite it), no value twice in one field (two points would share one folder and one label).
 */
export function checkGrid(grid: Grid, source: string): void {
  for (const [k, values] of Object.entries(grid)) {
    const bundleSeed = values.some((v) => typeof v === 'object' && v !== null && Object.hasOwn(v, 'seed'));
    if (k === 'seed' || bundleSeed)
      throw new Error(
        `${source}: grid field "${k}"${k === 'seed' ? '' : ' sets "seed"'}: seeds are swept with --seeds (every grid point runs once per seed), not in the grid`,
      );
    const seen = new Map<string, number>();
    values.forEach((v, i) => {
      const label = valueLabel(v);
      const before = seen.get(label);
      if (before !== undefined)
        throw new Error(
          `${source}: grid field "${k}" lists ${label} twice (values ${before + 1} and ${i + 1}); each value runs once`,
        );
      seen.set(label, i);
    });
  }
}

/** Longest folder name a run gets from its label (file systems allow 255 bytes; the seed suffix and a hash follow). */
const MAX_FOLDER_LABEL = 80;

/**
 * Each point's folder stem: its label with characters outside [A-Za-z0-9=.,_-] replaced, cut to MAX_FOLDER_LABEL
 * with a hash of the whole label when longer, and a hash appended where two labels would clean to one name.
 */
export function folderStems(labels: readonly string[]): string[] {
  const clean = labels.map((l) => {
    const c = l.replace(/[^A-Za-z0-9=.,_-]+/g, '_');
    return c.length > MAX_FOLDER_LABEL ? `${c.slice(0, MAX_FOLDER_LABEL)}~${fnv1aHex(l)}` : c;
  });
  const count = new Map<string, number>();
  for (const c of clean) count.set(c, (count.get(c) ?? 0) + 1);
  return clean.map((c, i) =>
    count.get(c)! > 1 && !c.endsWith(fnv1aHex(labels[i])) ? `${c}~${fnv1aHex(labels[i])}` : c,
  );
}

function msHeader(k: string): string[] {
  return [`${k}_mean`, `${k}_sd`, `${k}_min`, `${k}_max`];
}

export interface SweepOptions {
  base: ExperimentConfig;
  grid: Grid;
  seeds: number[];
  out: string;
  backend: BackendKind;
  /** --simd, --threads, --weight-dtype, --data-dir (default: runtimeChoices(), every choice 'auto') */
  runtime?: RuntimeChoices;
  progress?: 'bar' | 'lines' | 'none';
}

export async function runSweep(opts: SweepOptions): Promise<RunRow[]> {
  checkGrid(opts.grid, '--grid');
  const repeated = opts.seeds.find((s, i) => opts.seeds.indexOf(s) !== i);
  if (repeated !== undefined)
    throw new Error(`--seeds lists seed ${repeated} twice; each seed runs once per grid point`);
  await mkdir(opts.out, { recursive: true });
  const keys = Object.keys(opts.grid);
  const rows: RunRow[] = [];
  const points = gridPoints(opts.grid);
  const stems = folderStems(points.map(pointLabel));
  // validate every point before spending time on any run
  const configs = points.map((p) => pointConfig(p, pointOverrides(p), opts.base, `sweep grid point ${pointLabel(p)}`));
  for (let i = 0; i < points.length; i++) {
    for (const seed of opts.seeds) {
      const label = pointLabel(points[i]);
      const config = { ...configs[i], seed, name: `${opts.base.name} ${label} seed ${seed}` };
      process.stderr.write(`sweep: ${label} seed ${seed}\n`);
      const summary = await runTrain({
        config,
        out: join(opts.out, `${stems[i]}__seed${seed}`),
        backend: opts.backend,
        runtime: opts.runtime,
        progress: opts.progress ?? 'lines',
      });
      rows.push(summarizeRun(label, points[i], seed, summary));
    }
  }
  const pointRows = points.map((p) => ({ p, label: pointLabel(p), rs: rows.filter((r) => r.label === pointLabel(p)) }));
  await writeNamed(join(opts.out, 'summary.csv'), summaryCsv(keys, points, rows));
  const byPoint = pointRows.map(({ p, label, rs }) => {
    const gain = spread(
      rs.map((r) => (r.eval_last !== null && r.eval_first !== null ? r.eval_last - r.eval_first : Number.NaN)),
    );
    const ms = (k: RunMetric) => {
      const st = metricSpread(rs, k);
      return [st.mean, st.std, st.min, st.max];
    };
    return [
      label,
      ...keys.map((k) => valueLabel(p[k])),
      rs.length,
      ...ms('reward_last'),
      ...ms('reward_auc'),
      ...ms('eval_first'),
      ...ms('eval_last'),
      gain.mean,
      gain.std,
      gain.min,
      gain.max,
    ];
  });
  await writeNamed(
    join(opts.out, 'summary_by_config.csv'),
    toCsv(
      [
        'label',
        ...keys,
        'seeds',
        ...msHeader('reward_last'),
        ...msHeader('reward_auc'),
        ...msHeader('eval_first'),
        ...msHeader('eval_last'),
        ...msHeader('eval_gain'),
      ],
      byPoint,
    ),
  );
  await writeNamed(
    join(opts.out, 'curves.svg'),
    ablationSvg(
      rows.map((r) => r.curves),
      `${opts.base.name}: ${keys.join(' x ') || 'base'}`,
    ),
  );
  return rows;
}
