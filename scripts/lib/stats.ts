// Small statistics and formatting for the report scripts: mean, population standard deviation, "mean ± sd
// (min–max)", and a mean line with a min-max band over runs at the x values every run reached.
import type { BandSeries } from '../../src/rl/band-chart.ts';

export const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
export const sd = (xs: readonly number[]): number => Math.sqrt(mean(xs.map((x) => (x - mean(xs)) ** 2)));

export const fmt = (x: number, d = 3): string => (Number.isFinite(x) ? x.toFixed(d) : '–');

/** "mean ± sd (min–max)", or the one value for a single run, or "–" for none */
export function spreadText(xs: readonly number[], d = 3): string {
  if (xs.length === 0) return '–';
  if (xs.length === 1) return fmt(xs[0], d);
  return `${fmt(mean(xs), d)} ± ${fmt(sd(xs), d)} (${fmt(Math.min(...xs), d)}–${fmt(Math.max(...xs), d)})`;
}

/** Mean and min-max over runs at each x every run reached. */
export function band(name: string, series: readonly { x: number; y: number }[][]): BandSeries {
  const common = series.reduce<number[]>(
    (xs, s) => xs.filter((x) => s.some((p) => p.x === x)),
    series[0]?.map((p) => p.x) ?? [],
  );
  const at = (x: number) => series.map((s) => s.find((p) => p.x === x)!.y);
  return {
    name,
    points: common.map((x) => ({ step: x, mean: mean(at(x)), min: Math.min(...at(x)), max: Math.max(...at(x)) })),
  };
}
