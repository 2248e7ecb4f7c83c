// The followed problem's greedy plan across the run's steps, one line per refresh: the words that changed since the
// refresh before, how many losses it still plans as gains, and whether the episode was solved. Shows RL fixing
// (or not) the embedded model's misreading. A click selects the refresh shown in the aligned view above it.
import { alignPlan, lossAsGainCount } from '../../analysis/plan-alignment.ts';
import type { FollowedRollout } from '../../worker/protocol.ts';
import { DiffText } from './DiffText.tsx';
import { followedText } from './followed-text.ts';

export function PlanTimeline({
  followed,
  selected,
  onSelect,
}: {
  followed: readonly FollowedRollout[];
  selected: number;
  onSelect(i: number): void;
}) {
  if (followed.length === 0)
    return <div className="empty">The followed problem's greedy plan appears here once the model is loaded.</div>;
  return (
    <ol className="plan-timeline" data-testid="plan-timeline">
      {followed.map((f, i) => {
        const { plan, reasoning } = followedText(f);
        const before = i > 0 ? followedText(followed[i - 1]).plan : null;
        const misread = lossAsGainCount(alignPlan(f.question, plan, reasoning));
        return (
          <li
            key={f.step}
            className={i === selected ? 'timeline-entry selected' : 'timeline-entry'}
            data-testid="timeline-entry"
            data-step={f.step}
            data-misread={misread}
          >
            <button type="button" className="timeline-step" onClick={() => onSelect(i)} aria-pressed={i === selected}>
              step {f.step}
            </button>
            <span className={f.correct === null ? 'verdict' : f.correct ? 'verdict ok' : 'verdict bad'}>
              {f.correct === null ? '…' : f.correct ? '✓' : '✗'}
            </span>
            {misread > 0 ? (
              <span className="badge flaw-badge">
                {misread} loss{misread > 1 ? 'es' : ''} as gain
              </span>
            ) : null}
            <DiffText before={before} text={plan} />
          </li>
        );
      })}
    </ol>
  );
}
