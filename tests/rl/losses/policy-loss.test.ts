// The clipped policy loss: hand-computed values for each ratio mode, clip side, dual clip and the log-ratio cap,
// KL estimators, and the per-token coefficients checked against a central finite difference of the loss itself.
import { describe, expect, it } from 'vitest';
import {
  clippedSurrogate,
  klTerm,
  policyLoss,
  type LossOptions,
  type LossRow,
} from '../../../src/rl/losses/policy-loss.ts';
import type { Aggregation, RatioMode } from '../../../src/rl/config.ts';
import { Rng } from '../../../src/util/rng.ts';

const base: LossOptions = {
  ratio: 'token',
  logRatioClip: 3,
  clipLow: 0.2,
  clipHigh: 0.2,
  dualClip: 3,
  aggregation: 'token-mean',
  lossNormLength: 1,
  klBeta: 0,
  klEstimator: 'k3',
  entropyCoef: 0,
};

function oneToken(delta: number, advantage: number, opts: Partial<LossOptions> = {}) {
  const row: LossRow = { turn: [0], logp: [delta - 1], oldLogp: [-1], advantage };
  return policyLoss([row], { ...base, ...opts });
}

describe('clippedSurrogate', () => {
  it('clips above for positive advantages and below for negative ones', () => {
    expect(clippedSurrogate(1.5, 1, 0.2, 0.2, null)).toMatchObject({ loss: -1.2, dr: 0, high: true });
    expect(clippedSurrogate(0.5, 1, 0.2, 0.2, null)).toMatchObject({ loss: -0.5, dr: -1, low: false });
    expect(clippedSurrogate(0.5, -1, 0.2, 0.2, null)).toMatchObject({ loss: 0.8, dr: 0, low: true });
    expect(clippedSurrogate(2, -1, 0.2, 0.2, 3)).toMatchObject({ loss: 2, dr: 1, dual: false });
    // dual clip: -A r = 4 > -A c = 3
    expect(clippedSurrogate(4, -1, 0.2, 0.2, 3)).toMatchObject({ loss: 3, dr: 0, dual: true });
    expect(clippedSurrogate(4, -1, 0.2, 0.2, null)).toMatchObject({ loss: 4, dr: 1 });
  });
  it('uses separate low / high clip ranges (clip-higher)', () => {
    expect(clippedSurrogate(1.25, 1, 0.2, 0.28, null)).toMatchObject({ loss: -1.25, dr: -1, high: false });
    expect(clippedSurrogate(0.75, -1, 0.2, 0.28, null)).toMatchObject({ loss: 0.8, dr: 0, low: true });
  });
});

describe('policyLoss, token ratio', () => {
  it('on-policy: L = -A, coef = -A w', () => {
    const rows: LossRow[] = [{ turn: [0, 0, 1], logp: [-1, -2, -3], oldLogp: [-1, -2, -3], advantage: 2 }];
    const out = policyLoss(rows, base);
    expect(out.loss).toBeCloseTo(-2, 12);
    expect(Array.from(out.coef[0])).toEqual([-2 / 3, -2 / 3, -2 / 3].map(Math.fround));
    expect(out.clipFracHigh).toBe(0);
  });
  it('clipped tokens contribute no gradient', () => {
    const out = oneToken(Math.log(1.5), 1);
    expect(out.loss).toBeCloseTo(-1.2, 12);
    expect(out.coef[0][0]).toBe(0);
    expect(out.clipFracHigh).toBe(1);
  });
  it('negative advantage with r = 2: loss 2 and coef = -A r = 2', () => {
    const out = oneToken(Math.log(2), -1);
    expect(out.loss).toBeCloseTo(2, 12);
    expect(out.coef[0][0]).toBeCloseTo(2, 6);
  });
  it('dual clip bounds negative-advantage losses at c |A|', () => {
    const out = oneToken(Math.log(4), -1);
    expect(out.loss).toBeCloseTo(3, 12);
    expect(out.coef[0][0]).toBe(0);
    expect(out.clipFracDual).toBe(1);
  });
  it('caps the log-ratio at 3 before exp (no gradient beyond the cap)', () => {
    const out = oneToken(4, -1, { dualClip: null });
    expect(out.loss).toBeCloseTo(Math.exp(3), 10);
    expect(out.coef[0][0]).toBe(0);
  });
});

