// A meta-thinking turn as the reader should see it: in meta-action JSON mode (config.metaActions "json") the turn is
// a JSON answer, shown as its action (a badge) and its output, the instruction the reasoning agent was given; any
// other text (a plain plan, or an answer the grammar cut short) is shown as written.
import { parseMetaAction } from '../../rl/protocol/json-actions/grammar.ts';
import { MathText } from './MathText.tsx';

export function MetaActionText({ text, className }: { text: string; className?: string }) {
  const answer = text ? parseMetaAction(text) : null;
  if (answer === null) return <MathText text={text || '(empty)'} className={className} />;
  return (
    <span className={className} data-testid="meta-action" data-action={answer.action} title={text}>
      <span className={`action-badge action-${answer.action.toLowerCase()}`}>{answer.action}</span>{' '}
      {answer.action === 'EMPTY' ? (
        <span className="action-empty">(no guidance: the reasoning agent answers the question directly)</span>
      ) : (
        <MathText text={answer.output || '(empty output)'} />
      )}
    </span>
  );
}
