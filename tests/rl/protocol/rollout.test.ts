// The rollout protocols' rules (termination, [FINISH] handling, dummy messages, caps), driven by a scripted
// policy whose replies are fixed texts: a random model cannot be made to say [FINISH] on cue. The tokenizer and
// the chat rendering are the real ones. Engine-backed runs are in tests/rl/train/trainer.test.ts.
import { describe, expect, it } from 'vitest';
import type { Policy, SamplingParams } from '../../../src/engine/policy/policy.ts';
import type { Problem } from '../../../src/data/problem.ts';
import { promptsFor } from '../../../src/rl/prompts/index.ts';
import {
  cutAfterStop,
  multiTurnRollout,
  singleAgentRollout,
  singleTurnRollout,
  stripFinish,
  type RolloutSettings,
} from '../../../src/rl/protocol/rollout.ts';
import type { Episode } from '../../../src/rl/protocol/episode.ts';
import { tinyTokenizer } from '../../helpers/rl/tiny-tokenizer.ts';
import { scriptedPolicy, type Reply, type ScriptedPolicy } from '../../helpers/rl/scripted-policy.ts';

const tok = tinyTokenizer();
/** A Policy whose generate() answers call k with replies[k] (one per request, or one for all). */
const scripted = (replies: Reply[][]): ScriptedPolicy => scriptedPolicy(tok, replies);

const problem: Problem = {
  id: 'p0',
  task: 'math',
  question: 'Ann has 3 apples and buys 2 more. How many?',
  answer: '5',
};
const sampling: SamplingParams = { temperature: 1, topP: 1, topK: 0, seed: 7 };

function setup(policy: Policy, over: Partial<RolloutSettings> = {}): RolloutSettings {
  return {
    policy,
    tokenizer: tok,
    prompts: promptsFor('tiny', 'multi-turn', 'math'),
    adapterFor: () => 'shared',
    maxTurns: 3,
    maxTokensPerTurn: 40,
    maxPromptTokens: 200,
    maxContext: 256,
    stopWhenTruncated: true,
    ...over,
  };
}

function episodes(n: number, kind: Episode['kind'] = 'two-agent'): Episode[] {
  return Array.from({ length: n }, (_, i) => ({ problem, group: 0, sample: i, kind, messages: [], finish: null }));
}

