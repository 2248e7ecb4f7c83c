// An episode cut short answers "" as in the ReMA code. When the reasoning agent's chat outgrows the
// prompt cap the code appends an empty reasoning message (vllm_rollout_spmd._run_multi_turn_conversation: "if the
// next gen is for reasoning agent, we need to add a dummy response in history") and the reward manager grades
// history[-1] = "" (visible with mask_unfinished_reward = False). overflowAnswer "previous" keeps the earlier
// behaviour: no dummy, the last real reasoning answer graded. Driven by a scripted policy (a random model cannot
// be made to say a chosen text); the tokenizer, chat rendering, rollout, verifier and reward rule are the real ones.
import { describe, expect, it } from 'vitest';
import type { SamplingParams } from '../../../src/engine/policy/policy.ts';
import type { Problem } from '../../../src/data/problem.ts';
import { promptsFor } from '../../../src/rl/prompts/index.ts';
import { multiTurnRollout, type RolloutSettings } from '../../../src/rl/protocol/rollout.ts';
import { chatFor, finalAnswerText, type Episode } from '../../../src/rl/protocol/episode.ts';
import { encodeChat } from '../../../src/rl/protocol/encode.ts';
import { scoreEpisodes } from '../../../src/rl/grade-in-thread.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { validateConfig } from '../../../src/rl/config.ts';
import { tinyTokenizer } from '../../helpers/rl/tiny-tokenizer.ts';
import { scriptedPolicy, type Reply } from '../../helpers/rl/scripted-policy.ts';

const tok = tinyTokenizer();
/** generate() call k answers every request with replies[k]; nothing else is used by a rollout */
const scripted = (replies: Reply[]) =>
  scriptedPolicy(
    tok,
    replies.map((r) => [r]),
  );

const problem: Problem = {
  id: 'p0',
  task: 'math',
  question: 'Ann has 3 apples and buys 2 more. How many?',
  answer: '5',
};
const sampling: SamplingParams = { temperature: 1, topP: 1, topK: 0, seed: 7 };
const prompts = promptsFor('tiny', 'multi-turn', 'math');
const longPlan = 'Check the sum once more, carefully, one apple at a time, and say it again. '.repeat(3);
const replies: Reply[] = [{ text: 'Add the two numbers.' }, { text: '3 + 2 = \\boxed{5}' }, { text: longPlan }];

const msg = (role: 'meta' | 'reasoning', text: string) => ({
  role,
  text,
  generated: 1,
  truncated: false,
  endedNormally: true,
  dummy: false,
});

/** a prompt cap that lets the meta agent's turn-2 chat through and stops the reasoning agent's */
function capBetweenTurnTwoChats(): number {
  const e: Episode = { problem, group: 0, sample: 0, kind: 'two-agent', finish: null, messages: [] };
  e.messages.push(msg('meta', replies[0].text), msg('reasoning', replies[1].text));
  const metaLen = encodeChat(tok, chatFor(e, 'meta', prompts), [], true).tokens.length;
  e.messages.push(msg('meta', longPlan));
  const reasonLen = encodeChat(tok, chatFor(e, 'reasoning', prompts), [], true).tokens.length;
  expect(metaLen).toBeLessThan(reasonLen - 1);
  return reasonLen - 1;
}

async function rollout(overflowDummy: boolean): Promise<Episode> {
  const s: RolloutSettings = {
    policy: scripted(replies),
    tokenizer: tok,
    prompts,
    adapterFor: () => 'shared',
    maxTurns: 3,
    maxTokensPerTurn: 200,
    maxPromptTokens: capBetweenTurnTwoChats(),
    maxContext: 4096,
    stopWhenTruncated: true,
    overflowDummy,
  };
  const e: Episode = { problem, group: 0, sample: 0, kind: 'two-agent', finish: null, messages: [] };
  await multiTurnRollout(s, [e], { meta: sampling, reasoning: sampling });
  return e;
}

describe('overflowAnswer', () => {
  const unmasked = { ...getPreset('rema-multiturn'), maskUnfinishedReward: false };

  it('"empty" (code default): a reasoning overflow appends the dummy and "" is graded', async () => {
    const e = await rollout(true);
    expect(e.finish).toBe('completion_token_exceeded');
    expect(e.messages.map((m) => [m.role, m.dummy])).toEqual([
      ['meta', false],
      ['reasoning', false],
      ['meta', false],
      ['reasoning', true],
    ]);
    expect(finalAnswerText(e, true)).toBe('');
    const [s] = scoreEpisodes({ ...unmasked, overflowAnswer: 'empty' }, [e], false);
    expect(s.grade.correct).toBe(false);
    expect(s.reward).toEqual({ meta: 0, reasoning: 0 });
  });

  it('"previous" (earlier behaviour): no dummy, the turn-1 answer \\boxed{5} is graded and earns 1 without the mask', async () => {
    const e = await rollout(false);
    expect(e.finish).toBe('completion_token_exceeded');
    expect(e.messages.map((m) => m.dummy)).toEqual([false, false, false]);
    const [s] = scoreEpisodes({ ...unmasked, overflowAnswer: 'previous' }, [e], false);
    expect(s.grade.correct).toBe(true);
    expect(s.reward).toEqual({ meta: 1, reasoning: 1 });
    // with the code's mask (every preset) the reward is 0 either way
    expect(scoreEpisodes(getPreset('rema-multiturn'), [e], false)[0].reward.reasoning).toBe(0);
  });

  it('"empty" also grades "" after a truncated meta message at a later turn (the code\'s dummy is history[-1])', async () => {
    const policy = scripted([
      { text: 'Add the two numbers.' },
      { text: '3 + 2 = \\boxed{5}' },
      { text: 'Now check', finish: 'length' },
    ]);
    const s: RolloutSettings = {
      policy,
      tokenizer: tok,
      prompts,
      adapterFor: () => 'shared',
      maxTurns: 3,
      maxTokensPerTurn: 40,
      maxPromptTokens: 4000,
      maxContext: 4096,
      stopWhenTruncated: true,
      overflowDummy: true,
    };
    const e: Episode = { problem, group: 0, sample: 0, kind: 'two-agent', finish: null, messages: [] };
    await multiTurnRollout(s, [e], { meta: sampling, reasoning: sampling });
    expect(e.finish).toBe('stop_when_truncated');
    expect(scoreEpisodes({ ...unmasked, overflowAnswer: 'empty' }, [e], false)[0].reward.reasoning).toBe(0);
    expect(scoreEpisodes({ ...unmasked, overflowAnswer: 'previous' }, [e], false)[0].reward.reasoning).toBe(1);
  });

  it('is "empty" in rema-multiturn, "previous" in tiny-default (recorded runs) and in configs saved before it', () => {
    expect(getPreset('rema-multiturn').overflowAnswer).toBe('empty');
    expect(getPreset('tiny-default').overflowAnswer).toBe('previous');
    const { overflowAnswer: _dropped, ...old } = getPreset('rema-multiturn');
    expect(validateConfig(old, 'old config.json').overflowAnswer).toBe('previous');
  });
});
