// A turn's text token by token, each token a span tinted by its advantage, importance ratio or clip status (the
// per-token arrays of the RL layer's TurnRecord, metrics.ts), with a tooltip of the token's values. Turns
// without per-token data (evaluation, imported older runs) are not handled here: the inspector shows them as
// plain text with KaTeX.
import type { TurnRecord } from '../../rl/metrics.ts';

import type { TokenMode } from '../store/types.ts';

export type { TokenMode };

export const TOKEN_MODES: readonly { mode: TokenMode; label: string; legend: string }[] = [
  { mode: 'token-advantage', label: 'tokens: advantage', legend: 'green A > 0, red A < 0; full colour at |A| ≥ 1' },
  {
    mode: 'token-ratio',
    label: 'tokens: ratio π_θ/π_old',
    legend: 'orange ratio > 1, blue ratio < 1; full colour at ±0.3 in log-ratio',
  },
  { mode: 'token-clip', label: 'tokens: clip status', legend: 'red clipped low, blue clipped high, none not clipped' },
];

export function isTokenMode(x: string): x is TokenMode {
  return TOKEN_MODES.some((m) => m.mode === x);
}

/** true when the turn carries per-token arrays the inspector can colour */
export function hasTokens(t: TurnRecord): boolean {
  return (t.pieces?.length ?? 0) > 0;
}

/** background for one token's value in a mode: a diverging scale, transparent at the neutral value */
export function tokenColor(mode: TokenMode, value: number): string {
  if (mode === 'token-clip')
    return value < 0 ? 'rgba(220, 38, 38, 0.5)' : value > 0 ? 'rgba(37, 99, 235, 0.5)' : 'transparent';
  if (mode === 'token-advantage') {
    const a = Math.round(Math.min(1, Math.abs(value)) * 55) / 100;
    return a === 0 ? 'transparent' : value > 0 ? `rgba(22, 163, 74, ${a})` : `rgba(220, 38, 38, ${a})`;
  }
  const logRatio = Math.log(Math.max(value, 1e-6));
  const a = Math.round(Math.min(1, Math.abs(logRatio) / 0.3) * 60) / 100;
  return a === 0 ? 'transparent' : logRatio > 0 ? `rgba(234, 88, 12, ${a})` : `rgba(37, 99, 235, ${a})`;
}

/** a special token's text such as <|im_end|> (the trained end-of-turn token), shown smaller */
const SPECIAL = /^<\|[^|]*\|>$/;

const CLIP_WORDS: Record<string, string> = { '-1': 'clipped low', '0': 'not clipped', '1': 'clipped high' };

function valueOf(t: TurnRecord, mode: TokenMode, i: number): number {
  const arr = mode === 'token-advantage' ? t.advantage : mode === 'token-ratio' ? t.ratio : t.clip;
  return arr?.[i] ?? 0;
}

function tooltip(t: TurnRecord, i: number, piece: string): string {
  const parts = [`token ${i + 1}: ${JSON.stringify(piece)}`];
  if (t.advantage) parts.push(`advantage ${t.advantage[i].toFixed(3)}`);
  if (t.ratio) parts.push(`ratio ${t.ratio[i].toFixed(4)}`);
  if (t.clip) parts.push(CLIP_WORDS[String(t.clip[i])] ?? `clip ${t.clip[i]}`);
  if (t.logprobs) parts.push(`log π_old ${t.logprobs[i].toFixed(3)}`);
  return parts.join(' · ');
}

export function TokenText({ turn, mode }: { turn: TurnRecord; mode: TokenMode }) {
  const pieces = turn.pieces ?? [];
  const joined = pieces.join('');
  // per-token arrays are capped per turn: the rest of the text follows untinted
  const rest = turn.text.length > joined.length && turn.text.startsWith(joined) ? turn.text.slice(joined.length) : '';
  return (
    <span className="token-text turn-text" data-testid="token-text">
      {pieces.map((piece, i) => (
        <span
          key={i}
          className={SPECIAL.test(piece) ? 'token token-special' : 'token'}
          data-testid="token"
          style={{ background: tokenColor(mode, valueOf(turn, mode, i)) }}
          title={tooltip(turn, i, piece)}
        >
          {piece}
        </span>
      ))}
      {rest}
    </span>
  );
}
