// The meta-action views' data: the per-difficulty view weighs each step's per-level fractions by its turns over
// the chosen window, and the histogram spec applies only to runs that recorded actions (JSON mode).
import { describe, expect, it } from 'vitest';
import { actionsByLevel } from '../../../../src/app/components/charts/ActionLevels.tsx';
import { chartSpecs, hasActions } from '../../../../src/app/components/charts/chart-specs.ts';
import type { SavedRun } from '../../../../src/app/persist/run-types.ts';
import type { MetricsRecord } from '../../../../src/rl/metrics.ts';

const step = (n: number, byLevel: MetricsRecord['action_by_level']): MetricsRecord =>
  ({ step: n, action_DECOMPOSE: 0, action_REWRITE: 0, action_EMPTY: 1, action_by_level: byLevel }) as MetricsRecord;

const run = (metrics: MetricsRecord[]) => ({ metrics }) as SavedRun;

describe('meta-action views', () => {
  it('per level: fractions weighted by turns over the window, levels in numeric order', () => {
    const metrics = [
      step(1, {
        'Level 10': { DECOMPOSE: 1, REWRITE: 0, EMPTY: 0, n: 2 },
        'Level 2': { DECOMPOSE: 0.5, REWRITE: 0.5, EMPTY: 0, n: 2 },
      }),
      step(2, { 'Level 2': { DECOMPOSE: 0, REWRITE: 0, EMPTY: 1, n: 6 } }),
    ];
    expect(actionsByLevel(metrics, 0)).toEqual([
      { level: 'Level 2', n: 8, DECOMPOSE: 1 / 8, REWRITE: 1 / 8, EMPTY: 6 / 8 },
      { level: 'Level 10', n: 2, DECOMPOSE: 1, REWRITE: 0, EMPTY: 0 },
    ]);
    expect(actionsByLevel(metrics, 1)).toEqual([{ level: 'Level 2', n: 6, DECOMPOSE: 0, REWRITE: 0, EMPTY: 1 }]);
  });

  it('the histogram is a stacked chart of the three action fractions, shown only for runs with actions', () => {
    const spec = chartSpecs.find((s) => s.id === 'actions')!;
    expect(spec.kind).toBe('stacked');
    const m = { ...step(1, {}), action_DECOMPOSE: 0.25, action_REWRITE: 0.25, action_EMPTY: 0.5 };
    expect(spec.series.map((s) => s.value(m))).toEqual([0.25, 0.25, 0.5]);
    expect(hasActions(run([m]))).toBe(true);
    expect(hasActions(run([{ step: 1 } as MetricsRecord]))).toBe(false);
    expect(spec.when).toBe(hasActions);
  });
});
