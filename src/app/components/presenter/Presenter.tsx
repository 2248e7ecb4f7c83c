// Presenter mode: the page as a booth screen for a projector. Full screen, large type, one problem followed live
// (its greedy plan and reasoning, refreshed every few steps, with the words that changed since the last refresh
// highlighted), one big reward / accuracy chart and a caption line built from the run's measured changes
// (analysis/presenter-caption.ts). Training starts by itself and a new run starts after `autoReset` steps
// (use-booth.ts); space pauses or resumes, r resets, e explains the latest step, Escape leaves.
import { useMemo } from 'react';
import './presenter.css';
import { useShallow } from 'zustand/react/shallow';
import { alignPlan, lossAsGainCount } from '../../analysis/plan-alignment.ts';
import { presenterCaption } from '../../analysis/presenter-caption.ts';
import { usePlayground, usePlaygroundStore } from '../../store/react.ts';
import { DiffText } from '../plan-view/DiffText.tsx';
import { followedText } from '../plan-view/followed-text.ts';
import { PresenterChart } from './PresenterChart.tsx';
import type { FollowedRollout } from '../../worker/protocol.ts';
import { useBooth } from './use-booth.ts';

const NO_METRICS: never[] = [];

/** The last few refreshes of the plan, newest first: how the plan changed over the run. */
function PlanHistory({ followed }: { followed: readonly FollowedRollout[] }) {
  const recent = followed.slice(-5, -1).toReversed();
  if (recent.length === 0) return null;
  return (
    <ul className="presenter-history" data-testid="presenter-history" aria-label="earlier plans">
      {recent.map((f) => {
        const t = followedText(f);
        const misread = lossAsGainCount(alignPlan(f.question, t.plan, t.reasoning));
        return (
          <li key={f.step} className={misread > 0 ? 'misread' : undefined}>
            step {f.step}: {t.plan || '(empty plan)'} {f.correct === null ? '' : f.correct ? '✓' : '✗'}
          </li>
        );
      })}
    </ul>
  );
}

export function Presenter() {
  const store = usePlaygroundStore();
  useBooth(store);
  const s = usePlayground(
    useShallow((st) => ({
      followed: st.followed,
      metrics: st.currentRun?.metrics ?? NO_METRICS,
      evaluations: st.currentRun?.evaluations ?? NO_METRICS,
      status: st.status,
      wantsTraining: st.wantsTraining,
      autoReset: st.autoReset,
      steps: st.config.steps,
      model: st.model?.name ?? null,
      backend: st.backend?.kind ?? null,
      setPresenting: st.setPresenting,
    })),
  );
  const caption = useMemo(
    () =>
      presenterCaption({
        metrics: s.metrics,
        evaluations: s.evaluations,
        followed: s.followed.map((f) => ({
          step: f.step,
          question: f.question,
          correct: f.correct,
          ...followedText(f),
        })),
      }),
    [s.metrics, s.evaluations, s.followed],
  );
  const latest = s.followed.at(-1);
  const before = s.followed.length > 1 ? followedText(s.followed.at(-2)!) : null;
  const now = latest ? followedText(latest) : null;
  const flaw = latest && now ? alignPlan(latest.question, now.plan, now.reasoning) : null;
  const flawRow = flaw && flaw.firstFlawRow !== null ? flaw.rows[flaw.firstFlawRow] : null;
  const step = s.metrics.at(-1)?.step ?? 0;
  const running = s.wantsTraining;

  return (
    <div
      className="presenter"
      data-testid="presenter"
      data-training={running ? 'true' : 'false'}
      data-step={step}
      role="dialog"
      aria-label="presenter mode"
    >
      <header className="presenter-head">
        <h1>Two agents learn to plan and to reason</h1>
        <span className="presenter-step" data-testid="presenter-step">
          step {step}
          {s.autoReset > 0 ? ` / new run at ${s.autoReset}` : ''}
        </span>
        <span className={`presenter-state ${running ? 'on' : 'off'}`} data-testid="presenter-state">
          {s.status === 'loading' ? 'loading…' : running ? '● training' : '❚❚ paused'}
        </span>
        <button
          type="button"
          onClick={() => s.setPresenting(false)}
          data-testid="presenter-exit"
          title="leave presenter mode (Escape)"
        >
          ✕
        </button>
      </header>
      <p className="presenter-caption" data-testid="presenter-caption" aria-live="polite">
        {caption}
      </p>
      <div className="presenter-body">
        <section className="presenter-problem" data-testid="presenter-problem">
          {latest && now ? (
            <>
              <p className="presenter-question">{latest.question}</p>
              <div className="presenter-turn meta">
                <span className="presenter-who">Meta-thinking agent plans</span>
                <DiffText before={before?.plan ?? null} text={now.plan || '(empty plan)'} testId="presenter-plan" />
              </div>
              <div className="presenter-turn reasoning">
                <span className="presenter-who">Reasoning agent computes</span>
                <DiffText before={before?.reasoning ?? null} text={now.reasoning} testId="presenter-reasoning" />
              </div>
              <p
                className={
                  latest.correct === null
                    ? 'presenter-verdict'
                    : latest.correct
                      ? 'presenter-verdict ok'
                      : 'presenter-verdict bad'
                }
                data-testid="presenter-verdict"
              >
                {latest.correct === null
                  ? 'grading…'
                  : latest.correct
                    ? `✓ ${latest.extracted ?? ''} is right`
                    : `✗ answered ${latest.extracted ?? 'nothing'}, the answer is ${latest.gold}`}
              </p>
              {flawRow && <p className="presenter-flaw">{flawRow.note}</p>}
              <p className="presenter-refresh">
                greedy episode after {latest.step} update{latest.step === 1 ? '' : 's'}; changed words since the last
                refresh are highlighted
              </p>
              <PlanHistory followed={s.followed} />
            </>
          ) : (
            <p className="presenter-question">Loading the model…</p>
          )}
        </section>
        <PresenterChart metrics={s.metrics} evaluations={s.evaluations} />
      </div>
      <footer className="presenter-keys">
        <span>
          <kbd>space</kbd> pause / resume
        </span>
        <span>
          <kbd>r</kbd> new run
        </span>
        <span>
          <kbd>e</kbd> explain this step
        </span>
        <span>
          <kbd>Esc</kbd> leave
        </span>
        <span className="presenter-model">
          {s.model ?? ''} {s.backend ? `· ${s.backend}` : ''} · offline
        </span>
      </footer>
    </div>
  );
}
