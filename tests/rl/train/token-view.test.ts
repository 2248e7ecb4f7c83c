// The inspector's per-token view of the loss (src/rl/train/token-view.ts) agrees with the loss itself: the
// per-token ratios reproduce the loss's policy-gradient part and the clip codes its clip fractions, in every
// ratio mode; and token pieces decode split multi-byte characters whole.
import { describe, expect, it } from 'vitest';
import type { RatioMode } from '../../../src/rl/config.ts';
import { aggregationWeights } from '../../../src/rl/losses/aggregate.ts';
import { clippedSurrogate, policyLoss, type LossOptions } from '../../../src/rl/losses/policy-loss.ts';
import { tokenPieces, tokenView } from '../../../src/rl/train/token-view.ts';
import { Rng } from '../../../src/util/rng.ts';
import { tok } from '../trainer-setup.ts';

function randomRows(seed: number) {
  const rng = new Rng(seed);
  return Array.from({ length: 4 }, (_, r) => {
    const turn: number[] = [];
    for (let t = 0; t < 3; t++) for (let k = 0; k < 2 + ((r + t) % 3); k++) turn.push(t);
    const oldLogp = turn.map(() => -3 * rng.next());
    // log-ratios in about [-0.6, 0.6]: some beyond the clip range of 0.2 / 0.28
    const logp = oldLogp.map((x) => x + 1.2 * (rng.next() - 0.5));
    return { turn, logp, oldLogp, advantage: r % 2 === 0 ? 1.5 - r : -0.7 * r };
  });
}

const opts = (ratio: RatioMode, dualClip: number | null = null): LossOptions => ({
  ratio, logRatioClip: 20, clipLow: 0.2, clipHigh: 0.28, dualClip, aggregation: 'token-mean',
  lossNormLength: 100, klBeta: 0, klEstimator: 'k3', entropyCoef: 0,
});

describe('tokenView', () => {
  for (const mode of ['token', 'turn-geometric', 'turn-arithmetic'] as const) {
    it(`${mode}: ratios rebuild the loss and clip codes its clip fractions`, () => {
      const rows = randomRows(7);
      const o = opts(mode, mode === 'token' ? 1.3 : null);
      const loss = policyLoss(rows, o);
      const weights = aggregationWeights(rows.map((r) => r.turn), o.aggregation, o.lossNormLength);
      let rebuilt = 0;
      let units = 0;
      let low = 0;
      let high = 0;
      let clipped = 0;
      rows.forEach((row, i) => {
        const v = tokenView(row.turn, row.logp, row.oldLogp, row.advantage, o);
        expect(v.ratio.length).toBe(row.turn.length);
        row.turn.forEach((t, j) => {
          expect([-1, 0, 1]).toContain(v.clip[j]);
          rebuilt += weights[i][j] * clippedSurrogate(v.ratio[j], row.advantage, o.clipLow, o.clipHigh, o.dualClip).loss;
          // one unit per token, or per turn (its first token) for turn-level ratios
          if (mode !== 'token' && j > 0 && row.turn[j - 1] === t) {
            expect(v.ratio[j]).toBe(v.ratio[j - 1]);
            return;
          }
          units += 1;
          if (v.clip[j] === -1) low += 1;
          if (v.clip[j] !== 0) clipped += 1;
          if (v.clip[j] === 1 && row.advantage > 0) high += 1;
        });
      });
      expect(rebuilt).toBeCloseTo(loss.pgLoss, 5);
      expect(low / units).toBeCloseTo(loss.clipFracLow, 12);
      expect(high / units).toBeCloseTo(loss.clipFracHigh, 12);
      expect(clipped / units).toBeCloseTo(loss.clipFracLow + loss.clipFracHigh + loss.clipFracDual, 12);
      expect(clipped).toBeGreaterThan(0); // the inputs do exercise the clip
    });
  }

  it('identical log-probs give ratio 1 and no clip', () => {
    const v = tokenView([0, 0, 1], [-1, -2, -3], [-1, -2, -3], 2, opts('turn-arithmetic'));
    expect(Array.from(v.ratio)).toEqual([1, 1, 1]);
    expect(Array.from(v.clip)).toEqual([0, 0, 0]);
  });
});

describe('tokenPieces', () => {
  it('pieces of real tokenizer ids join to the decoded text', () => {
    const ids = tok.encode('Plan: compute 12 + 7, then check it.');
    const pieces = tokenPieces((x) => tok.decode(x), ids);
    expect(pieces.length).toBe(ids.length);
    expect(pieces.join('')).toBe(tok.decode(ids));
  });

  it('a character split over bytes goes whole to its last byte', () => {
    const utf8 = (ids: readonly number[]) => new TextDecoder().decode(Uint8Array.from(ids));
    const ids = Array.from(new TextEncoder().encode('aé€b'));
    const pieces = tokenPieces(utf8, ids);
    expect(pieces).toEqual(['a', '', 'é', '', '', '€', 'b']);
  });
});
