// GRPO and REINFORCE++ advantages against values worked out by hand (see the comments for the arithmetic).
import { describe, expect, it } from 'vitest';
import { grpoAdvantages, meanAndStd, reinforcePlusPlusAdvantages } from '../../../src/rl/losses/advantages.ts';

describe('meanAndStd', () => {
  it('uses the unbiased (n-1) standard deviation', () => {
    // [1,0,0,1]: mean 0.5, squared deviations 4 x 0.25 = 1, / 3 -> std sqrt(1/3)
    const { mean, std } = meanAndStd([1, 0, 0, 1]);
    expect(mean).toBe(0.5);
    expect(std).toBeCloseTo(Math.sqrt(1 / 3), 12);
  });
});

describe('grpoAdvantages', () => {
  it('normalises by the group mean and unbiased std + eps; a singleton group keeps its raw reward', () => {
    const eps = 1e-6;
    const { advantages, fracZeroStd } = grpoAdvantages([1, 0, 0, 1, 1, 1, 1], ['a', 'a', 'a', 'a', 'b', 'c', 'c'], {
      scaling: 'group',
      eps,
    });
    const s = Math.sqrt(1 / 3);
    expect(advantages[0]).toBeCloseTo(0.5 / (s + eps), 10);
    expect(advantages[1]).toBeCloseTo(-0.5 / (s + eps), 10);
    // group b has one member: mean 0, std 1 -> A = 1 / (1 + eps)
    expect(advantages[4]).toBeCloseTo(1 / (1 + eps), 10);
    // group c is all ones: zero std, zero advantage
    expect(advantages[5]).toBe(0);
    expect(advantages[6]).toBe(0);
    // groups of size > 1: a (varied) and c (constant) -> half have zero std
    expect(fracZeroStd).toBe(0.5);
  });

  it('gives +-1/sqrt(2) for a group of two with rewards 0 and 1 (unbiased std 0.707)', () => {
    const { advantages } = grpoAdvantages([0, 1], [7, 7], { scaling: 'group', eps: 0 });
    expect(advantages[0]).toBeCloseTo(-Math.SQRT1_2, 12);
    expect(advantages[1]).toBeCloseTo(Math.SQRT1_2, 12);
  });

  it('"none" only subtracts the group mean (Dr. GRPO)', () => {
    const { advantages } = grpoAdvantages([1, 0, 0, 0.5], ['x', 'x', 'y', 'y'], { scaling: 'none', eps: 1e-6 });
    expect(advantages).toEqual([0.5, -0.5, -0.25, 0.25]);
  });

  it('"batch" divides by the std of all rewards', () => {
    // rewards [1,0,1,1]: batch mean 0.75, ss = 3 x 0.0625 + 0.5625 = 0.75, / 3 -> var 0.25, std 0.5
    const { advantages } = grpoAdvantages([1, 0, 1, 1], ['a', 'a', 'b', 'b'], { scaling: 'batch', eps: 0 });
    expect(advantages).toEqual([1, -1, 0, 0]);
  });

  it('rejects mismatched inputs', () => {
    expect(() => grpoAdvantages([1], ['a', 'b'], { scaling: 'group', eps: 0 })).toThrow(/1 rewards but 2/);
  });
});

describe('reinforcePlusPlusAdvantages', () => {
  it('whitens token returns over the whole batch, weighting rows by their token counts', () => {
    // returns [1, 0] over 2 and 1 tokens: mu = 2/3; var = (2 (1/3)^2 + (2/3)^2) / (3 - 1) = 1/3
    const a = reinforcePlusPlusAdvantages([1, 0], [2, 1], 0);
    expect(a[0]).toBeCloseTo(1 / 3 / Math.sqrt(1 / 3), 12);
    expect(a[1]).toBeCloseTo(-2 / 3 / Math.sqrt(1 / 3), 12);
  });

  it('gives zero to rows without tokens and when every return is equal', () => {
    expect(reinforcePlusPlusAdvantages([5, 3], [0, 4])).toEqual([0, 0]);
    expect(reinforcePlusPlusAdvantages([1, 1], [2, 2])).toEqual([0, 0]);
  });
});
