// Loss aggregation as per-token weights: every mode below is  L = sum_rows sum_j w_j * l_j  for per-token
// losses l_j, so the weights also give each token's share of the gradient. A row is one agent's conversation
// in one episode; turn[j] is the turn index of its trained token j (tokens of a turn are contiguous).
// Rows without trained tokens do not count. R = rows, N = tokens, n_r = tokens of row r, n_rt = tokens of
// turn t of row r, T_r = turns of row r, P = (row, turn) pairs, Lc = a constant length.
//   token-mean               w = 1 / N                      (verl token-mean, TRL dapo/bnpo)
//   seq-mean-token-mean      w = 1 / (R n_r)                (original GRPO, TRL grpo; ReMA `trajectory` in token mode)
//   seq-mean-token-sum       w = 1 / R                      (verl seq-mean-token-sum)
//   seq-mean-token-sum-norm  w = 1 / (R Lc)                 (Dr. GRPO, TRL dr_grpo)
//   turn-mean                w = 1 / (P n_rt)               (ReMA agg_mode=turn: mean over (row, turn) of turn means)
//   trajectory               w = 1 / (R T_r n_rt)           (ReMA agg_mode=trajectory: turn means, mean over turns, mean over rows)

import type { Aggregation } from '../config.ts';

/** Per-row arrays of weights w_j (see the header for each mode's formula). */
export function aggregationWeights(
  turns: readonly (readonly number[])[],
  mode: Aggregation,
  constantLength = 1,
): Float64Array[] {
  const live = turns.filter((t) => t.length > 0);
  const rows = live.length;
  const totalTokens = live.reduce((s, t) => s + t.length, 0);
  const turnSizes = turns.map(countPerTurn);
  const pairs = turnSizes.reduce((s, m) => s + m.size, 0);
  return turns.map((turn, r) => {
    const w = new Float64Array(turn.length);
    if (turn.length === 0) return w;
    const sizes = turnSizes[r];
    for (let j = 0; j < turn.length; j++) {
      const nrt = sizes.get(turn[j])!;
      switch (mode) {
        case 'token-mean':
          w[j] = 1 / totalTokens;
          break;
        case 'seq-mean-token-mean':
          w[j] = 1 / (rows * turn.length);
          break;
        case 'seq-mean-token-sum':
          w[j] = 1 / rows;
          break;
        case 'seq-mean-token-sum-norm':
          w[j] = 1 / (rows * constantLength);
          break;
        case 'turn-mean':
          w[j] = 1 / (pairs * nrt);
          break;
        case 'trajectory':
          w[j] = 1 / (rows * sizes.size * nrt);
          break;
      }
    }
    return w;
  });
}

/** turn index -> number of trained tokens in that turn */
export function countPerTurn(turn: readonly number[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const t of turn) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}
