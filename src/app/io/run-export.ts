// Turning a run into files people can keep: the run JSON (re-importable) and a flat metrics CSV (one row per
// step, nested fields as dotted columns, e.g. "finish_reasons.finished", "time_s.rollout").
import type { MetricsRecord } from '../../rl/metrics.ts';
import type { RunFile, SavedRun } from '../persist/run-types.ts';

export function runToJson(run: SavedRun): string {
  const file: RunFile = { format: 'rema-playground-run', version: 1, ...run };
  return JSON.stringify(file, null, 2);
}

/** Flattens one level of nesting: { time_s: { rollout: 1 } } -> { "time_s.rollout": 1 }. */
export function flattenMetrics(m: MetricsRecord): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(m)) {
    if (value !== null && typeof value === 'object') {
      for (const [sub, v] of Object.entries(value as Record<string, unknown>)) out[`${key}.${sub}`] = v as number;
    } else if (value !== undefined) {
      out[key] = value as string | number;
    }
  }
  return out;
}

function csvCell(value: string | number | undefined): string {
  if (value === undefined) return '';
  const s = String(value);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** Columns are the union over all steps (eval_accuracy appears only on evaluation steps), `step` first. */
export function metricsToCsv(metrics: readonly MetricsRecord[]): string {
  const rows = metrics.map(flattenMetrics);
  const columns = ['step'];
  for (const row of rows) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  const lines = [columns.join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvCell(row[c])).join(','));
  return lines.join('\n') + '\n';
}

/** A file-safe stem for downloads: "rema-<name>-<id>". */
export function fileStem(run: SavedRun): string {
  return `rema-${run.name.replace(/[^a-zA-Z0-9_-]+/g, '-').replace(/^-|-$/g, '') || 'run'}`;
}
