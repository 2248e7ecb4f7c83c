// The advantage estimator registry (src/rl/losses/estimators.ts): one entry per value the config accepts, each
// entry's declared config fields are exactly those that change its result, REINFORCE++ whitens with verl's fixed
// 1e-8 whatever advEps, and the trainer's assignAdvantages goes through the registry.
import { describe, expect, it } from 'vitest';
import { FIELD_SPECS, type AdvantageEstimator } from '../../../src/rl/config.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import {
  ADVANTAGE_ESTIMATORS,
  estimateAdvantages,
  type AdvantageConfig,
  type AdvantageRow,
} from '../../../src/rl/losses/estimators.ts';
import { assignAdvantages, type TrainRow } from '../../../src/rl/train/rows.ts';

const base: AdvantageConfig = { stdScaling: 'group', advEps: 1e-6, klPlacement: 'loss', klBeta: 0 };

/** Two groups of three rows, uneven token counts, log-probs for the KL in the reward. */
function rows(): AdvantageRow[] {
  const rewards = [1, 0, 0, 1, 1, 0.5];
  return rewards.map((reward, i) => {
    const n = 2 + (i % 3);
    return {
      reward,
      group: i < 3 ? 'meta:a' : 'meta:b',
      positions: Array.from({ length: n }, (_, j) => 10 + j),
      oldLogp: Float32Array.from({ length: n }, (_, j) => -0.5 - 0.1 * j - 0.05 * i),
      refLogp: Float32Array.from({ length: n }, (_, j) => -0.7 - 0.05 * j),
    };
  });
}

/** A value of each AdvantageConfig field different from `base`'s, that changes a result which reads it. */
const changed: { [K in keyof AdvantageConfig]: AdvantageConfig[K] } = {
  stdScaling: 'none',
  advEps: 0.5,
  klPlacement: 'reward',
  klBeta: 0.3,
};

/** The config a field is varied from: the KL in the reward only acts with klBeta > 0 and klPlacement "reward". */
function from(field: keyof AdvantageConfig): AdvantageConfig {
  return field === 'klBeta'
    ? { ...base, klPlacement: 'reward' }
    : field === 'klPlacement'
      ? { ...base, klBeta: 0.3 }
      : base;
}

function flat(a: ReturnType<typeof estimateAdvantages>): number[] {
  return [...a.advantages, ...(a.tokenAdvantages ?? []).flatMap((t) => Array.from(t))];
}

describe('advantage estimator registry', () => {
  it('has one entry for every estimator the config accepts, each documented', () => {
    const spec = FIELD_SPECS.advantage;
    const values = spec.kind === 'enum' ? [...spec.values] : [];
    expect(values.length).toBeGreaterThan(1);
    expect(Object.keys(ADVANTAGE_ESTIMATORS).toSorted()).toEqual(values.toSorted());
    for (const v of values) expect(ADVANTAGE_ESTIMATORS[v as AdvantageEstimator].doc).toMatch(/verl|OpenRLHF|TRL/);
  });

  for (const name of Object.keys(ADVANTAGE_ESTIMATORS) as AdvantageEstimator[]) {
    it(`${name}: the fields it declares change its result, the others do not`, () => {
      const { reads } = ADVANTAGE_ESTIMATORS[name];
      for (const field of Object.keys(base) as (keyof AdvantageConfig)[]) {
        const before = flat(estimateAdvantages(name, rows(), from(field)));
        const after = flat(estimateAdvantages(name, rows(), { ...from(field), [field]: changed[field] }));
        if (reads.includes(field)) expect(after, field).not.toEqual(before);
        else expect(after, field).toEqual(before);
      }
    });
  }

  it('reinforce++ whitens token returns with verl masked_whiten: rsqrt(unbiased var + 1e-8), advEps not read', () => {
    const rs = rows();
    // verl: every trained token carries its row's return; mean and unbiased variance over all of them
    const tokens = rs.flatMap((r) => r.positions.map(() => r.reward));
    const mu = tokens.reduce((s, x) => s + x, 0) / tokens.length;
    const variance = tokens.reduce((s, x) => s + (x - mu) ** 2, 0) / (tokens.length - 1);
    const expected = rs.map((r) => (r.reward - mu) / Math.sqrt(variance + 1e-8));
    for (const advEps of [0, 1e-6, 0.5]) {
      const got = estimateAdvantages('reinforce++', rs, { ...base, advEps }).advantages;
      got.forEach((a, i) => expect(a).toBeCloseTo(expected[i], 12));
    }
  });

  it('grpo divides by the group std plus advEps', () => {
    // group a: rewards 1, 0, 0: mean 1/3, unbiased std sqrt(1/3)
    const a = estimateAdvantages('grpo', rows(), { ...base, advEps: 0.5 }).advantages;
    expect(a[0]).toBeCloseTo(2 / 3 / (Math.sqrt(1 / 3) + 0.5), 12);
  });

  it('names an unknown estimator and the known ones', () => {
    expect(() => estimateAdvantages('ppo' as AdvantageEstimator, rows(), base)).toThrow(
      /unknown estimator "ppo" \(known: grpo, reinforce\+\+\)/,
    );
  });

  it('assignAdvantages fills the rows from the configured entry', () => {
    for (const advantage of ['grpo', 'reinforce++'] as const) {
      const config = { ...getPreset('rema-singleturn'), advantage, klPlacement: 'reward' as const, klBeta: 0.2 };
      const train = rows().map((r) => ({ ...r, advantage: 0 }) as unknown as TrainRow);
      assignAdvantages(train, config);
      const expected = estimateAdvantages(advantage, rows(), config);
      expect(train.map((r) => r.advantage)).toEqual(expected.advantages);
      expect(train.map((r) => r.tokenAdvantages)).toEqual(expected.tokenAdvantages ?? train.map(() => undefined));
    }
  });
});