describe('multi-turn rollout', () => {
  it('lets the reasoning agent answer once more after [FINISH], strips [FINISH] from its output, keeps it in the plan', async () => {
    const policy = scripted([
      [{ text: 'Add 2.', finish: 'stop_token' }],
      [{ text: '3 + 2 = 5' }],
      [{ text: 'Confirm the answer. [FINISH] trailing', finish: 'stop_string' }],
      [{ text: '\\boxed{5} [FINISH]', finish: 'stop_string' }],
    ]);
    const [e] = episodes(1);
    await multiTurnRollout(setup(policy), [e], { meta: sampling, reasoning: sampling });
    expect(e.finish).toBe('finished');
    expect(e.messages.map((m) => [m.role, m.text])).toEqual([
      ['meta', 'Add 2.'],
      ['reasoning', '3 + 2 = 5'],
      ['meta', 'Confirm the answer. [FINISH]'],
      ['reasoning', '\\boxed{5}'],
    ]);
    expect(policy.calls.length).toBe(4);
    // both agents stop on [FINISH] and on the template's stop ids
    for (const c of policy.calls) {
      expect(c.requests[0].stopStrings).toEqual(['[FINISH]']);
      expect(c.requests[0].stopTokenIds).toEqual(tok.stopTokenIds);
    }
    // the reasoning agent's first prompt: its system prompt and "Question:\n{q}\n\nInstruction:\n{m1}"
    const raPrompt = tok.applyChatTemplate(
      [
        { role: 'system', content: 'You compute. Answer in \\boxed{}.' },
        { role: 'user', content: `Question:\n${problem.question}\n\nInstruction:\nAdd 2.` },
      ],
      { addGenerationPrompt: true },
    );
    expect(policy.calls[1].requests[0].prompt).toEqual(tok.encode(raPrompt));
    // the meta agent's second prompt has the reasoning agent's reply as a user turn
    const metaPrompt = tok.applyChatTemplate(
      [
        { role: 'system', content: 'You plan. End with [FINISH].' },
        { role: 'user', content: problem.question },
        { role: 'assistant', content: 'Add 2.' },
        { role: 'user', content: '3 + 2 = 5' },
      ],
      { addGenerationPrompt: true },
    );
    expect(policy.calls[2].requests[0].prompt).toEqual(tok.encode(metaPrompt));
    // per-turn seeds differ between rounds and agents
    expect(new Set(policy.calls.map((c) => c.sampling.seed)).size).toBe(4);
  });

  it('ends with reach_max_turn when the meta agent never says [FINISH]', async () => {
    const policy = scripted(Array.from({ length: 6 }, (_, k) => [{ text: k % 2 === 0 ? 'Keep going.' : '1 + 1 = 2' }]));
    const eps = episodes(2);
    await multiTurnRollout(setup(policy), eps, { meta: sampling, reasoning: sampling });
    for (const e of eps) {
      expect(e.finish).toBe('reach_max_turn');
      expect(e.messages.length).toBe(6);
    }
  });

  it('a truncated meta message ends the episode with a dummy reasoning message (stop_when_truncated)', async () => {
    const policy = scripted([
      [{ text: 'Add', finish: 'length' }, { text: 'Add 2.' }],
      [{ text: '3 + 2 = 5', finish: 'length' }],
    ]);
    const eps = episodes(2);
    await multiTurnRollout(setup(policy), eps, { meta: sampling, reasoning: sampling });
    expect(eps[0].finish).toBe('stop_when_truncated');
    expect(eps[0].messages.map((m) => m.dummy)).toEqual([false, true]);
    expect(eps[0].messages[0].truncated).toBe(true);
    // only the second episode reached the reasoning agent, and its truncated reply ended it too
    expect(policy.calls[1].requests.length).toBe(1);
    expect(eps[1].finish).toBe('stop_when_truncated');
    expect(eps[1].messages[1].endedNormally).toBe(false);
  });

  it('keeps going after truncation when stopWhenTruncated is off', async () => {
    const policy = scripted([
      [{ text: 'Add', finish: 'length' }],
      [{ text: '5' }],
      [{ text: 'Done. [FINISH]', finish: 'stop_string' }],
      [{ text: '\\boxed{5}' }],
    ]);
    const [e] = episodes(1);
    await multiTurnRollout(setup(policy, { stopWhenTruncated: false }), [e], { meta: sampling, reasoning: sampling });
    expect(e.finish).toBe('finished');
  });

  it('a chat over the prompt cap ends the episode with completion_token_exceeded before generating', async () => {
    const policy = scripted([]);
    const [e] = episodes(1);
    await multiTurnRollout(setup(policy, { maxPromptTokens: 10 }), [e], { meta: sampling, reasoning: sampling });
    expect(e.finish).toBe('completion_token_exceeded');
    expect(e.messages).toEqual([]);
    expect(policy.calls.length).toBe(0);
  });

  it('never asks for more tokens than the context has left', async () => {
    const policy = scripted([[{ text: 'x', finish: 'length' }]]);
    const [e] = episodes(1);
    await multiTurnRollout(setup(policy, { maxContext: 60, maxTokensPerTurn: 1000 }), [e], {
      meta: sampling,
      reasoning: sampling,
    });
    const r = policy.calls[0].requests[0];
    expect(r.prompt.length + r.maxNewTokens).toBe(60);
  });
});

describe('single-turn and single-agent rollouts', () => {
  it('single-turn: one plan then one answer; with onePlanPerGroup the group shares one greedy plan', async () => {
    const policy = scripted([
      [{ text: 'Add 2.' }],
      [{ text: '\\boxed{5}' }, { text: '\\boxed{6}' }, { text: '\\boxed{5}' }],
    ]);
    const eps = episodes(3);
    await singleTurnRollout(
      setup(policy, { maxTurns: 1 }),
      eps,
      { meta: sampling, reasoning: sampling },
      { onePlanPerGroup: true },
    );
    expect(policy.calls[0].requests.length).toBe(1);
    expect(policy.calls[1].requests.length).toBe(3);
    expect(eps.map((e) => e.messages.map((m) => m.text))).toEqual([
      ['Add 2.', '\\boxed{5}'],
      ['Add 2.', '\\boxed{6}'],
      ['Add 2.', '\\boxed{5}'],
    ]);
    expect(eps.every((e) => e.finish === 'finished')).toBe(true);
  });

  it('single agent: one response', async () => {
    const policy = scripted([[{ text: '3 + 2 = 5. \\boxed{5}' }]]);
    const [e] = episodes(1, 'single');
    const s = setup(policy, { prompts: promptsFor('tiny', 'vrp-rl', 'math'), maxTurns: 1 });
    await singleAgentRollout(s, [e], sampling);
    expect(e.finish).toBe('finished');
    const prompt = tok.applyChatTemplate(
      [
        { role: 'system', content: 'Solve. Answer in \\boxed{}.' },
        { role: 'user', content: problem.question },
      ],
      { addGenerationPrompt: true },
    );
    expect(policy.calls[0].requests[0].prompt).toEqual(tok.encode(prompt));
  });
});

describe('text helpers', () => {
  it('cutAfterStop keeps the stop string and drops what follows; stripFinish removes it and trailing space', () => {
    expect(cutAfterStop('Confirm. [FINISH] more', '[FINISH]')).toBe('Confirm. [FINISH]');
    expect(cutAfterStop('no stop', '[FINISH]')).toBe('no stop');
    expect(stripFinish('\\boxed{5}. [FINISH]  \n')).toBe('\\boxed{5}.');
  });
});
