// The per-difficulty view of the meta-action JSON mode (paper Fig. 4): for each difficulty level of the problems,
// the fraction of meta-thinking turns that chose DECOMPOSE, REWRITE or EMPTY, over the last steps of the current
// run (metrics action_by_level, weighted by each step's number of turns per level). Shown next to the per-step
// action histogram (chart-specs.ts 'actions') when the run recorded actions.
import { useMemo, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { MetricsRecord } from '../../../rl/metrics.ts';

const ACTIONS = ['DECOMPOSE', 'REWRITE', 'EMPTY'] as const;
const COLORS = ['#16a34a', '#f59e0b', '#dc2626'];
const WINDOWS = [1, 10, 0] as const; // 0: every step

export interface LevelRow {
  level: string;
  /** turns counted */
  n: number;
  DECOMPOSE: number;
  REWRITE: number;
  EMPTY: number;
}

/** Per level, the action fractions over the last `window` steps (0: all), weighted by the turns of each step. */
export function actionsByLevel(metrics: readonly MetricsRecord[], window: number): LevelRow[] {
  const steps = window > 0 ? metrics.slice(-window) : metrics;
  const sums = new Map<string, LevelRow>();
  for (const m of steps) {
    for (const [level, f] of Object.entries(m.action_by_level ?? {})) {
      const row = sums.get(level) ?? { level, n: 0, DECOMPOSE: 0, REWRITE: 0, EMPTY: 0 };
      row.n += f.n;
      for (const a of ACTIONS) row[a] += f[a] * f.n;
      sums.set(level, row);
    }
  }
  return [...sums.values()]
    .toSorted((a, b) => a.level.localeCompare(b.level, 'en', { numeric: true }))
    .map((r) => ({ ...r, ...Object.fromEntries(ACTIONS.map((a) => [a, r.n > 0 ? r[a] / r.n : 0])) }));
}

const fmt = (v: unknown) => (typeof v === 'number' ? v.toFixed(2) : String(v));

export function ActionLevels({ metrics }: { metrics: readonly MetricsRecord[] }) {
  const [window, setWindow] = useState<number>(10);
  const rows = useMemo(() => actionsByLevel(metrics, window), [metrics, window]);
  return (
    <figure className="chart" data-chart="action-levels" data-window={window}>
      <figcaption title="Paper Fig. 4: per difficulty level of the problems (MATH levels, the tiny task's L1-L3 = 2-4 equations), the fraction of meta-thinking turns that chose each action.">
        Meta-actions by difficulty{' '}
        <select
          data-testid="action-levels-window"
          value={window}
          onChange={(e) => setWindow(Number(e.target.value))}
          aria-label="steps counted"
        >
          {WINDOWS.map((w) => (
            <option key={w} value={w}>
              {w === 0 ? 'all steps' : w === 1 ? 'last step' : `last ${w} steps`}
            </option>
          ))}
        </select>
      </figcaption>
      <div className="chart-body">
        <ResponsiveContainer width="100%" height="100%" minWidth={0}>
          <BarChart
            data={rows.map((r) => ({
              level: r.level,
              n: r.n,
              ...Object.fromEntries(ACTIONS.map((a) => [`v_${a}`, r[a]])),
            }))}
            margin={{ top: 4, right: 8, bottom: 0, left: 0 }}
          >
            <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" />
            <XAxis dataKey="level" tick={{ fontSize: 10 }} />
            <YAxis domain={[0, 1]} tick={{ fontSize: 10 }} tickFormatter={fmt} width={44} />
            <Tooltip formatter={fmt} labelFormatter={(l) => `level ${l}`} contentStyle={{ fontSize: 11 }} />
            <Legend wrapperStyle={{ fontSize: 10 }} />
            {ACTIONS.map((a, i) => (
              <Bar key={a} dataKey={`v_${a}`} name={a} stackId="a" fill={COLORS[i]} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
