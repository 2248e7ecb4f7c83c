// Curves of an ablation (configs x seeds) reduced over seeds, and drawn as one SVG (band-chart.ts): per config the
// mean curve with a min-max band, overlaid, one panel per quantity (training reward; held-out accuracy when there
// are evaluations). Plain strings and numbers, so the CLI's sweep writes it to a file and the page can offer the
// same chart for download.

import { bandChartSvg, type BandPanel, type BandPoint } from './band-chart.ts';

/** One run: the config it belongs to and its curves (step -> value). */
export interface RunCurves {
  config: string;
  seed: number;
  reward: ReadonlyArray<{ step: number; value: number }>;
  eval: ReadonlyArray<{ step: number; value: number }>;
}

/** A config's curve over seeds at one step: mean, min and max over the n seeds that reached it. */
export interface SeedBandPoint extends BandPoint {
  n: number;
}

/** mean, min, max and sample standard deviation (0 for one value); NaN for none. Non-finite values are skipped. */
export function spread(values: readonly number[]): { mean: number; min: number; max: number; std: number; n: number } {
  const xs = values.filter((x) => Number.isFinite(x));
  if (xs.length === 0) return { mean: Number.NaN, min: Number.NaN, max: Number.NaN, std: Number.NaN, n: 0 };
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const std = xs.length > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1)) : 0;
  return { mean, min: Math.min(...xs), max: Math.max(...xs), std, n: xs.length };
}

/** Per step, the mean / min / max over the runs' values at that step. */
export function band(curves: ReadonlyArray<ReadonlyArray<{ step: number; value: number }>>): SeedBandPoint[] {
  const byStep = new Map<number, number[]>();
  for (const c of curves) for (const p of c) (byStep.get(p.step) ?? byStep.set(p.step, []).get(p.step)!).push(p.value);
  return [...byStep.entries()]
    .toSorted((a, b) => a[0] - b[0])
    .map(([step, vs]) => ({ step, ...spread(vs) }))
    .filter((p) => p.n > 0)
    .map(({ step, mean, min, max, n }) => ({ step, mean, min, max, n }));
}

/** Area under a curve over its steps (trapezoids), divided by the step span: the mean level, the paper's
 *  sample-efficiency measure. One point: its value. */
export function meanArea(curve: ReadonlyArray<{ step: number; value: number }>): number {
  const pts = curve.filter((p) => Number.isFinite(p.value)).toSorted((a, b) => a.step - b.step);
  if (pts.length === 0) return Number.NaN;
  if (pts.length === 1) return pts[0].value;
  let area = 0;
  for (let i = 1; i < pts.length; i++)
    area += ((pts[i].value + pts[i - 1].value) / 2) * (pts[i].step - pts[i - 1].step);
  return area / (pts[pts.length - 1].step - pts[0].step);
}

/** The overlaid curves as a standalone SVG document: one series (mean line + min-max band over seeds) per config
 *  and panel (training reward; held-out accuracy when any run has evaluations). */
export function ablationSvg(runs: readonly RunCurves[], title = 'ablation'): string {
  const configs = [...new Set(runs.map((r) => r.config))];
  const seriesOf = (curve: (r: RunCurves) => RunCurves['reward']) =>
    configs.map((c) => ({ name: c, points: band(runs.filter((r) => r.config === c).map(curve)) }));
  const panels: BandPanel[] = [
    {
      title: "training reward (mean over the step's rollouts)",
      xLabel: 'step',
      yLabel: 'reward',
      series: seriesOf((r) => r.reward),
    },
  ];
  if (runs.some((r) => r.eval.length > 0))
    panels.push({
      title: 'held-out accuracy (greedy)',
      xLabel: 'step',
      yLabel: 'accuracy',
      series: seriesOf((r) => r.eval),
    });
  const seeds = new Set(runs.map((r) => r.seed)).size;
  return bandChartSvg({
    title: `${title}: mean over ${seeds} seed${seeds === 1 ? '' : 's'}, band = min..max`,
    panels,
  });
}
