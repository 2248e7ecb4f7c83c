// The page's first rollout on screen: the followed held-out problem's latest greedy episode in three short lines
// (question, plan, reasoning), shown above the views from the moment the model is loaded, before the start-up
// evaluation, and refreshed every few steps. "Plan → reasoning" opens the aligned view of it.
import { useShallow } from 'zustand/react/shallow';
import './plan-view.css';
import { alignPlan, lossAsGainCount } from '../../analysis/plan-alignment.ts';
import { usePlayground } from '../../store/react.ts';
import { followedText } from './followed-text.ts';

export function FollowedCard() {
  const { latest, setView } = usePlayground(useShallow((st) => ({ latest: st.followed.at(-1), setView: st.setView })));
  if (!latest) return null;
  const { plan, reasoning } = followedText(latest);
  const misread = lossAsGainCount(alignPlan(latest.question, plan, reasoning));
  return (
    <section
      className="followed-card"
      data-testid="followed-card"
      data-step={latest.step}
      aria-label="followed problem"
    >
      <div className="followed-head">
        <strong>Followed problem</strong>
        <span className="small">
          greedy, after {latest.step} update{latest.step === 1 ? '' : 's'}
        </span>
        <span
          className={latest.correct === null ? 'verdict' : latest.correct ? 'verdict ok' : 'verdict bad'}
          data-testid="followed-verdict"
        >
          {latest.correct === null
            ? 'grading…'
            : latest.correct
              ? '✓ correct'
              : `✗ answered ${latest.extracted ?? 'nothing'} (gold ${latest.gold})`}
        </span>
        {misread > 0 && (
          <span className="badge flaw-badge">plans {misread === 1 ? 'a loss' : `${misread} losses`} as a gain</span>
        )}
        <button type="button" className="link-button" onClick={() => setView('plan')} data-testid="followed-open">
          Plan → reasoning
        </button>
      </div>
      <div className="followed-line" title={latest.question}>
        {latest.question}
      </div>
      <div className="followed-line" title={plan}>
        <span className="tag-meta">plan</span> <span data-testid="followed-plan">{plan || '(empty plan)'}</span>
      </div>
      <div className="followed-line" title={reasoning}>
        <span className="tag-reasoning">reasoning</span> {reasoning}
      </div>
    </section>
  );
}
