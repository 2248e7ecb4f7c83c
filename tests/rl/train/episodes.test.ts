// Which agent trains when, and what each agent earns for hand-built episodes (reward rules applied through the
// real verifier), plus Algorithm 1's success-rate filter.
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../../src/data/problem.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import type { Episode, Message } from '../../../src/rl/protocol/episode.ts';
import { scoreEpisodes } from '../../../src/rl/grade-in-thread.ts';
import { currentAgent, groupsInWindow, stepPlan } from '../../../src/rl/train/episodes.ts';
import type { FinishReason } from '../../../src/rl/metrics.ts';

const problem: Problem = { id: 'p', task: 'math', question: 'What is 2+3?', answer: '5' };
const msg = (role: Message['role'], text: string): Message => ({
  role,
  text,
  generated: 3,
  truncated: false,
  endedNormally: true,
  dummy: false,
});
function episode(
  group: number,
  texts: [string, string][],
  finish: FinishReason,
  kind: Episode['kind'] = 'two-agent',
): Episode {
  const messages = texts.flatMap(([m, y]) =>
    kind === 'single' ? [msg('reasoning', y)] : [msg('meta', m), msg('reasoning', y)],
  );
  return { problem, group, sample: 0, kind, messages, finish };
}

describe('agent schedule', () => {
  it('separate mode switches every switchEvery steps from the start agent, as (k // freq + start) % 2', () => {
    const c = { ...getPreset('ablation-separate-params'), switchEvery: 3 };
    expect([0, 1, 2, 3, 4, 5, 6].map((k) => currentAgent(c, k))).toEqual([
      'meta',
      'meta',
      'meta',
      'reasoning',
      'reasoning',
      'reasoning',
      'meta',
    ]);
    expect(currentAgent({ ...c, startAgent: 'reasoning' }, 0)).toBe('reasoning');
  });
  it('shared mode trains both agents; Algorithm 1 freezes the partner greedily', () => {
    expect(stepPlan(getPreset('rema-multiturn'), 0, 'shared')).toMatchObject({
      trained: ['meta', 'reasoning'],
      trainedLabel: 'shared',
    });
    const st = { ...getPreset('rema-singleturn'), switchEvery: 1, startAgent: 'reasoning' as const };
    expect(stepPlan(st, 0, 'x')).toEqual({
      trained: ['reasoning'],
      trainedLabel: 'reasoning',
      greedy: { meta: true, reasoning: false },
      onePlanPerGroup: true,
      followers: 1,
    });
    expect(stepPlan(st, 1, 'x')).toEqual({
      trained: ['meta'],
      trainedLabel: 'meta',
      greedy: { meta: false, reasoning: true },
      onePlanPerGroup: false,
      followers: 1,
    });
    expect(stepPlan(getPreset('vrp-rl'), 0, 'shared').trained).toEqual(['reasoning']);
  });
});

describe('scoreEpisodes', () => {
  it('multi-turn: 1 for both agents only when correct and finished', () => {
    const c = getPreset('rema-multiturn');
    const eps = [
      episode(0, [['Add. [FINISH]', 'so \\boxed{5}']], 'finished'),
      episode(0, [['Add.', 'so \\boxed{5}']], 'reach_max_turn'),
      episode(0, [['Add. [FINISH]', 'so \\boxed{6}']], 'finished'),
    ];
    const s = scoreEpisodes(c, eps, false);
    expect(s.map((x) => x.reward)).toEqual([
      { meta: 1, reasoning: 1 },
      { meta: 0, reasoning: 0 },
      { meta: 0, reasoning: 0 },
    ]);
    expect(s.map((x) => x.grade.correct)).toEqual([true, true, false]);
    expect(s[0].grade.extracted).toBe('5');
  });
  it("single-turn base reward; the meta agent earns its followers' mean correctness, minus 1 for a leaked \\boxed", () => {
    const c = getPreset('rema-singleturn');
    const eps = [
      episode(0, [['add the numbers', '\\boxed{5}']], 'finished'),
      episode(0, [['add the numbers', '\\boxed{4}']], 'finished'),
      episode(0, [['add the numbers', 'five']], 'finished'),
      episode(1, [['it is \\boxed{5}', '\\boxed{5}']], 'finished'),
    ];
    // a shared plan per group (Algorithm 1 reasoning phase): group 0 has 1 of 3 correct
    const shared = scoreEpisodes(c, eps, true);
    expect(shared.map((x) => x.reward.reasoning)).toEqual([1, -0.5, -1, 1]);
    expect(shared[0].reward.meta).toBeCloseTo(1 / 3, 12);
    expect(shared[3].reward.meta).toBe(0); // 1 correct follower, minus 1 for the leak
    // one follower per plan
    expect(scoreEpisodes(c, eps, false).map((x) => x.reward.meta)).toEqual([1, 0, 0, 0]);
    // binary variant
    expect(scoreEpisodes({ ...c, singleTurnReward: 'binary' }, eps, false).map((x) => x.reward.reasoning)).toEqual([
      1, 0, 0, 1,
    ]);
  });
  it('judge problems are graded by their verdict', () => {
    const judge: Problem = { id: 'j', task: 'judge', question: 'A or B?', answer: 'B' };
    const e: Episode = {
      problem: judge,
      group: 0,
      sample: 0,
      kind: 'single',
      messages: [msg('reasoning', 'B is right. [[B]]')],
      finish: 'finished',
    };
    const [s] = scoreEpisodes(getPreset('vrp-rl'), [e], false);
    expect(s.grade).toMatchObject({ correct: true, extracted: 'B', hasFormat: true });
    expect(s.reward.reasoning).toBe(1);
  });
});

/** finished episodes of one group, one per answer */
const mk = (group: number, answers: string[]) =>
  answers.map((a) => episode(group, [['p', `\\boxed{${a}}`]], 'finished'));

describe('groupsInWindow', () => {
  it('keeps groups whose success rate lies in [epsMin, epsMax]', () => {
    const c = getPreset('rema-singleturn');
    const eps = [
      ...mk(0, ['5', '5', '5', '5']),
      ...mk(1, ['5', '1', '1', '1']),
      ...mk(2, ['1', '1', '1', '1']),
      ...mk(3, ['5', '5', '5', '1']),
    ];
    const kept = groupsInWindow(scoreEpisodes(c, eps, false), 0.2, 0.8);
    expect([...kept].toSorted()).toEqual([1, 3]);
  });
});
