// Presenter mode's one big chart: the mean rollout reward of every step and the held-out accuracy of every
// evaluation, on one 0-1 axis, with large type for a projector.
import { memo, useMemo } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, XAxis, YAxis } from 'recharts';
import { thinEvenly } from '../charts/thin.ts';

interface Point {
  step: number;
  reward?: number;
  accuracy?: number;
}

export const PresenterChart = memo(function PresenterChart({
  metrics,
  evaluations,
}: {
  metrics: readonly { step: number; reward_mean: number }[];
  evaluations: readonly { step: number; accuracy: number }[];
}) {
  const data = useMemo(() => {
    const byStep = new Map<number, Point>();
    for (const m of thinEvenly(metrics, 300)) byStep.set(m.step, { step: m.step, reward: m.reward_mean });
    for (const e of evaluations)
      byStep.set(e.step, { ...(byStep.get(e.step) ?? { step: e.step }), accuracy: e.accuracy });
    return [...byStep.values()].toSorted((a, b) => a.step - b.step);
  }, [metrics, evaluations]);
  return (
    <div className="presenter-chart" data-testid="presenter-chart" data-points={metrics.length}>
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={data} margin={{ top: 10, right: 24, bottom: 10, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#334155" />
          <XAxis
            dataKey="step"
            type="number"
            domain={[0, 'dataMax']}
            allowDecimals={false}
            stroke="#cbd5e1"
            tick={{ fontSize: 18 }}
          />
          <YAxis domain={[0, 1]} stroke="#cbd5e1" tick={{ fontSize: 18 }} width={56} />
          <Legend wrapperStyle={{ fontSize: 20 }} />
          <Line
            name="rollout reward"
            dataKey="reward"
            stroke="#60a5fa"
            strokeWidth={3}
            dot={false}
            isAnimationActive={false}
            connectNulls
          />
          <Line
            name="held-out accuracy"
            dataKey="accuracy"
            stroke="#4ade80"
            strokeWidth={3}
            dot={{ r: 6 }}
            isAnimationActive={false}
            connectNulls
          />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
});
