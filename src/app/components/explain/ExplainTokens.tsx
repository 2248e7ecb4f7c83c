// One trained message of the explain view, token by token, in the rollout inspector's colouring (TokenText.tsx):
// the ratio and clip screens use TokenText itself; the coefficient and before/after screens tint each token with
// the same diverging scale (green up, red down), normalised by the largest value in the group.
import type { ExplainMessage, ExplainTokens as Tokens } from '../../../rl/train/explain.ts';
import type { TurnRecord } from '../../../rl/metrics.ts';
import { tokenColor, TokenText } from '../TokenText.tsx';

export type ExplainTokenMode = 'ratio' | 'clip' | 'coef' | 'delta';

/** the explain record's tokens in the inspector's per-turn shape */
function asTurn(m: ExplainMessage, t: Tokens): TurnRecord {
  return {
    role: m.role,
    text: m.text,
    tokens: t.pieces.length,
    truncated: false,
    pieces: t.pieces,
    logprobs: t.before,
    ratio: t.ratio,
    clip: t.clip,
    advantage: t.advantage,
  };
}

/** the value a token is tinted by: its coefficient (negated: pushed up is green) or its log-prob change */
export function tokenValue(t: Tokens, mode: 'coef' | 'delta', i: number): number {
  return mode === 'coef' ? -t.coef[i] : t.after[i] - t.before[i];
}

export function ExplainTokens({
  message,
  mode,
  scale,
}: {
  message: ExplainMessage;
  mode: ExplainTokenMode;
  scale: number;
}) {
  const t = message.tokens;
  if (!t) return <span className="turn-text">{message.text || '(empty)'}</span>;
  if (mode === 'ratio') return <TokenText turn={asTurn(message, t)} mode="token-ratio" />;
  if (mode === 'clip') return <TokenText turn={asTurn(message, t)} mode="token-clip" />;
  return (
    <span className="token-text turn-text" data-testid="token-text">
      {t.pieces.map((piece, i) => {
        const v = tokenValue(t, mode, i);
        const title =
          mode === 'coef'
            ? `token ${i + 1}: ${JSON.stringify(piece)} · coefficient ${t.coef[i].toFixed(5)} · advantage ${t.advantage[i].toFixed(3)} · ratio ${t.ratio[i].toFixed(4)}`
            : `token ${i + 1}: ${JSON.stringify(piece)} · log π before ${t.before[i].toFixed(4)} · after ${t.after[i].toFixed(4)} · Δ ${v.toFixed(4)}`;
        return (
          <span
            key={i}
            className="token"
            data-testid="token"
            style={{ background: tokenColor('token-advantage', scale > 0 ? v / scale : 0) }}
            title={title}
          >
            {piece}
          </span>
        );
      })}
    </span>
  );
}
