// An exactly on-policy step (one epoch, one mini-batch, no KL in the reward) skips the old-log-prob pass: pi_old is
// the current weights, detached, and each row's loss coefficients come from the log-probs of the backward's own
// forward (train/update.ts, losses/policy-loss.ts onPolicyCoefficients). On the real engine (CPU backend, random
// tiny model, LoRA) the gradients, the loss and the KL of such a step equal those of the same step with a separate
// scoring pass, with a KL in the loss and an entropy bonus, token and turn ratios; a step with two mini-batches or
// two epochs, or a KL in the reward, keeps the pass.
import { describe, expect, it } from 'vitest';
import type { EnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import type { TrainablePolicy } from '../../../src/engine/policy/policy.ts';
import type { ExperimentConfig } from '../../../src/rl/config.ts';
import type { TrainRow } from '../../../src/rl/train/rows.ts';
import { logprobTemperature, needsOldLogProbs, scoreRequests, updatePolicy } from '../../../src/rl/train/update.ts';
import { Rng } from '../../../src/util/rng.ts';
import { makePolicy, makeTrainer, smallConfig, tok } from '../../helpers/rl/trainer-setup.ts';

/** updatePolicy's view of `policy`, except that an optimiser step records the gradients instead of applying them. */
function recording(policy: EnginePolicy, record: Map<string, Float32Array>[]): TrainablePolicy {
  return {
    score: (r, o) => policy.score(r, o),
    accumulateGradients: (r, o) => policy.accumulateGradients(r, o),
    zeroGrad: (a) => policy.zeroGrad(a),
    optimizerStep: async (a) => {
      record.push(await policy.gradients(a));
    },
    readOptimizerStats: async () => record.map(() => ({ gradNorm: 0, lr: 0, applied: true })),
  } as Partial<TrainablePolicy> as TrainablePolicy;
}

/** 5 rows of random tokens, the last 3-9 positions trained in two turns, advantages of both signs. */
function randomRows(seed: number): TrainRow[] {
  const rng = new Rng(seed);
  return Array.from({ length: 5 }, (_, r) => {
    const n = 14 + ((r * 5) % 9);
    const tokens = Array.from({ length: n }, () => 1 + Math.floor(rng.next() * (tok.vocabSize - 1)));
    const k = 3 + ((r * 2) % 7);
    const positions = Array.from({ length: k }, (__, j) => n - k + j);
    return {
      episode: r,
      role: 'reasoning',
      adapter: 'shared',
      group: `reasoning:${r % 2}`,
      tokens,
      positions,
      turns: positions.map((__, j) => (j < k / 2 ? 0 : 1)),
      reward: r % 2,
      advantage: r % 2 === 0 ? 1.2 - 0.3 * r : -0.8,
      oldLogp: null,
      refLogp: null,
    };
  });
}

async function step(config: ExperimentConfig, withOldPass: boolean) {
  const policy = makePolicy(config);
  const rows = randomRows(11);
  const temperature = logprobTemperature(config);
  // reference log-probs away from the current ones, so that the KL term has a gradient
  const ref = await policy.score(scoreRequests(rows), { reference: true, temperature });
  const rng = new Rng(3);
  rows.forEach((r, i) => (r.refLogp = ref[i].logprobs.map((x) => x + 0.6 * (rng.next() - 0.5))));
  if (withOldPass) {
    const old = await policy.score(scoreRequests(rows), { temperature });
    rows.forEach((r, i) => (r.oldLogp = old[i].logprobs));
  }
  const grads: Map<string, Float32Array>[] = [];
  const stats = await updatePolicy(recording(policy, grads), config, rows, 7);
  policy.dispose();
  return { stats, grads: grads[0] };
}

const onPolicy = (over: Partial<ExperimentConfig>): ExperimentConfig =>
  smallConfig('vrp-rl', {
    ppoEpochs: 1,
    miniBatches: 1,
    advantage: 'grpo',
    klPlacement: 'loss',
    klBeta: 0.05,
    klEstimator: 'k3',
    oldLogProbs: 'auto',
    ...over,
  });

describe('on-policy step without the old-log-prob pass', () => {
  it('is chosen only for one epoch, one mini-batch and no KL in the reward', () => {
    expect(needsOldLogProbs(onPolicy({}))).toBe(false);
    expect(needsOldLogProbs(onPolicy({ klBeta: 0 }))).toBe(false);
    expect(needsOldLogProbs(onPolicy({ miniBatches: 2 }))).toBe(true);
    expect(needsOldLogProbs(onPolicy({ ppoEpochs: 2 }))).toBe(true);
    expect(needsOldLogProbs(onPolicy({ klPlacement: 'reward', advantage: 'reinforce++' }))).toBe(true);
    expect(needsOldLogProbs(onPolicy({ oldLogProbs: 'score' }))).toBe(true);
  });

  const cases: Array<[string, Partial<ExperimentConfig>]> = [
    ['token ratio, token-mean, k3 KL', { ratio: 'token', aggregation: 'token-mean' }],
    [
      'turn ratio, seq-mean-token-mean, KL and entropy bonus at T 0.8',
      {
        ratio: 'turn-geometric',
        aggregation: 'seq-mean-token-mean',
        entropyCoef: 0.01,
        temperature: 0.8,
        logprobTemperature: 'rollout',
        regularizerMean: 'token',
      },
    ],
  ];
  it.each(cases)('%s: the same gradients, loss and KL as with the pass', async (_, over) => {
    const config = onPolicy(over);
    const withPass = await step(config, true);
    const without = await step(config, false);
    expect(without.grads.size).toBeGreaterThan(0);
    let largest = 0;
    for (const [name, g] of withPass.grads) {
      const h = without.grads.get(name)!;
      expect(h.length, name).toBe(g.length);
      for (let i = 0; i < g.length; i++) largest = Math.max(largest, Math.abs(g[i]));
    }
    expect(largest).toBeGreaterThan(1e-4);
    for (const [name, g] of withPass.grads) {
      const h = without.grads.get(name)!;
      for (let i = 0; i < g.length; i++) expect(Math.abs(h[i] - g[i]), `${name}[${i}]`).toBeLessThan(1e-5 * largest);
    }
    expect(without.stats.loss).toBeCloseTo(withPass.stats.loss, 6);
    expect(without.stats.kl).toBeCloseTo(withPass.stats.kl, 6);
    expect(without.stats.kl).toBeGreaterThan(0);
    expect(without.stats.entropy).toBeCloseTo(withPass.stats.entropy, 6);
  });

  it('two mini-batches need the pass: updatePolicy refuses rows without old log-probs', async () => {
    const config = onPolicy({ miniBatches: 2 });
    await expect(step(config, false)).rejects.toThrow(/needs old log-probs/);
  });

  it('a trainer step scores pi_old only when the step is not exactly on-policy', async () => {
    for (const [miniBatches, oldScores] of [
      [1, 0],
      [2, 1],
    ] as const) {
      const { trainer, policy } = makeTrainer(onPolicy({ miniBatches, groupSize: 4 }));
      const calls: boolean[] = [];
      const score = policy.score.bind(policy);
      policy.score = (r, o) => {
        calls.push(o?.reference === true);
        return score(r, o);
      };
      const r = await trainer.step();
      expect(r.metrics.rows_trained).toBeGreaterThan(0);
      // the reference pass (klBeta > 0) always; the old pass only off-policy
      expect(calls.filter((ref) => ref).length).toBe(1);
      expect(calls.filter((ref) => !ref).length).toBe(oldScores + (miniBatches - 1));
      expect(r.metrics.time_s.old > 0).toBe(oldScores > 0);
      policy.dispose();
    }
  });
});
