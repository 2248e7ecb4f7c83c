// The curves' EMA smoothing and minutes axis, as pure functions: the debiased EMA against its definition, and
// cumulative minutes from the steps' recorded stage times.
import { describe, expect, it } from 'vitest';
import { emaSmooth, minutesAtStep } from '../../../../src/app/components/charts/smoothing.ts';

describe('chart smoothing', () => {
  it('is the debiased exponential moving average, and the identity at weight 0', () => {
    const pts = [3, 1, 4, 1, 5].map((value, i) => ({ step: i + 1, value }));
    expect(emaSmooth(pts, 0)).toEqual(pts);
    const w = 0.6;
    const out = emaSmooth(pts, w);
    // y_t = sum_k (1-w) w^(t-k) x_k / (1 - w^t)
    pts.forEach((_, t) => {
      const num = pts.slice(0, t + 1).reduce((s, p, k) => s + (1 - w) * w ** (t - k) * p.value, 0);
      expect(out[t].value).toBeCloseTo(num / (1 - w ** (t + 1)), 12);
      expect(out[t].step).toBe(pts[t].step);
    });
    // the first point is not pulled towards 0, and a constant series stays constant
    expect(out[0].value).toBeCloseTo(3, 12);
    expect(
      emaSmooth(
        pts.map((p) => ({ ...p, value: 2 })),
        0.9,
      ).every((p) => Math.abs(p.value - 2) < 1e-12),
    ).toBe(true);
  });

  it('puts each step at the minutes of training when it ended', () => {
    const stages = { rollout: 0, reward: 0, old: 0, ref: 0, adv: 0, update: 0, eval: 0 };
    const m = minutesAtStep([
      { step: 1, time_s: { ...stages, rollout: 30, update: 30 } },
      { step: 2, time_s: { ...stages, rollout: 45, update: 15, eval: 60 } },
    ]);
    expect(m.get(0)).toBe(0);
    expect(m.get(1)).toBeCloseTo(1, 12);
    expect(m.get(2)).toBeCloseTo(3, 12);
  });
});
