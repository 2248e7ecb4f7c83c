// Reward rules: multi-turn sparse reward (code + paper App. D.2) and single-turn base reward (App. C.2).
import { describe, expect, it } from 'vitest';
import {
  baseMetaReward,
  baseReasoningReward,
  binaryReward,
  hasVerdictTag,
  multiTurnReward,
} from '../../src/rl/rewards.ts';

describe('multiTurnReward', () => {
  it('is 1 only for a correct answer in an episode that finished normally', () => {
    expect(multiTurnReward(true, 'finished', true)).toBe(1);
    expect(multiTurnReward(false, 'finished', true)).toBe(0);
    expect(multiTurnReward(true, 'reach_max_turn', true)).toBe(0);
    expect(multiTurnReward(true, 'stop_when_truncated', true)).toBe(0);
    expect(multiTurnReward(true, 'completion_token_exceeded', true)).toBe(0);
  });
  it('keeps a correct unfinished answer when masking is off', () => {
    expect(multiTurnReward(true, 'reach_max_turn', false)).toBe(1);
  });
});

describe('base reward (App. C.2)', () => {
  it('reasoning: +1 correct, -0.5 wrong with the answer format, -1 without it', () => {
    expect(baseReasoningReward(true, true)).toBe(1);
    expect(baseReasoningReward(false, true)).toBe(-0.5);
    expect(baseReasoningReward(false, false)).toBe(-1);
  });
  it('meta: mean correctness of its reasoning samples, minus 1 when the plan leaks \\boxed', () => {
    expect(baseMetaReward([true, false, true, true], false)).toBe(0.75);
    expect(baseMetaReward([true, false, true, true], true)).toBe(-0.25);
    expect(baseMetaReward([false], true)).toBe(-1);
    expect(() => baseMetaReward([], false)).toThrow(/no reasoning samples/);
  });
  it('binary: 1 or 0', () => {
    expect(binaryReward(true)).toBe(1);
    expect(binaryReward(false)).toBe(0);
  });
  it('finds judge verdict tags', () => {
    expect(hasVerdictTag('so the final verdict is [[B]]')).toBe(true);
    expect(hasVerdictTag('A is better [A]')).toBe(false);
  });
});
