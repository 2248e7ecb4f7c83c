// Loss-aggregation weights against hand-computed values for two rows: row 0 has turn 0 (3 tokens) and
// turn 1 (1 token), row 1 has turn 0 (2 tokens). So R = 2 rows, N = 6 tokens, P = 3 (row, turn) pairs.
import { describe, expect, it } from 'vitest';
import { aggregationWeights } from '../../../src/rl/losses/aggregate.ts';
import type { Aggregation } from '../../../src/rl/config.ts';

const turns = [
  [0, 0, 0, 1],
  [0, 0],
];

function weights(mode: Aggregation, lc = 1): number[][] {
  return aggregationWeights(turns, mode, lc).map((w) => Array.from(w));
}

describe('aggregationWeights', () => {
  it('token-mean: 1/N', () => {
    expect(weights('token-mean')).toEqual([
      [1 / 6, 1 / 6, 1 / 6, 1 / 6],
      [1 / 6, 1 / 6],
    ]);
  });
  it('seq-mean-token-mean: 1/(R n_r)', () => {
    expect(weights('seq-mean-token-mean')).toEqual([
      [1 / 8, 1 / 8, 1 / 8, 1 / 8],
      [1 / 4, 1 / 4],
    ]);
  });
  it('seq-mean-token-sum: 1/R and seq-mean-token-sum-norm: 1/(R Lc)', () => {
    expect(weights('seq-mean-token-sum')).toEqual([
      [0.5, 0.5, 0.5, 0.5],
      [0.5, 0.5],
    ]);
    expect(weights('seq-mean-token-sum-norm', 10)).toEqual([
      [0.05, 0.05, 0.05, 0.05],
      [0.05, 0.05],
    ]);
  });
  it('turn-mean: 1/(P n_rt)', () => {
    expect(weights('turn-mean')).toEqual([
      [1 / 9, 1 / 9, 1 / 9, 1 / 3],
      [1 / 6, 1 / 6],
    ]);
  });
  it('trajectory: 1/(R T_r n_rt), summing to one', () => {
    const w = weights('trajectory');
    expect(w).toEqual([
      [1 / 12, 1 / 12, 1 / 12, 1 / 4],
      [1 / 4, 1 / 4],
    ]);
    expect(w.flat().reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });
  it('ignores rows without trained tokens', () => {
    const w = aggregationWeights([[0, 0], []], 'seq-mean-token-mean');
    expect(Array.from(w[0])).toEqual([0.5, 0.5]);
    expect(w[1].length).toBe(0);
  });
});
