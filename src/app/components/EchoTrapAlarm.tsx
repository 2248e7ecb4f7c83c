// The Echo Trap alarm: a banner when reward std, entropy and response length have all collapsed together
// (analysis/echo-trap.ts), with the three ratios so the user sees why, and what usually helps.
import { useMemo } from 'react';
import { detectEchoTrap } from '../analysis/echo-trap.ts';
import { usePlayground } from '../store/react.ts';

const pct = (x: number) => `${Math.round(x * 100)}%`;

export function EchoTrapAlarm() {
  const metrics = usePlayground((s) => s.currentRun?.metrics);
  const report = useMemo(() => detectEchoTrap(metrics ?? []), [metrics]);
  if (!report.alarm) return null;
  return (
    <div className="alarm" role="alert" data-testid="echo-trap">
      <b>Echo Trap since step {report.sinceStep}:</b> reward std is at {pct(report.rewardStd.ratio)}, entropy at{' '}
      {pct(report.entropy.ratio)} and response length at {pct(report.length.ratio)} of their early values. The agents
      are collapsing to short, identical answers and the gradient signal is vanishing (RAGEN; ReMA §4.3). Try a lower
      learning rate, an entropy bonus, a KL penalty, or filtering zero-variance groups.
    </div>
  );
}
