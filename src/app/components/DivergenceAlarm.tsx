// The divergence alarm: a banner while the run's latest step had NaN / infinite numbers (MetricsRecord.nonfinite),
// naming the step where the streak began, the quantities, whether training stopped (config.maxNonFiniteSteps),
// and the way out (a lower learning rate). The words come from the RL core, so the page says what the CLI says.
import { divergenceMessage } from '../../rl/train/divergence.ts';
import { usePlayground } from '../store/react.ts';

export function DivergenceAlarm() {
  const last = usePlayground((s) => s.currentRun?.metrics.at(-1));
  const runConfig = usePlayground((s) => s.currentRun?.config ?? null);
  const activeConfig = usePlayground((s) => s.activeConfig);
  if (!last?.nonfinite) return null;
  const config = runConfig ?? activeConfig;
  const since = last.step - (last.nonfinite_streak ?? 1) + 1;
  return (
    <div className="alarm" role="alert" data-testid="divergence">
      <b>The run diverged{since < last.step ? ` (since step ${since})` : ''}:</b> {divergenceMessage(last, config)}
    </div>
  );
}
