// One episode's plan and reasoning side by side: each row is a sentence of the question, the plan step that
// carries it out and the reasoning agent's computations for that step (analysis/plan-alignment.ts). A flawed plan
// step (a loss planned as a gain, a wrong number, a skipped event) is marked red, and the computation that
// follows it amber: that is where the reasoning agent went astray.
import { useMemo } from 'react';
import { alignPlan, type AlignedRow, type PlanFlaw } from '../../analysis/plan-alignment.ts';

const FLAW_LABEL: Record<PlanFlaw, string> = {
  'loss-as-gain': 'loss planned as a gain',
  'wrong-operation': 'wrong operation',
  'wrong-number': 'wrong number',
  'missing-step': 'step skipped',
};

export interface AlignedTraceProps {
  question: string;
  plan: string;
  /** the reasoning agent's answer to the plan */
  reasoning: string;
  /** the final answer's verdict, when known (null: being graded) */
  correct?: boolean | null;
  extracted?: string | null;
  gold?: string;
  testId?: string;
}

function Row({ row }: { row: AlignedRow }) {
  return (
    <tr
      className={row.flaw ? 'aligned-row flawed' : 'aligned-row'}
      data-testid="aligned-row"
      data-flaw={row.flaw ?? ''}
    >
      <td className="aligned-event">{row.event?.text ?? <span className="small">(not in the question)</span>}</td>
      <td className="aligned-plan">
        {row.plan ? (
          <span className="plan-step" data-testid="plan-step" data-flaw={row.flaw ?? ''}>
            {row.plan.text}
          </span>
        ) : (
          <span className="small">(no plan step)</span>
        )}
        {row.flaw && (
          <div className="flaw-note" title={row.note ?? ''}>
            {FLAW_LABEL[row.flaw]}
          </div>
        )}
      </td>
      <td className="aligned-reasoning">
        {row.reasoning.map((r) => (
          <span
            key={r.index}
            className={`reasoning-step${r.followsFlaw ? ' astray' : ''}${r.arithmeticOk ? '' : ' arith-error'}`}
            data-testid="reasoning-step"
            data-astray={r.followsFlaw ? 'true' : 'false'}
            title={r.arithmeticOk ? undefined : 'the arithmetic of this equation is wrong'}
          >
            {r.text}
          </span>
        ))}
      </td>
    </tr>
  );
}

export function AlignedTrace({
  question,
  plan,
  reasoning,
  correct,
  extracted,
  gold,
  testId = 'aligned-trace',
}: AlignedTraceProps) {
  const a = useMemo(() => alignPlan(question, plan, reasoning), [question, plan, reasoning]);
  const astrayRow = a.firstFlawRow === null ? null : a.rows[a.firstFlawRow];
  return (
    <div className="aligned" data-testid={testId} data-flawed={a.firstFlawRow !== null ? 'true' : 'false'}>
      <table className="aligned-table">
        <thead>
          <tr>
            <th>The question says</th>
            <th>
              <span className="tag-meta">Meta-thinking agent</span> plans
            </th>
            <th>
              <span className="tag-reasoning">Reasoning agent</span> computes
            </th>
          </tr>
        </thead>
        <tbody>
          {a.rows.map((row, i) => (
            <Row key={i} row={row} />
          ))}
          {a.unmatched.length > 0 && (
            <tr className="aligned-row">
              <td className="small">(no plan step)</td>
              <td />
              <td className="aligned-reasoning">
                {a.unmatched.map((r) => (
                  <span key={r.index} className="reasoning-step" data-testid="reasoning-step" data-astray="false">
                    {r.text}
                  </span>
                ))}
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <p className="aligned-summary" data-testid="aligned-summary">
        {astrayRow
          ? `The plan's flaw leads the reasoning agent astray${a.astray ? ` at ${a.astray.text}` : ''}: ${astrayRow.note}.`
          : a.rows.length > 0
            ? 'Every plan step carries out a sentence of the question.'
            : 'No plan steps to align.'}
        {correct === null && <span className="small"> grading the answer…</span>}
        {correct !== undefined && correct !== null && (
          <>
            {' '}
            <span className={correct ? 'verdict ok' : 'verdict bad'}>
              {correct ? '✓ correct' : '✗ wrong'}
              {extracted !== undefined ? `: answered ${extracted ?? 'nothing'}` : ''}
              {gold !== undefined ? `, gold ${gold}` : ''}
            </span>
          </>
        )}
      </p>
    </div>
  );
}
