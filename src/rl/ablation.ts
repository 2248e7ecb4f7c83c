// An ablation: one or two config fields x values x seeds on one base config, run one after another. What the
// CLI's `rema sweep` and the page's ablation panel share: the grid's points and labels, each run's summary
// (final / best held-out accuracy, area under the reward curve, steps, time), the per-config spread over seeds
// and the summary CSV. The curves and their chart are ablation-curves.ts.
import { meanArea, spread, type RunCurves } from './ablation-curves.ts';
import { CONFIG_FIELDS, type ConfigGroup, type ExperimentConfig } from './config.ts';
import type { StageTimes } from './metrics.ts';
import { PRESET_AXIS, pointConfig } from './protocol-arms.ts';
import { fnv1aHex } from '../util/fnv1a.ts';

export type Grid = Record<string, unknown[]>;

/** Every combination of the grid's values, in a stable order (first key slowest). */
export function gridPoints(grid: Grid): Record<string, unknown>[] {
  let points: Record<string, unknown>[] = [{}];
  for (const [k, values] of Object.entries(grid)) points = points.flatMap((p) => values.map((v) => ({ ...p, [k]: v })));
  return points;
}

const isBundle = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function valueLabel(v: unknown): string {
  if (isBundle(v))
    return Object.entries(v)
      .map(([k, x]) => `${k}:${typeof x === 'string' ? x : JSON.stringify(x)}`)
      .join('+');
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function pointLabel(point: Record<string, unknown>): string {
  const parts = Object.entries(point).map(([k, v]) => `${k}=${valueLabel(v)}`);
  return parts.length > 0 ? parts.join(',') : 'base';
}

/** The config overrides of a grid point: plain keys as they are, bundles (object values) merged field by field. */
export function pointOverrides(point: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(point)) {
    if (isBundle(v)) Object.assign(out, v);
    else out[k] = v;
  }
  return out;
}

/** What a run's summary needs of its log: the steps' reward and stage times, and the held-out evaluations. */
export interface RunLog {
  metrics: ReadonlyArray<{ step: number; reward_mean: number; time_s: StageTimes; tokens_trained?: number }>;
  evals: ReadonlyArray<{ step: number; accuracy: number; n?: number }>;
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
  /** held-out problems in the last evaluation (null without one, or when the log does not say) */
  eval_n: number | null;
  /** tokens the trained agents generated and were trained on, summed over the steps */
  tokens_trained: number;
  /** seconds of training: the sum of the steps' stage times */
  train_time_s: number;
  curves: RunCurves;
}

function avg(xs: number[]): number {
  return xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN;
}

/** Reward averaged over the first / last min(5, n) steps, and the first / last / best evaluation. */
export function summarizeRun(label: string, point: Record<string, unknown>, seed: number, s: RunLog): RunRow {
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
    eval_n: s.evals.at(-1)?.n ?? null,
    tokens_trained: m.reduce((a, x) => a + (x.tokens_trained ?? 0), 0),
    train_time_s: m.reduce((a, x) => a + Object.values(x.time_s).reduce((p, q) => p + q, 0), 0),
    curves: {
      config: label,
      seed,
      reward: m.map((x) => ({ step: x.step, value: x.reward_mean })),
      eval: s.evals.map((e) => ({ step: e.step, value: e.accuracy })),
    },
  };
}

