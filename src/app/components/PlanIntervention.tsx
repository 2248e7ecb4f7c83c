// Plan intervention: take a problem from the latest step, edit (or write) the meta-thinking agent's plan, and
// let the reasoning agent with the current weights follow it, side by side with the same agent following the
// unedited plan. The worker runs both greedily, so the only difference is the plan. In meta-action JSON mode the plan
// is edited as its action and output (ActionEditor), so it stays an answer the reasoning agent executes as in training.
import { useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { InterventionTrace } from '../worker/protocol.ts';
import { usePlayground } from '../store/react.ts';
import { groupRollouts } from '../store/selectors.ts';
import {
  META_ACTIONS,
  formatMetaAction,
  parseMetaAction,
  type MetaAction,
} from '../../rl/protocol/json-actions/grammar.ts';
import { MathText } from './MathText.tsx';
import { MetaActionText } from './MetaActionText.tsx';

function Trace({ title, trace, testId }: { title: string; trace: InterventionTrace; testId: string }) {
  return (
    <article className="sample" data-testid={testId}>
      <header className="sample-head">
        <span className={trace.correct ? 'ok' : 'bad'}>{trace.correct ? '✓' : '✗'}</span> {title}
        <span>answer: {trace.extracted ?? '(none)'}</span>
        <span>{trace.tokens} tok</span>
      </header>
      <ol className="turns">
        <li className="turn turn-meta">
          <span className="turn-tag">MTA plan</span>
          {trace.plan ? (
            <MetaActionText text={trace.plan} className="turn-text" />
          ) : (
            <MathText text="(empty plan)" className="turn-text" />
          )}
        </li>
        <li className="turn turn-reasoning" data-role="reasoning">
          <span className="turn-tag">RA</span>
          <MathText text={trace.reasoning || '(empty)'} className="turn-text" />
        </li>
        {trace.later.map((t, i) => (
          <li key={i} className={`turn turn-${t.role}`} data-role={t.role}>
            <span className="turn-tag">{t.role === 'meta' ? 'MTA' : 'RA'}</span>
            {t.role === 'meta' ? (
              <MetaActionText text={t.text} className="turn-text" />
            ) : (
              <MathText text={t.text || '(empty)'} className="turn-text" />
            )}
          </li>
        ))}
      </ol>
    </article>
  );
}

/** The plan editor in meta-action JSON mode: the action and its output, written back as the JSON answer. */
function ActionEditor({ plan, setPlan }: { plan: string; setPlan: (plan: string) => void }) {
  const answer = parseMetaAction(plan) ?? { action: 'DECOMPOSE' as MetaAction, output: plan };
  const write = (change: Partial<typeof answer>) => setPlan(formatMetaAction({ ...answer, ...change }));
  return (
    <div className="action-editor">
      <div className="row">
        <label htmlFor="plan-action">meta-thinking agent's action</label>
        <select
          id="plan-action"
          data-testid="plan-action"
          value={answer.action}
          onChange={(e) => write({ action: e.target.value as MetaAction })}
        >
          {META_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </div>
      <label htmlFor="plan-editor">its output (the reasoning agent's instruction; EMPTY ignores it)</label>
      <textarea
        id="plan-editor"
        data-testid="plan-editor"
        rows={4}
        value={answer.output}
        onChange={(e) => write({ output: e.target.value })}
      />
    </div>
  );
}

export function PlanIntervention() {
  const { rollouts, intervention, intervene, status, metaActions } = usePlayground(
    useShallow((s) => ({
      metaActions: (s.currentRun?.config ?? s.activeConfig).metaActions,
      rollouts: s.currentRun?.rollouts,
      intervention: s.intervention,
      intervene: s.intervene,
      status: s.status,
    })),
  );
  const groups = useMemo(() => groupRollouts(rollouts ?? []), [rollouts]);
  const [groupIndex, setGroupIndex] = useState(0);
  const sample = groups[Math.min(groupIndex, groups.length - 1)]?.[0];
  const originalPlan = sample?.turns.find((t) => t.role === 'meta')?.text ?? '';
  const [plan, setPlan] = useState(originalPlan);
  useEffect(() => setPlan(originalPlan), [originalPlan]);
  // meta-action JSON mode: the plan is edited as an action and its output, so it stays an answer the grammar accepts
  const jsonMode = metaActions === 'json' || parseMetaAction(originalPlan) !== null;

  if (!sample) {
    return (
      <p className="empty" data-testid="intervene-empty">
        Run at least one step: the problems and plans come from the latest rollouts.
      </p>
    );
  }
  const result = intervention.result;
  return (
    <div className="intervene">
      <div className="row">
        <label htmlFor="intervene-problem">problem</label>
        <select
          id="intervene-problem"
          value={groupIndex}
          onChange={(e) => setGroupIndex(Number(e.target.value))}
          data-testid="intervene-problem"
        >
          {groups.map((g, i) => (
            <option key={i} value={i}>
              G{g[0].group}: {g[0].question.slice(0, 70)}
            </option>
          ))}
        </select>
      </div>
      <div className="question">
        <MathText text={sample.question} />{' '}
        <span className="gold">
          gold: <MathText text={sample.gold} />
        </span>
      </div>
      {jsonMode ? (
        <ActionEditor plan={plan} setPlan={setPlan} />
      ) : (
        <>
          <label htmlFor="plan-editor">meta-thinking agent's plan (edit it, or write your own)</label>
          <textarea
            id="plan-editor"
            data-testid="plan-editor"
            rows={4}
            value={plan}
            onChange={(e) => setPlan(e.target.value)}
          />
        </>
      )}
      <div className="row">
        <button
          type="button"
          className="primary"
          data-testid="run-plan"
          disabled={intervention.pending || status === 'loading' || status === 'failed'}
          onClick={() => intervene(sample.question, sample.gold, plan, originalPlan)}
        >
          {intervention.pending ? 'Reasoning…' : 'Run the reasoning agent on this plan'}
        </button>
        <button type="button" onClick={() => setPlan(originalPlan)}>
          Restore original plan
        </button>
      </div>
      {intervention.error && (
        <div className="knob-message" role="alert">
          {intervention.error}
        </div>
      )}
      {result && (
        <div className="samples two" data-testid="intervention-result">
          <Trace title={`your plan (weights of step ${result.step})`} trace={result.edited} testId="trace-edited" />
          <Trace title="unedited plan" trace={result.original} testId="trace-original" />
        </div>
      )}
    </div>
  );
}
