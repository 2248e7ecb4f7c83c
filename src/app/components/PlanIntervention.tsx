// Plan intervention: take a problem from the latest step, edit (or write) the meta-thinking agent's plan, and
// let the reasoning agent with the current weights follow it, side by side with the same agent following the
// unedited plan. The worker runs both greedily, so the only difference is the plan.
import { useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { InterventionTrace } from '../worker/protocol.ts';
import { usePlayground } from '../store/react.ts';
import { groupRollouts } from '../store/selectors.ts';
import { MathText } from './MathText.tsx';

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
          <MathText text={trace.plan || '(empty plan)'} className="turn-text" />
        </li>
        <li className="turn turn-reasoning" data-role="reasoning">
          <span className="turn-tag">RA</span>
          <MathText text={trace.reasoning || '(empty)'} className="turn-text" />
        </li>
        {trace.later.map((t, i) => (
          <li key={i} className={`turn turn-${t.role}`} data-role={t.role}>
            <span className="turn-tag">{t.role === 'meta' ? 'MTA' : 'RA'}</span>
            <MathText text={t.text || '(empty)'} className="turn-text" />
          </li>
        ))}
      </ol>
    </article>
  );
}

export function PlanIntervention() {
  const { rollouts, intervention, intervene, status } = usePlayground(
    useShallow((s) => ({
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
      <label htmlFor="plan-editor">meta-thinking agent's plan (edit it, or write your own)</label>
      <textarea
        id="plan-editor"
        data-testid="plan-editor"
        rows={4}
        value={plan}
        onChange={(e) => setPlan(e.target.value)}
      />
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
