// Presenter mode's caption and word diff: every clause follows from the numbers and plans it is given (the plans
// are the tiny task's own renderings, misread as the embedded model does), and the diff marks exactly the changed words.
import { describe, expect, it } from 'vitest';
import {
  accuracyClause,
  planClause,
  presenterCaption,
  rewardClause,
  type FollowedPoint,
} from '../../../src/app/analysis/presenter-caption.ts';
import { changedWords, wordDiff } from '../../../src/app/analysis/word-diff.ts';
import type { TinyProblemSpec } from '../../../src/data/tiny-task/generator.ts';
import { renderComputation, renderPlan, renderQuestion } from '../../../src/data/tiny-task/text.ts';
import { misreadLosses } from '../../../src/data/tiny-task/traces.ts';

const spec: TinyProblemSpec = {
  level: 2,
  name: 'Ben',
  pronoun: 'He',
  item: 'cards',
  steps: [
    { kind: 'start', value: 22 },
    { kind: 'sub', n: 7 },
    { kind: 'add', n: 4 },
  ],
};
const misread = misreadLosses(spec.steps)!;
const point = (step: number, steps = spec.steps, correct = steps === spec.steps): FollowedPoint => ({
  step,
  question: renderQuestion(spec),
  plan: renderPlan(steps),
  reasoning: renderComputation(steps),
  correct,
});

describe('wordDiff', () => {
  it('marks the replaced word and keeps both texts recoverable', () => {
    const parts = wordDiff('Start at 22. Add 7. Add 4.', 'Start at 22. Subtract 7. Add 4.');
    expect(parts).toEqual([
      { text: 'Start at 22. ', kind: 'same' },
      { text: 'Add ', kind: 'removed' },
      { text: 'Subtract ', kind: 'added' },
      { text: '7. Add 4.', kind: 'same' },
    ]);
    expect(
      parts
        .filter((p) => p.kind !== 'removed')
        .map((p) => p.text)
        .join(''),
    ).toBe('Start at 22. Subtract 7. Add 4.');
    expect(
      parts
        .filter((p) => p.kind !== 'added')
        .map((p) => p.text)
        .join(''),
    ).toBe('Start at 22. Add 7. Add 4.');
    expect(changedWords(parts)).toBe(2);
    expect(wordDiff('', 'Add 3.')).toEqual([{ text: 'Add 3.', kind: 'added' }]);
    expect(changedWords(wordDiff('same text', 'same text'))).toBe(0);
  });
});

describe('presenter caption', () => {
  it('says when the plan stops misreading the loss, from the two plans', () => {
    expect(planClause([point(0, misread)])).toBe('the meta-thinking agent plans a loss as a gain');
    expect(planClause([point(0, misread), point(10)])).toBe('the meta-thinking agent now subtracts losses');
    expect(planClause([point(10), point(20, misread)])).toBe('the meta-thinking agent misreads a loss as a gain again');
    expect(planClause([point(10), point(20)])).toBe('the followed problem is solved');
  });

  it('measures the reward change over the last k steps against the k before', () => {
    const metrics = [0.1, 0.1, 0.1, 0.4, 0.4, 0.4].map((r, i) => ({ step: i + 1, reward_mean: r }));
    expect(rewardClause(metrics, 3)).toBe('reward up 0.30 over the last 3 steps');
    expect(rewardClause(metrics.slice(0, 3), 3)).toBe('reward steady at 0.10 over the last step');
    expect(rewardClause([...metrics, { step: 7, reward_mean: 0 }].slice(-4), 2)).toBe(
      'reward down 0.20 over the last 2 steps',
    );
    expect(rewardClause(metrics.slice(0, 1))).toBeNull();
  });

  it('joins the clauses with the step and the held-out accuracy', () => {
    const caption = presenterCaption({
      metrics: [0.2, 0.2, 0.5, 0.5].map((r, i) => ({ step: i + 1, reward_mean: r })),
      evaluations: [
        { step: 0, accuracy: 0.3125 },
        { step: 4, accuracy: 0.53 },
      ],
      followed: [point(0, misread), point(4)],
      window: 2,
    });
    expect(caption).toBe(
      'Step 4: the meta-thinking agent now subtracts losses; reward up 0.30 over the last 2 steps; held-out accuracy 31% → 53%',
    );
    expect(accuracyClause([{ step: 0, accuracy: 0.25 }])).toBe('held-out accuracy 25% at step 0');
    expect(presenterCaption({ metrics: [], evaluations: [], followed: [] })).toBe(
      'Step 0: loading the model and its first greedy rollout',
    );
  });
});
