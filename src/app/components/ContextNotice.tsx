// The context notice: a banner when the model's context (max_position_embeddings) was too short for some episodes
// of the latest training step or evaluation (metrics / evaluation context_limited): how many, the context length,
// the prompt's token count, and the way out. Same words as the CLI's warning (rl/train/context.ts).
import { contextMessage } from '../../rl/train/context.ts';
import { usePlayground } from '../store/react.ts';

export function ContextNotice() {
  const last = usePlayground((s) => s.currentRun?.metrics.at(-1));
  const lastEval = usePlayground((s) => s.currentRun?.evaluations?.at(-1));
  const runConfig = usePlayground((s) => s.currentRun?.config ?? null);
  const activeConfig = usePlayground((s) => s.activeConfig);
  const config = runConfig ?? activeConfig;
  const lines: string[] = [];
  if (lastEval?.context_limited)
    lines.push(contextMessage(lastEval, lastEval.n, config.maxTokensPerTurn, `Evaluation at step ${lastEval.step}`));
  if (last?.context_limited)
    lines.push(
      contextMessage(last, config.problemsPerStep * config.groupSize, config.maxTokensPerTurn, `Step ${last.step}`),
    );
  if (lines.length === 0) return null;
  return (
    <div className="warning" role="alert" data-testid="context-notice">
      <b>The model's context is too short:</b>
      {lines.map((l) => (
        <div key={l}>{l}</div>
      ))}
    </div>
  );
}
