// The plan-to-reasoning view (a tab): the followed held-out problem's greedy episode with the meta-thinking agent's
// plan and the reasoning agent's computations aligned step by step, the plan's timeline across the run (refreshed
// every few steps while training), and "try a plan": the reasoning agent (current weights, greedy) follows a plan
// you write, for the followed problem or one you write (question and answer), aligned the same way.
import { useEffect, useState } from 'react';
import './plan-view.css';
import { useShallow } from 'zustand/react/shallow';
import { usePlayground } from '../../store/react.ts';
import { AlignedTrace } from './AlignedTrace.tsx';
import { followedText } from './followed-text.ts';
import { PlanTimeline } from './PlanTimeline.tsx';

const EVERY_OPTIONS = [1, 2, 5, 10, 20];

export function PlanView() {
  const s = usePlayground(
    useShallow((st) => ({
      followed: st.followed,
      followIndex: st.followIndex,
      followEvery: st.followEvery,
      setFollow: st.setFollow,
      heldOut: st.dataset?.heldOut ?? 0,
      intervention: st.intervention,
      intervene: st.intervene,
      ready: st.status !== 'loading' && st.status !== 'failed',
    })),
  );
  const [selected, setSelected] = useState<number | null>(null);
  const shown = selected !== null && selected < s.followed.length ? selected : s.followed.length - 1;
  const current = s.followed[shown];
  const text = current ? followedText(current) : null;
  const [draft, setDraft] = useState({ question: '', gold: '', plan: '' });
  const [indexDraft, setIndexDraft] = useState(String(Math.max(0, s.followIndex)));
  // the editor starts from the shown problem and plan (until the user types)
  const [edited, setEdited] = useState(false);
  useEffect(() => {
    if (!edited && current && text) setDraft({ question: current.question, gold: current.gold, plan: text.plan });
  }, [edited, current?.question, current?.gold, text?.plan]);
  const edit = (field: keyof typeof draft) => (e: { target: { value: string } }) => {
    setEdited(true);
    setDraft({ ...draft, [field]: e.target.value });
  };
  const result = s.intervention.result;
  const [asked, setAsked] = useState<string | null>(null);
  const resultIsMine = result !== null && result.question === asked;

  return (
    <div className="plan-view" data-testid="plan-view">
      <div className="row plan-view-controls">
        <label>
          Followed held-out problem{' '}
          <input
            type="number"
            min={0}
            max={Math.max(0, s.heldOut - 1)}
            value={indexDraft}
            onChange={(e) => setIndexDraft(e.target.value)}
            style={{ width: 70 }}
            data-testid="follow-index"
          />
        </label>
        <button
          type="button"
          disabled={!s.ready || !/^\d+$/.test(indexDraft) || Number(indexDraft) >= s.heldOut}
          onClick={() => {
            setSelected(null);
            s.setFollow(Number(indexDraft));
          }}
          data-testid="follow-apply"
        >
          Follow
        </button>
        <label>
          refresh every{' '}
          <select
            value={s.followEvery}
            onChange={(e) => s.setFollow(s.followIndex, Number(e.target.value))}
            data-testid="follow-every"
          >
            {EVERY_OPTIONS.map((n) => (
              <option key={n} value={n}>
                {n} step{n > 1 ? 's' : ''}
              </option>
            ))}
          </select>
        </label>
        <span className="hint">greedy decoding with the current weights</span>
      </div>
      {current && text ? (
        <>
          <p className="plan-question" data-testid="plan-question">
            <strong>Step {current.step}.</strong> {current.question}
          </p>
          <AlignedTrace
            question={current.question}
            plan={text.plan}
            reasoning={text.reasoning}
            correct={current.correct}
            extracted={current.extracted}
            gold={current.gold}
          />
          {text.later.length > 0 && (
            <p className="small">
              then:{' '}
              {text.later.map((t, i) => (
                <span key={i} className={t.role === 'meta' ? 'tag-meta' : 'tag-reasoning'}>
                  {t.text}{' '}
                </span>
              ))}
            </p>
          )}
        </>
      ) : (
        <div className="empty">Loading the model: the followed problem's greedy episode comes first.</div>
      )}
      <h3 className="panel-title">The plan across training</h3>
      <PlanTimeline followed={s.followed} selected={shown} onSelect={setSelected} />
      {current && (
        <details className="try-plan" open>
          <summary>Try a plan: the reasoning agent follows your plan, for this problem or one you write</summary>
          <label className="try-field">
            question
            <textarea rows={2} value={draft.question} onChange={edit('question')} data-testid="try-question" />
          </label>
          <label className="try-field">
            answer
            <input type="text" value={draft.gold} onChange={edit('gold')} data-testid="try-gold" />
          </label>
          <label className="try-field">
            plan
            <textarea rows={2} value={draft.plan} onChange={edit('plan')} data-testid="try-plan-text" />
          </label>
          <div className="row">
            <button
              type="button"
              className="primary"
              disabled={!s.ready || s.intervention.pending || draft.plan.trim() === '' || draft.question.trim() === ''}
              onClick={() => {
                setAsked(draft.question);
                s.intervene(
                  draft.question,
                  draft.gold,
                  draft.plan,
                  draft.question === current.question ? (text?.plan ?? '') : draft.plan,
                );
              }}
              data-testid="try-plan-run"
            >
              {s.intervention.pending ? 'Running…' : 'Run the reasoning agent'}
            </button>
            {edited && (
              <button type="button" onClick={() => setEdited(false)}>
                Back to the followed problem
              </button>
            )}
            {s.intervention.error && <span className="error-text">{s.intervention.error}</span>}
          </div>
          {resultIsMine && result && (
            <AlignedTrace
              testId="aligned-tried"
              question={result.question}
              plan={result.edited.plan}
              reasoning={result.edited.reasoning}
              correct={result.edited.correct}
              extracted={result.edited.extracted}
              gold={result.gold}
            />
          )}
        </details>
      )}
    </div>
  );
}
