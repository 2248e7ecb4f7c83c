// A saved trainer state is checked field by field before a run resumes from it (src/rl/train/trainer-state.ts):
// a valid state comes back as it was, each bad field fails with its name and value.
import { describe, expect, it } from 'vitest';
import { checkedState } from '../../../src/rl/train/trainer-state.ts';
import type { TrainerState } from '../../../src/rl/train/types.ts';

const good: TrainerState = { version: 1, step: 12, cursor: 40, epoch: 2, nonfiniteStreak: 1 };

describe('checkedState', () => {
  it('returns a valid state unchanged, and drops a zero streak', () => {
    expect(checkedState(good, 100)).toEqual(good);
    expect(checkedState({ ...good, nonfiniteStreak: 0 }, 100)).toEqual({ version: 1, step: 12, cursor: 40, epoch: 2 });
  });

  it('names the bad field and its value', () => {
    expect(() => checkedState({ ...good, version: 2 as 1 }, 100)).toThrow('unknown version 2');
    expect(() => checkedState({ ...good, cursor: -1 }, 100)).toThrow(
      'field "cursor" must be a non-negative integer, got -1',
    );
    expect(() => checkedState({ ...good, step: 1.5 }, 100)).toThrow('field "step"');
    expect(() => checkedState({ ...good, nonfiniteStreak: -2 }, 100)).toThrow('field "nonfiniteStreak"');
  });
});