describe('policyLoss, turn ratios', () => {
  // one turn of two tokens with log-ratios ln 2 and 0, A = -1, token-mean weights 1/2 each (turn weight 1)
  const row: LossRow = { turn: [0, 0], logp: [Math.log(2) - 1, -1], oldLogp: [-1, -1], advantage: -1 };
  it('geometric (code): r = exp(mean log-ratio) = sqrt 2, dr/dlogp_j = r / 2', () => {
    const out = policyLoss([row], { ...base, ratio: 'turn-geometric' });
    expect(out.loss).toBeCloseTo(Math.SQRT2, 12);
    expect(out.coef[0][0]).toBeCloseTo(Math.SQRT2 / 2, 6);
    expect(out.coef[0][1]).toBeCloseTo(Math.SQRT2 / 2, 6);
  });
  it('arithmetic (paper Eq. 13): r = mean of token ratios = 1.5, dr/dlogp_j = ratio_j / 2', () => {
    const out = policyLoss([row], { ...base, ratio: 'turn-arithmetic' });
    expect(out.loss).toBeCloseTo(1.5, 12);
    expect(out.coef[0][0]).toBeCloseTo(1, 6);
    expect(out.coef[0][1]).toBeCloseTo(0.5, 6);
  });
  it('a clipped turn (A > 0, r = sqrt 2 > 1.2) gives every token of the turn zero gradient', () => {
    const out = policyLoss([{ ...row, advantage: 1 }], { ...base, ratio: 'turn-geometric' });
    expect(out.loss).toBeCloseTo(-1.2, 12);
    expect(Array.from(out.coef[0])).toEqual([0, 0]);
    expect(out.clipFracHigh).toBe(1);
  });
});

describe('KL and entropy', () => {
  it('k1 and k3 estimators and their derivatives', () => {
    expect(klTerm(-1, -2, 'k1')).toEqual({ kl: 1, dlogp: 1 });
    const k3 = klTerm(-1, -2, 'k3');
    expect(k3.kl).toBeCloseTo(Math.exp(-1), 12); // e^-1 - (-1) - 1
    expect(k3.dlogp).toBeCloseTo(1 - Math.exp(-1), 12);
  });
  it('adds beta * KL to the loss and reports the mean KL', () => {
    const rows: LossRow[] = [{ turn: [0, 0], logp: [-1, -1], oldLogp: [-1, -1], refLogp: [-2, -1], advantage: 0 }];
    const out = policyLoss(rows, { ...base, klBeta: 0.1 });
    expect(out.kl).toBeCloseTo(Math.exp(-1) / 2, 12);
    expect(out.loss).toBeCloseTo(0.1 * (Math.exp(-1) / 2), 12);
    expect(out.coef[0][0]).toBeCloseTo(0.1 * 0.5 * (1 - Math.exp(-1)), 7);
    expect(out.coef[0][1]).toBeCloseTo(0, 12);
  });
  it('refuses beta > 0 without reference log-probs', () => {
    expect(() => oneToken(0, 1, { klBeta: 0.1 })).toThrow(/reference log-probs/);
  });
  it('hands the engine -entropyCoef * w per token', () => {
    const rows: LossRow[] = [{ turn: [0, 0, 0, 0], logp: [0, 0, 0, 0], oldLogp: [0, 0, 0, 0], advantage: 1 }];
    const out = policyLoss(rows, { ...base, entropyCoef: 0.01 });
    expect(Array.from(out.entropyCoef![0])).toEqual([-0.0025, -0.0025, -0.0025, -0.0025].map(Math.fround));
  });
});

/** Three rows of 1-3 turns with random log-probs (ratios within about exp(+-0.4)) and advantages. */
function randomRows(rng: Rng): LossRow[] {
  const rows: LossRow[] = [];
  for (let r = 0; r < 3; r++) {
    const turn: number[] = [];
    const turns = rng.int(1, 3);
    for (let t = 0; t < turns; t++) for (let k = rng.int(1, 4); k > 0; k--) turn.push(t);
    const n = turn.length;
    const oldLogp = Array.from({ length: n }, () => -rng.next() * 3);
    const logp = oldLogp.map((o) => o + (rng.next() - 0.5) * 0.8);
    const refLogp = oldLogp.map((o) => o + (rng.next() - 0.5));
    rows.push({ turn, logp, oldLogp, refLogp, advantage: (rng.next() - 0.5) * 4 });
  }
  return rows;
}

describe('coefficients = dL/dlogp (central finite difference of policyLoss itself)', () => {
  const ratios: RatioMode[] = ['token', 'turn-geometric', 'turn-arithmetic'];
  const aggs: Aggregation[] = [
    'token-mean',
    'turn-mean',
    'trajectory',
    'seq-mean-token-mean',
    'seq-mean-token-sum',
    'seq-mean-token-sum-norm',
  ];
  for (const ratio of ratios) {
    for (const aggregation of aggs) {
      it(`${ratio} / ${aggregation} with k3 KL`, () => {
        const rng = new Rng(ratios.indexOf(ratio) * 10 + aggs.indexOf(aggregation) + 1);
        const opts: LossOptions = { ...base, ratio, aggregation, klBeta: 0.05, lossNormLength: 7, dualClip: 1.3 };
        const rows = randomRows(rng);
        const out = policyLoss(rows, opts);
        const h = 1e-6;
        for (let r = 0; r < rows.length; r++) {
          for (let j = 0; j < rows[r].turn.length; j++) {
            const at = (d: number) => {
              const logp = Array.from(rows[r].logp);
              logp[j] += d;
              const moved = rows.map((row, i) => (i === r ? { ...row, logp } : row));
              return policyLoss(moved, opts).loss;
            };
            const fd = (at(h) - at(-h)) / (2 * h);
            expect(out.coef[r][j]).toBeCloseTo(fd, 5);
          }
        }
      });
    }
  }
});
