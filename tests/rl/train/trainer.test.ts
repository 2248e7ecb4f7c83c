// The trainer on the real engine (CPU backend, tiny random-weight model, real tokenizer): every mode runs and
// fills its records, runs are reproducible from the seed, and a restored state continues identically.
import { describe, expect, it } from 'vitest';
import type { MetricsRecord } from '../../../src/rl/metrics.ts';
import type { TrainerEvent } from '../../../src/rl/trainer.ts';
import { makeTrainer, smallConfig } from '../../helpers/rl/trainer-setup.ts';

const FIELDS: (keyof MetricsRecord)[] = [
  'step',
  'reward_mean',
  'reward_std',
  'accuracy',
  'kl',
  'entropy',
  'clip_frac_low',
  'clip_frac_high',
  'grad_norm',
  'frac_zero_std_groups',
  'len_meta_mean',
  'len_reason_mean',
  'turns_mean',
  'finish_reasons',
  'time_s',
  'lr',
];

function withoutTimes(m: MetricsRecord): Omit<MetricsRecord, 'time_s'> {
  const { time_s: _t, ...rest } = m;
  return rest;
}

describe('trainer on the CPU engine', () => {
  it('multi-turn shared: one step fills every metric, records every turn, and emits timed stages', async () => {
    const events: TrainerEvent[] = [];
    const { trainer } = makeTrainer(smallConfig('rema-multiturn', { entropyCoef: 0.01 }), events);
    const { metrics, rollouts } = await trainer.step();
    for (const f of FIELDS) expect(metrics[f], f).toBeDefined();
    for (const v of [metrics.reward_mean, metrics.entropy, metrics.grad_norm, metrics.len_meta_mean])
      expect(Number.isFinite(v)).toBe(true);
    expect(metrics.step).toBe(1);
    expect(metrics.trained).toBe('shared');
    expect(metrics.lr).toBeCloseTo(1e-2, 12);
    expect(metrics.entropy).toBeGreaterThan(0);
    expect(metrics.grad_norm).toBeGreaterThan(0); // the entropy bonus moves the weights even with zero advantages
    expect(Object.values(metrics.finish_reasons).reduce((a, b) => a + b, 0)).toBe(4);
    expect(rollouts.length).toBe(4);
    for (const r of rollouts) {
      expect(r.turns.length).toBeGreaterThan(0);
      expect(r.turns[0].role).toBe('meta');
      expect(r.question.length).toBeGreaterThan(0);
    }
    // a random model never says [FINISH]: every episode hits a cap, so every reward is 0 and every group has zero std
    expect(metrics.reward_mean).toBe(0);
    expect(metrics.frac_zero_std_groups).toBe(1);
    const stages = events.filter((e) => e.type === 'stage').map((e) => (e as { stage: string }).stage);
    expect(stages).toEqual(['rollout', 'reward', 'adv', 'update']);
    expect(metrics.time_s.rollout).toBeGreaterThan(0);
  });

  it('same config and seed give identical metrics; another seed differs', async () => {
    const cfg = smallConfig('rema-multiturn', { entropyCoef: 0.01, temperature: 1 });
    const run = async (seed: number) => {
      const { trainer } = makeTrainer({ ...cfg, seed });
      const out = [];
      for (let i = 0; i < 2; i++) {
        const r = await trainer.step();
        out.push({ m: withoutTimes(r.metrics), texts: r.rollouts.map((x) => x.turns.map((t) => t.text)) });
      }
      return out;
    };
    const a = await run(3);
    const b = await run(3);
    expect(b).toEqual(a);
    const c = await run(4);
    expect(c.map((x) => x.texts)).not.toEqual(a.map((x) => x.texts));
  });

  it('a restored state (with the saved adapter and optimiser) continues exactly like the uninterrupted run', async () => {
    const cfg = smallConfig('rema-multiturn', { entropyCoef: 0.01 });
    const { trainer, policy } = makeTrainer(cfg);
    await trainer.step();
    const saved = {
      state: trainer.state(),
      adapter: await policy.saveAdapter('shared'),
      optim: await policy.saveOptimizerState('shared'),
    };
    const next = withoutTimes((await trainer.step()).metrics);
    const fresh = makeTrainer(cfg);
    fresh.trainer.restore(saved.state);
    await fresh.policy.loadAdapter('shared', saved.adapter);
    await fresh.policy.loadOptimizerState('shared', saved.optim);
    expect(withoutTimes((await fresh.trainer.step()).metrics)).toEqual(next);
  });

  it('PPO mini-batches x epochs with KL score old and reference log-probs', async () => {
    const events: TrainerEvent[] = [];
    const { trainer } = makeTrainer(
      smallConfig('rema-multiturn', { miniBatches: 2, ppoEpochs: 2, klBeta: 0.1, entropyCoef: 0.05 }),
      events,
    );
    const { metrics } = await trainer.step();
    const stages = events.filter((e) => e.type === 'stage').map((e) => (e as { stage: string }).stage);
    expect(stages).toEqual(['rollout', 'reward', 'old', 'ref', 'adv', 'update']);
    // LoRA starts as the identity (B = 0): the first mini-batch sees KL = 0; the entropy bonus moves the weights,
    // so the later mini-batches measure a positive KL to the reference (adapters off)
    expect(metrics.kl).toBeGreaterThan(0);
    expect(metrics.grad_norm).toBeGreaterThan(0);
  });

  it('separate parameters alternate the trained agent every switchEvery steps, starting with the meta agent', async () => {
    const { trainer } = makeTrainer(smallConfig('ablation-separate-params', { switchEvery: 1 }));
    const trained = [];
    for (let i = 0; i < 3; i++) trained.push((await trainer.step()).metrics.trained);
    expect(trained).toEqual(['meta', 'reasoning', 'meta']);
  });

  it('single-turn Algorithm 1, VRP_RL and MRP_RL run; VRP is evaluation only', async () => {
    // the earlier schedule (phaseEpochs 0: switch every switchEvery steps, filter on the step's own samples);
    // Algorithm 1's phases are tested in tests/rl/algorithm1/phases.test.ts
    const single = makeTrainer(smallConfig('rema-singleturn', { switchEvery: 1, phaseEpochs: 0, planSamples: 0 }));
    const s1 = await single.trainer.step();
    expect(s1.metrics.trained).toBe('reasoning');
    expect(s1.metrics.turns_mean).toBe(1);
    // nothing correct -> every group's success rate is 0, outside [0.2, 0.8]: all filtered
    expect(s1.metrics.frac_filtered_groups).toBe(1);
    expect(s1.metrics.rows_trained).toBe(0);
    // the reasoning phase shares one greedy plan per problem
    const plans = new Map<number, Set<string>>();
    for (const r of s1.rollouts)
      (plans.get(r.group) ?? plans.set(r.group, new Set()).get(r.group)!).add(r.turns[0].text);
    for (const p of plans.values()) expect(p.size).toBe(1);
    for (const preset of ['vrp-rl', 'mrp-rl']) {
      const { trainer } = makeTrainer(smallConfig(preset));
      const { metrics, rollouts } = await trainer.step();
      // base reward: no \boxed -> -1 for every response
      expect(metrics.reward_mean).toBe(-1);
      expect(rollouts[0].turns.map((t) => t.role)).toEqual(['reasoning']);
    }
    const vrp = makeTrainer(smallConfig('vrp'));
    await expect(vrp.trainer.step()).rejects.toThrow(/evaluation only/);
    const ev = await vrp.trainer.evaluate();
    expect(ev.n).toBe(2);
    expect(ev.accuracy).toBe(0);
  });

  it('evaluates greedily every evalEvery steps', async () => {
    const { trainer } = makeTrainer(smallConfig('rema-multiturn', { evalEvery: 2 }));
    const m1 = (await trainer.step()).metrics;
    const r2 = await trainer.step();
    expect(m1.eval_accuracy).toBeUndefined();
    expect(r2.metrics.eval_accuracy).toBe(0);
    expect(r2.eval?.n).toBe(2);
    expect(r2.eval?.by_level).toBeDefined();
    // greedy: evaluating twice gives the same transcripts
    const again = await trainer.evaluate();
    expect(again.rollouts.map((r) => r.turns)).toEqual(r2.eval!.rollouts.map((r) => r.turns));
  });
});