function csvCell(v: unknown): string {
  const s =
    v === null || v === undefined
      ? ''
      : typeof v === 'number'
        ? Number.isFinite(v)
          ? String(Number(v.toFixed(6)))
          : ''
        : typeof v === 'string'
          ? v
          : JSON.stringify(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(header: string[], rows: unknown[][]): string {
  return [header, ...rows].map((r) => r.map(csvCell).join(',')).join('\n') + '\n';
}

export const RUN_METRICS = [
  'steps',
  'reward_first',
  'reward_last',
  'reward_auc',
  'eval_first',
  'eval_last',
  'eval_best',
  'eval_n',
  'tokens_trained',
  'train_time_s',
] as const;
export const SPREAD_METRICS = ['reward_last', 'reward_auc', 'eval_last', 'eval_best'] as const;
export type RunMetric = (typeof RUN_METRICS)[number];

/** A metric's mean, min, max and std over the runs (seeds) of one config. */
export function metricSpread(rows: readonly RunRow[], k: RunMetric) {
  return spread(rows.map((r) => r[k] ?? Number.NaN));
}

/**
 * summary.csv: one row per run, then one row per grid point (seed "all": each column's mean over its seeds,
 * with the min, max and std of the spread metrics). `keys` are the grid's fields (one column each).
 */
export function summaryCsv(
  keys: readonly string[],
  points: readonly Record<string, unknown>[],
  rows: readonly RunRow[],
): string {
  const header = [
    'label',
    ...keys,
    'seed',
    ...RUN_METRICS,
    'seeds',
    ...SPREAD_METRICS.flatMap((k) => [`${k}_min`, `${k}_max`, `${k}_std`]),
  ];
  const blanks = Array.from({ length: 1 + 3 * SPREAD_METRICS.length }, () => null);
  const runLines = rows.map((r) => [
    r.label,
    ...keys.map((k) => valueLabel(r.point[k])),
    r.seed,
    ...RUN_METRICS.map((k) => r[k]),
    ...blanks,
  ]);
  const configLines = points.map((p) => {
    const rs = rows.filter((r) => r.label === pointLabel(p));
    return [
      pointLabel(p),
      ...keys.map((k) => valueLabel(p[k])),
      'all',
      ...RUN_METRICS.map((k) => metricSpread(rs, k).mean),
      rs.length,
      ...SPREAD_METRICS.flatMap((k) => {
        const st = metricSpread(rs, k);
        return [st.min, st.max, st.std];
      }),
    ];
  });
  return toCsv(header, [...runLines, ...configLines]);
}

// ---- the page's ablation: a spec (fields x values, seeds) on a base config ----

/** Fields with a knob that an ablation still cannot vary: the run's name, the seed (the ablation's seeds are), and
 *  data files (a path from a link or a picked file). */
const NOT_ABLATABLE = new Set(['name', 'seed', 'trainFile', 'evalFile']);

export interface AblationField {
  field: string;
  label: string;
  group: ConfigGroup;
}

/** The config fields an ablation can vary, from the config's field table: every field with a knob (ui) but the
 *  run's name, the seed and data files; with the knob's label and group, in the table's order. */
export function ablationFieldList(): AblationField[] {
  const fields = Object.entries(CONFIG_FIELDS).flatMap(([field, def]) => {
    const ui = 'ui' in def ? def.ui : undefined;
    return ui && !NOT_ABLATABLE.has(field) ? [{ field, label: ui.label, group: ui.group }] : [];
  });
  // a whole preset's protocol as one axis (protocol-arms.ts)
  return [{ field: PRESET_AXIS, label: 'protocol preset', group: 'Protocol' }, ...fields];
}

export function ablationFields(): string[] {
  return ablationFieldList().map((f) => f.field);
}

export interface AblationAxis {
  field: string;
  values: unknown[];
}

export interface AblationSpec {
  /** one or two fields, each with at least one value */
  axes: AblationAxis[];
  /** seeds, each run once per config */
  seeds: number[];
}

/** One run of an ablation: its config (base + the point's values + the seed), in the order they are run. */
export interface AblationRunPlan {
  /** "<label>#<seed>": unique within the ablation */
  key: string;
  label: string;
  point: Record<string, unknown>;
  seed: number;
  config: ExperimentConfig;
}

/** Checks a spec against a base config, naming the field or value at fault; returns its points. */
export function validateAblation(spec: AblationSpec, base: ExperimentConfig): Record<string, unknown>[] {
  if (spec.axes.length < 1 || spec.axes.length > 2)
    throw new Error(`ablation: choose one or two fields (got ${spec.axes.length})`);
  const fields = ablationFields();
  const seen = new Set<string>();
  for (const axis of spec.axes) {
    if (!fields.includes(axis.field))
      throw new Error(`ablation: "${axis.field}" is not a config field an ablation can vary`);
    if (seen.has(axis.field)) throw new Error(`ablation: field "${axis.field}" is chosen twice`);
    seen.add(axis.field);
    if (axis.values.length === 0) throw new Error(`ablation: field "${axis.field}" has no values`);
    const distinct = new Set(axis.values.map((v) => JSON.stringify(v)));
    if (distinct.size !== axis.values.length) throw new Error(`ablation: field "${axis.field}" lists a value twice`);
  }
  if (spec.seeds.length === 0) throw new Error('ablation: seeds: give at least one seed');
  for (const s of spec.seeds)
    if (!Number.isInteger(s) || s < 0 || s > 0xffffffff)
      throw new Error(`ablation: seeds: ${JSON.stringify(s)} is not a whole number from 0 to 4294967295`);
  if (new Set(spec.seeds).size !== spec.seeds.length) throw new Error('ablation: seeds: a seed is listed twice');
  const grid: Grid = Object.fromEntries(spec.axes.map((a) => [a.field, a.values]));
  const points = gridPoints(grid);
  for (const p of points) pointConfig(p, pointOverrides(p), base, `ablation ${pointLabel(p)}`);
  return points;
}

/** The runs of an ablation, seed by seed (every config's first seed before any second seed), so a partial
 *  ablation already compares every config. */
export function ablationRuns(spec: AblationSpec, base: ExperimentConfig): AblationRunPlan[] {
  const points = validateAblation(spec, base);
  return spec.seeds.flatMap((seed) =>
    points.map((point) => {
      const label = pointLabel(point);
      const config = {
        ...pointConfig(point, pointOverrides(point), base, `ablation ${label}`),
        seed,
        name: `${base.name} ${label} seed ${seed}`,
      };
      return { key: `${label}#${seed}`, label, point, seed, config };
    }),
  );
}

/** Splits "a, b, [1,2], \"x,y\"" at the commas outside brackets and quotes. */
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let cur = '';
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '[' || ch === '{')) depth++;
    else if (!quoted && (ch === ']' || ch === '}')) depth--;
    if (ch === ',' && depth === 0 && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

/** A field's values as typed in the page: comma-separated; each is JSON (4, 0.5, true, null, ["q_proj"]) or
 *  else a plain string (token, turn-geometric). */
export function parseValueList(text: string): unknown[] {
  return splitTop(text).map((s) => {
    try {
      return JSON.parse(s) as unknown;
    } catch {
      return s;
    }
  });
}

export function formatValueList(values: readonly unknown[]): string {
  return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
}

/** "0,1,2" or "0-2" -> seeds. */
export function parseSeeds(text: string): number[] {
  const range = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(text);
  if (range) {
    const [a, b] = [Number(range[1]), Number(range[2])];
    if (b < a || b - a > 99) throw new Error(`ablation: seeds: "${text}" is not a range of at most 100 seeds`);
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  }
  return splitTop(text).map((s) => {
    const n = Number(s);
    if (!/^\d+$/.test(s) || !Number.isSafeInteger(n)) throw new Error(`ablation: seeds: "${s}" is not a whole number`);
    return n;
  });
}

/** The spec as link text (JSON): {"axes":{"ratio":["token","turn-geometric"]},"seeds":[0,1]}. */
export function encodeAblation(spec: AblationSpec): string {
  return JSON.stringify({ axes: Object.fromEntries(spec.axes.map((a) => [a.field, a.values])), seeds: spec.seeds });
}

/** Reads link text back into a spec; the shape is checked here, the values by validateAblation. */
export function decodeAblation(text: string): AblationSpec {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('URL: ablation is not JSON of the form {"axes":{"field":[values]},"seeds":[0,1]}');
  }
  const o = json as { axes?: unknown; seeds?: unknown };
  if (
    typeof o !== 'object' ||
    o === null ||
    typeof o.axes !== 'object' ||
    o.axes === null ||
    Array.isArray(o.axes) ||
    !Array.isArray(o.seeds)
  ) {
    throw new Error('URL: ablation must be {"axes":{"field":[values]},"seeds":[0,1]}');
  }
  const axes = Object.entries(o.axes as Record<string, unknown>).map(([field, values]) => {
    if (!Array.isArray(values)) throw new Error(`URL: ablation field "${field}": values must be a list`);
    return { field, values };
  });
  return { axes, seeds: o.seeds as number[] };
}

/** A stable id of an ablation: the spec on its base config (FNV-1a of their JSON), so the page finds the stored
 *  progress of the ablation a link names. The model is left out (a link cannot reopen a local folder, so the
 *  reloaded page's config may name another model): the stored ablation says which model it resumes on. */
export function ablationId(spec: AblationSpec, base: ExperimentConfig): string {
  const text = JSON.stringify({ spec: encodeAblation(spec), base: { ...base, name: '', modelSource: '', model: '' } });
  return `abl-${fnv1aHex(text)}`;
}
