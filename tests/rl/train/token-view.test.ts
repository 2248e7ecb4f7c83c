// The inspector's per-token view of the loss is the loss's own: policyLoss returns, per trained token, the ratio
// its clipped surrogate used and the clip code (losses/policy-loss.ts), and the update stage keeps exactly those
// on each row (row.view). Checked on random inputs in every ratio mode (the ratios rebuild the loss, the clip
// codes its clip fractions), and on a real update (CPU engine, 2 epochs x 2 mini-batches) against the ratio and
// clip definitions evaluated on the log-probs the update scored. Token pieces decode split characters whole.
import { describe, expect, it } from 'vitest';
import type { ExperimentConfig, RatioMode } from '../../../src/rl/config.ts';
import { aggregationWeights } from '../../../src/rl/losses/aggregate.ts';
import {
  CLIP_HIGH,
  CLIP_LOW,
  CLIP_NONE,
  clippedSurrogate,
  policyLoss,
  type LossOptions,
} from '../../../src/rl/losses/policy-loss.ts';
import type { TrainRow } from '../../../src/rl/train/rows.ts';
import { tokenPieces } from '../../../src/rl/train/token-view.ts';
import { logprobTemperature, scoreRequests, updatePolicy } from '../../../src/rl/train/update.ts';
import type { ScoreOptions, ScoreRequest, ScoreResult } from '../../../src/engine/policy/policy.ts';
import { Rng } from '../../../src/util/rng.ts';
import { makePolicy, smallConfig, tok } from '../../helpers/rl/trainer-setup.ts';

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
  ratio,
  logRatioClip: 20,
  clipLow: 0.2,
  clipHigh: 0.28,
  dualClip,
  aggregation: 'token-mean',
  lossNormLength: 100,
  klBeta: 0,
  klEstimator: 'k3',
  entropyCoef: 0,
});

