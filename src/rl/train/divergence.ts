// Words for a diverged run, shared by the trainer's log event, StepResult.stop, the CLI's console line and the
// page's banner, so every place says the same thing: which step, which numbers went NaN / infinite, for how many
// steps in a row, and what to change (the learning rate first).
import type { ExperimentConfig } from '../config.ts';
import type { MetricsRecord } from '../metrics.ts';

/** One line describing a step with non-finite numbers (metrics.nonfinite) and whether the run stops there. */
export function divergenceMessage(
  m: MetricsRecord,
  config: Pick<ExperimentConfig, 'lr' | 'maxNonFiniteSteps'>,
): string {
  const what = (m.nonfinite_quantities ?? []).join(', ') || 'numbers';
  const streak = m.nonfinite_streak ?? 1;
  const skipped = m.updates_skipped
    ? `, ${m.updates_skipped} optimiser update${m.updates_skipped > 1 ? 's' : ''} skipped`
    : '';
  const limit = config.maxNonFiniteSteps;
  const stops = limit > 0 && streak >= limit;
  const tail = stops
    ? `training stopped after ${streak} such step${streak > 1 ? 's' : ''} in a row (maxNonFiniteSteps ${limit})`
    : limit > 0
      ? `${streak} of ${limit} such steps in a row before the run stops (maxNonFiniteSteps)`
      : `${streak} such step${streak > 1 ? 's' : ''} in a row (maxNonFiniteSteps 0: the run goes on)`;
  return (
    `diverged at step ${m.step}: non-finite ${what} (NaN or infinite${skipped}); ${tail}. ` +
    `Lower the learning rate (lr ${config.lr}) or keep gradient clipping on, and start a new run.`
  );
}
