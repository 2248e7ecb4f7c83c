// The per-token view of the loss for the rollout inspector: for each trained token of a row, the importance
// ratio pi_theta / pi_old exactly as the loss forms it in the configured ratio mode (losses/ratio.ts, shared with the loss: per
// token, or the turn's geometric / arithmetic mean ratio repeated on every token of the turn) and whether the
// clipped surrogate clipped it (-1 below for A < 0, +1 above for A > 0 or by the dual clip, 0 not clipped).
// Read-only: it evaluates the same functions on the same inputs and changes nothing the loss computes.

import { countPerTurn } from '../losses/aggregate.ts';
import { clippedSurrogate, type LossOptions } from '../losses/policy-loss.ts';
import { tokenRatio, turnRatio } from '../losses/ratio.ts';

export interface TokenView {
  /** pi_theta / pi_old per trained token, as used by the loss (turn modes: the turn's ratio per token) */
  ratio: Float32Array;
  /** -1 clipped low, 0 not clipped, 1 clipped high (dual clip counts as high: it caps a large ratio with A < 0) */
  clip: Int8Array;
}

type RatioOptions = Pick<LossOptions, 'ratio' | 'logRatioClip' | 'clipLow' | 'clipHigh' | 'dualClip'>;

function clipCode(ratio: number, advantage: number, opts: RatioOptions): number {
  const s = clippedSurrogate(ratio, advantage, opts.clipLow, opts.clipHigh, opts.dualClip);
  return s.low ? -1 : s.high || s.dual ? 1 : 0;
}

/** Ratios and clip codes of one row: `turn` per trained token (contiguous per turn), current and old log-probs. */
export function tokenView(
  turn: readonly number[],
  logp: ArrayLike<number>,
  oldLogp: ArrayLike<number>,
  advantage: number | ArrayLike<number>,
  opts: RatioOptions,
): TokenView {
  // per-token advantages (KL in the reward): each token's own; a turn ratio uses the turn's mean, as the loss
  const at = (j: number): number => (typeof advantage === 'number' ? advantage : advantage[j]);
  const n = turn.length;
  const ratio = new Float32Array(n);
  const clip = new Int8Array(n);
  const cap = opts.logRatioClip;
  if (opts.ratio === 'token') {
    for (let j = 0; j < n; j++) {
      ratio[j] = tokenRatio(logp[j] - oldLogp[j], cap).ratio;
      clip[j] = clipCode(ratio[j], at(j), opts);
    }
    return { ratio, clip };
  }
  const sizes = countPerTurn(turn);
  let start = 0;
  while (start < n) {
    const end = start + sizes.get(turn[start])!;
    const r = turnRatio(opts.ratio, logp, oldLogp, start, end, cap).ratio;
    let a = 0;
    for (let j = start; j < end; j++) a += at(j);
    const code = clipCode(r, a / (end - start), opts);
    ratio.fill(r, start, end);
    clip.fill(code, start, end);
    start = end;
  }
  return { ratio, clip };
}

/**
 * Per-token text of `ids` for display: each id decoded alone; ids that split a multi-byte character (decoding
 * alone gives U+FFFD) are decoded together, the text going to the last of them and '' to the others.
 */
export function tokenPieces(decode: (ids: readonly number[]) => string, ids: readonly number[]): string[] {
  const pieces: string[] = [];
  let pending: number[] = [];
  for (const id of ids) {
    pending.push(id);
    const text = decode(pending);
    if (text.includes('\uFFFD') && pending.length < 4) {
      pieces.push('');
      continue;
    }
    pieces.push(text);
    pending = [];
  }
  return pieces;
}