describe('policyLoss per-token ratio and clip code', () => {
  for (const mode of ['token', 'turn-geometric', 'turn-arithmetic'] as const) {
    it(`${mode}: ratios rebuild the loss and clip codes its clip fractions`, () => {
      const rows = randomRows(7);
      const o = opts(mode, mode === 'token' ? 1.3 : null);
      const loss = policyLoss(rows, o);
      const weights = aggregationWeights(
        rows.map((r) => r.turn),
        o.aggregation,
        o.lossNormLength,
      );
      let rebuilt = 0;
      let units = 0;
      let low = 0;
      let high = 0;
      let clipped = 0;
      rows.forEach((row, i) => {
        const ratio = loss.ratio[i];
        const clip = loss.clip[i];
        expect(ratio.length).toBe(row.turn.length);
        expect(clip.length).toBe(row.turn.length);
        row.turn.forEach((t, j) => {
          expect([CLIP_LOW, CLIP_NONE, CLIP_HIGH]).toContain(clip[j]);
          rebuilt += weights[i][j] * clippedSurrogate(ratio[j], row.advantage, o.clipLow, o.clipHigh, o.dualClip).loss;
          // one unit per token, or per turn (its first token) for turn-level ratios
          if (mode !== 'token' && j > 0 && row.turn[j - 1] === t) {
            expect(ratio[j]).toBe(ratio[j - 1]);
            expect(clip[j]).toBe(clip[j - 1]);
            return;
          }
          units += 1;
          if (clip[j] === CLIP_LOW) low += 1;
          if (clip[j] !== CLIP_NONE) clipped += 1;
          if (clip[j] === CLIP_HIGH && row.advantage > 0) high += 1;
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
    const loss = policyLoss(
      [{ turn: [0, 0, 1], logp: [-1, -2, -3], oldLogp: [-1, -2, -3], advantage: 2 }],
      opts('turn-arithmetic'),
    );
    expect(Array.from(loss.ratio[0])).toEqual([1, 1, 1]);
    expect(Array.from(loss.clip[0])).toEqual([0, 0, 0]);
  });
});

/** Training rows over real tokenizer ids: the second half of each text trained, in two turns; advantages +-1. */
function trainRows(): TrainRow[] {
  const texts = [
    'Plan: add 12 and 7, then check.',
    'The answer is 19.',
    'Compute 3 * 4 = 12 carefully.',
    'First subtract, then add.',
  ];
  return texts.map((text, i) => {
    const tokens = tok.encode(text);
    const start = Math.floor(tokens.length / 2);
    const positions = Array.from({ length: tokens.length - start }, (_, k) => start + k);
    const turns = positions.map((_, k) => (k < positions.length / 2 ? 0 : 1));
    return {
      episode: i,
      role: 'reasoning',
      adapter: 'shared',
      group: 'reasoning:0',
      tokens,
      positions,
      turns,
      reward: i % 2,
      advantage: i % 2 === 0 ? -1 : 1,
      oldLogp: null,
      refLogp: null,
    };
  });
}

/** r = exp(min(logp - old, cap)) per token; clip code from the PPO clip conditions (no dual clip). */
function expectedView(cur: ArrayLike<number>, old: ArrayLike<number>, a: number, c: ExperimentConfig) {
  const ratio = Array.from(cur, (lp, j) => Math.exp(Math.min(lp - old[j], c.logRatioClip)));
  const clip = ratio.map((r) => (a > 0 && r > 1 + c.clipHigh ? 1 : a < 0 && r < 1 - c.clipLow ? -1 : 0));
  return { ratio, clip };
}

describe("the update keeps the loss's ratio and clip code on each row", () => {
  it('2 epochs x 2 mini-batches on the real engine: ratios away from 1, some tokens clipped', async () => {
    const config = smallConfig('tiny-default', {
      paramMode: 'shared',
      finetune: 'lora',
      ratio: 'token',
      ppoEpochs: 2,
      miniBatches: 2,
      clipLow: 0.002,
      clipHigh: 0.002,
      dualClip: null,
      klBeta: 0,
      entropyCoef: 0,
      lr: 0.05,
    });
    const policy = makePolicy(config);
    const rows = trainRows();
    const old = await policy.score(scoreRequests(rows), { temperature: logprobTemperature(config) });
    rows.forEach((r, i) => (r.oldLogp = old[i].logprobs));
    // the log-probs each scoring pass of the update returned, by the request's token array (the row's own)
    const scored = new Map<readonly number[], Float32Array>();
    const score = policy.score.bind(policy);
    policy.score = async (requests: ScoreRequest[], o?: ScoreOptions): Promise<ScoreResult[]> => {
      const results = await score(requests, o);
      requests.forEach((q, i) => scored.set(q.tokens, results[i].logprobs));
      return results;
    };
    const stats = await updatePolicy(policy, config, rows, 3);
    let moved = 0;
    let clipped = 0;
    for (const r of rows) {
      // every row's last mini-batch is in the second epoch, after the weights moved: it was scored
      const cur = scored.get(r.tokens)!;
      expect(cur).toBeDefined();
      const want = expectedView(cur, r.oldLogp!, r.advantage, config);
      expect(r.view!.ratio.length).toBe(r.positions.length);
      r.view!.ratio.forEach((x, j) => expect(x).toBeCloseTo(want.ratio[j], 5));
      expect(Array.from(r.view!.clip)).toEqual(want.clip);
      moved += want.ratio.filter((x) => Math.abs(x - 1) > 0.002).length;
      clipped += want.clip.filter((x) => x !== 0).length;
    }
    expect(moved).toBeGreaterThan(0);
    expect(clipped).toBeGreaterThan(0);
    // the step's ratio spread: the ratios left 1 after the first mini-batch
    expect(stats.ratioStd).toBeGreaterThan(0);
    expect(stats.ratioStd).toBeLessThan(1);
  });

  it('fully on-policy (one epoch, one mini-batch) the ratio is exactly 1: no spread', async () => {
    const config = smallConfig('tiny-default', { ppoEpochs: 1, miniBatches: 1, klBeta: 0, lr: 0.05 });
    const stats = await updatePolicy(makePolicy(config), config, trainRows(), 3);
    expect(stats.ratioStd).toBe(0);
  });
});

const utf8 = (ids: readonly number[]) => new TextDecoder().decode(Uint8Array.from(ids));

describe('tokenPieces', () => {
  it('pieces of real tokenizer ids join to the decoded text', () => {
    const ids = tok.encode('Plan: compute 12 + 7, then check it.');
    const pieces = tokenPieces((x) => tok.decode(x), ids);
    expect(pieces.length).toBe(ids.length);
    expect(pieces.join('')).toBe(tok.decode(ids));
  });

  it('a character split over bytes goes whole to its last byte', () => {
    const ids = Array.from(new TextEncoder().encode('aé€b'));
    const pieces = tokenPieces(utf8, ids);
    expect(pieces).toEqual(['a', '', 'é', '', '', '€', 'b']);
  });
});
