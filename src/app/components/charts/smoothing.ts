// What the curves can show besides raw per-step values: an exponential moving average (TensorBoard's debiased EMA,
// so the first points are not pulled towards 0) and the x axis in minutes of training (each step's stage times
// summed, as recorded in MetricsRecord.time_s) instead of steps. Pure functions over chart points.
import type { MetricsRecord } from '../../../rl/metrics.ts';

export interface ChartPoint {
  step: number;
  value: number;
}

/** Smoothing weights the page offers (0 = raw values). */
export const SMOOTHING_WEIGHTS = [0, 0.6, 0.9] as const;

/** y_t = (w·m_{t-1} + (1 - w)·x_t) / (1 - w^t) with m_0 = 0: the debiased EMA; w = 0 returns the points unchanged. */
export function emaSmooth(points: readonly ChartPoint[], weight: number): ChartPoint[] {
  if (weight <= 0) return [...points];
  let m = 0;
  let n = 0;
  return points.map((p) => {
    m = weight * m + (1 - weight) * p.value;
    n += 1;
    return { step: p.step, value: m / (1 - weight ** n) };
  });
}

/** Minutes of training when each step ended (cumulative stage times; evaluations included), keyed by step. */
export function minutesAtStep(metrics: readonly Pick<MetricsRecord, 'step' | 'time_s'>[]): Map<number, number> {
  const out = new Map<number, number>([[0, 0]]);
  let seconds = 0;
  for (const m of metrics) {
    seconds += Object.values(m.time_s).reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
    out.set(m.step, seconds / 60);
  }
  return out;
}
