// The OpenRLHF REINFORCE++ placement of the KL penalty (the paper's single-turn runs, App. D.1):
// per-token reward -beta * (log pi_old - log pi_ref) with the outcome added at the last token, reverse cumulative
// returns, and advantages whitened over every token of the batch with the biased variance (NaiveReplayBuffer.normalize).
// Hand-computed on a small case, then through the loss and one real trainer step.
import { describe, expect, it } from 'vitest';
import { reinforcePlusPlusKlRewardAdvantages } from '../../../src/rl/losses/advantages.ts';
import { policyLoss, type LossOptions } from '../../../src/rl/losses/policy-loss.ts';
import { makeTrainer, smallConfig } from '../../helpers/rl/trainer-setup.ts';

describe('KL in the reward (OpenRLHF REINFORCE++)', () => {
  it('returns r - beta * (KL from here to the end), whitened over all tokens (hand-computed)', () => {
    // row 0: outcome 1, kl [0.1, 0.2]; row 1: outcome -1, kl [0.3]; beta 0.5
    // returns: row 0 [1 - 0.5 (0.1 + 0.2), 1 - 0.5 (0.2)] = [0.85, 0.9]; row 1 [-1 - 0.15] = [-1.15]
    // mean 0.2; deviations 0.65, 0.7, -1.35; biased variance (0.4225 + 0.49 + 1.8225) / 3 = 2.735 / 3
    const [a, b] = reinforcePlusPlusKlRewardAdvantages([1, -1], [[0.1, 0.2], [0.3]], 0.5);
    const rstd = 1 / Math.sqrt(2.735 / 3);
    expect(Array.from(a)).toEqual([expect.closeTo(0.65 * rstd, 12), expect.closeTo(0.7 * rstd, 12)]);
    expect(Array.from(b)).toEqual([expect.closeTo(-1.35 * rstd, 12)]);
    // beta 0: every token of a row shares its whitened outcome
    const [c, d] = reinforcePlusPlusKlRewardAdvantages([1, -1], [[0.1, 0.2], [0.3]], 0);
    expect(c[0]).toBeCloseTo(c[1], 12);
    expect(c[0]).toBeCloseTo((1 - 1 / 3) / Math.sqrt(((2 / 3) ** 2 * 2 + (4 / 3) ** 2) / 3), 12);
    expect(d[0]).toBeLessThan(0);
    // equal returns: variance clamped at 1e-8, no division by zero
    expect(Array.from(reinforcePlusPlusKlRewardAdvantages([1, 1], [[0], [0]], 0.1)[0])).toEqual([0]);
  });

  it("the loss uses each token's advantage (on-policy: coef_j = -A_j / N)", () => {
    const opts: LossOptions = {
      ratio: 'token',
      logRatioClip: 3,
      clipLow: 0.2,
      clipHigh: 0.2,
      dualClip: null,
      aggregation: 'token-mean',
      lossNormLength: 1,
      klBeta: 0,
      klEstimator: 'k1',
      entropyCoef: 0,
    };
    const r = policyLoss(
      [{ turn: [0, 0, 0], logp: [-1, -1, -1], oldLogp: [-1, -1, -1], advantage: 0, advantages: [0.5, -1, 2] }],
      opts,
    );
    expect(Array.from(r.coef[0])).toEqual([
      expect.closeTo(-0.5 / 3, 6),
      expect.closeTo(1 / 3, 6),
      expect.closeTo(-2 / 3, 6),
    ]);
    expect(r.loss).toBeCloseTo(-(0.5 - 1 + 2) / 3, 12);
  });

  it('a real step: per-token advantages that differ along a row, and no KL term in the loss', async () => {
    const config = smallConfig('rema-singleturn', {
      phaseEpochs: 0,
      planSamples: 0,
      filterGroups: false,
      klBeta: 0.5,
      klPlacement: 'reward',
      stopWhenTruncated: false,
      lr: 1e-2,
    });
    const { trainer, policy } = makeTrainer(config);
    // the random model earns -1 everywhere, so only the KL can tell tokens apart: move the reasoning adapter away
    // from the reference (base weights) with one gradient step on some sequence first
    await policy.accumulateGradients([
      { tokens: [1, 2, 3, 4, 5], positions: [1, 2, 3, 4], adapter: 'reasoning', coef: Float32Array.of(1, -1, 1, -1) },
    ]);
    await policy.optimizerStep('reasoning');
    const r = await trainer.step();
    const advantages = r.rollouts.flatMap((ep) => ep.turns.map((t) => t.advantage ?? []));
    const varying = advantages.filter((a) => a.length > 1 && new Set(a).size > 1);
    expect(varying.length).toBeGreaterThan(0);
    expect(r.metrics.kl).not.toBe(0);
    // on-policy with a token-mean loss: -mean of whitened advantages = 0, and no beta * KL added
    expect(Math.abs(r.metrics.loss ?? Number.NaN)).toBeLessThan(1e-6);
    // the same step with the KL in the loss: every token of a row shares one advantage
    const other = makeTrainer({ ...config, klPlacement: 'loss', advantage: 'reinforce++' });
    await other.policy.accumulateGradients([
      { tokens: [1, 2, 3, 4, 5], positions: [1, 2, 3, 4], adapter: 'reasoning', coef: Float32Array.of(1, -1, 1, -1) },
    ]);
    await other.policy.optimizerStep('reasoning');
    const r2 = await other.trainer.step();
    expect(r2.metrics.kl).not.toBe(0);
    // every reward is -1, so the policy-gradient part is 0 and the loss is beta * mean KL (k1)
    expect(r2.metrics.loss).toBeCloseTo(0.5 * r2.metrics.kl, 6);
    for (const a of r2.rollouts.flatMap((ep) => ep.turns.map((t) => t.advantage ?? [])))
      expect(new Set(a).size).toBeLessThanOrEqual(1);
  });
});
