// The meta-action JSON protocol on the embedded model: in a single-turn rollout the meta-thinking agent's turn is
// decoded under the grammar mask, so every plan parses into (action, output), and the reasoning agent's chat
// executes the chosen action (DECOMPOSE / REWRITE: question + instruction; EMPTY: the question alone). The step's
// action statistics (metrics.jsonl action_* fields) count what the messages say, overall and per level.
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../../../src/cli/fs-source.ts';
import { loadHfTokenizer } from '../../../../src/data/hf-tokenizer.ts';
import type { Problem } from '../../../../src/data/problem.ts';
import { tinyArithProblems } from '../../../../src/data/tiny-task/dataset.ts';
import { reasoningFirstUserMessage } from '../../../../src/data/tiny-task/prompts.ts';
import type { ChatTokenizer } from '../../../../src/data/tokenizer.ts';
import { CpuBackend } from '../../../../src/engine/backends/cpu.ts';
import { loadHfCheckpoint, type HfCheckpoint } from '../../../../src/engine/io/hf-model.ts';
import type { Policy } from '../../../../src/engine/policy/policy.ts';
import { policyForConfig } from '../../../../src/rl/policy-setup.ts';
import { validateConfig } from '../../../../src/rl/config.ts';
import { getPreset } from '../../../../src/rl/presets.ts';
import { createTrainer } from '../../../../src/rl/trainer.ts';
import { tinyJudgeProblems } from '../../../../src/data/tiny-task/dataset.ts';
import { promptsFor } from '../../../../src/rl/prompts/index.ts';
import { jsonActionPrompts, jsonActionReasoningUser } from '../../../../src/rl/prompts/json-actions.ts';
import { vrpUser } from '../../../../src/rl/prompts/paper.ts';
import { chatFor, type Episode, type Message } from '../../../../src/rl/protocol/episode.ts';
import { actionStats, metaActionConstraint } from '../../../../src/rl/protocol/json-actions/actions.ts';
import { META_ACTIONS, parseMetaAction } from '../../../../src/rl/protocol/json-actions/grammar.ts';
import { singleTurnRollout } from '../../../../src/rl/protocol/rollout.ts';

const files = directoryFileSource(resolve(import.meta.dirname, '../../../../public/models/tiny-rema'), 'tiny-rema');
let checkpoint: HfCheckpoint;
let tokenizer: ChatTokenizer;
beforeAll(async () => {
  [checkpoint, tokenizer] = await Promise.all([loadHfCheckpoint(files), loadHfTokenizer(files)]);
});

const episode = (problem: Problem, group: number, sample: number, messages: Message[] = []): Episode => ({
  problem,
  group,
  sample,
  kind: 'two-agent',
  messages,
  finish: null,
});
const meta = (text: string): Message => ({
  role: 'meta',
  text,
  generated: 1,
  truncated: false,
  endedNormally: true,
  dummy: false,
});

describe('meta-action JSON protocol', () => {
  it('on the tiny model: every plan parses, the reasoning agent gets the chat of its action, statistics match', async () => {
    const policy = policyForConfig(getPreset('tiny-default'), {
      backend: new CpuBackend(),
      checkpoint,
      decoder: tokenizer,
    });
    const prompts = jsonActionPrompts(promptsFor('tiny', 'single-turn', 'math'), 'tiny');
    const problems = tinyArithProblems({ split: 'train', count: 6, seed: 4 });
    const episodes = problems.flatMap((p, g) => [0, 1, 2].map((s) => episode(p, g, s)));
    let generateCalls = 0;
    const counting: Policy = {
      vocabSize: policy.vocabSize,
      contextLength: policy.contextLength,
      generate: (...args: Parameters<Policy['generate']>) => {
        generateCalls++;
        // the meta-thinking agent's requests (the first call) are constrained, the reasoning agent's are not
        expect(args[0].every((r) => (r.constraint !== undefined) === (generateCalls === 1))).toBe(true);
        return policy.generate(...args);
      },
      score: (...args: Parameters<Policy['score']>) => policy.score(...args),
      dispose: () => {},
    };
    await singleTurnRollout(
      {
        policy: counting,
        tokenizer,
        prompts,
        adapterFor: () => null,
        maxTurns: 1,
        maxTokensPerTurn: 64,
        maxPromptTokens: 200,
        maxContext: policy.contextLength,
        stopWhenTruncated: true,
        metaConstraint: metaActionConstraint,
      },
      episodes,
      {
        meta: { temperature: 1.5, topK: 0, topP: 1, seed: 9 },
        reasoning: { temperature: 1, topK: 0, topP: 1, seed: 10 },
      },
    );
    expect(generateCalls).toBe(2);
    const counts = { DECOMPOSE: 0, REWRITE: 0, EMPTY: 0 };
    for (const e of episodes) {
      const plan = e.messages[0];
      expect(plan.role).toBe('meta');
      const answer = parseMetaAction(plan.text);
      expect(answer, plan.text).not.toBeNull();
      counts[answer!.action]++;
      const firstUser = chatFor(e, 'reasoning', prompts)[1].content;
      expect(firstUser).toBe(
        answer!.action === 'EMPTY' ? e.problem.question : reasoningFirstUserMessage(e.problem.question, answer!.output),
      );
      expect(e.messages[1].role).toBe('reasoning');
    }
    const stats = actionStats(episodes);
    for (const a of META_ACTIONS) expect(stats[`action_${a}`]).toBeCloseTo(counts[a] / episodes.length, 12);
    expect(stats.action_DECOMPOSE + stats.action_REWRITE + stats.action_EMPTY).toBeCloseTo(1, 12);
    expect(Object.keys(stats.action_by_level)).toEqual(['L1', 'L2', 'L3']);
    for (const [level, f] of Object.entries(stats.action_by_level)) {
      expect(f.n).toBe(episodes.filter((e) => e.problem.level === level).length);
      expect(f.DECOMPOSE + f.REWRITE + f.EMPTY).toBeCloseTo(1, 12);
    }
    expect(stats.action_invalid).toBeUndefined();
  });

  it('statistics of hand-written plans: fractions overall and per level, invalid plans counted apart', () => {
    const [p1, p2] = tinyArithProblems({ split: 'train', count: 2, seed: 1 });
    expect([p1.level, p2.level]).toEqual(['L1', 'L2']);
    const d = '{"action": "DECOMPOSE", "output": "a"}';
    const r = '{"action": "REWRITE", "output": "b"}';
    const x = '{"action": "EMPTY", "output": ""}';
    const stats = actionStats([
      episode(p1, 0, 0, [meta(d)]),
      episode(p1, 0, 1, [meta(d)]),
      episode(p1, 0, 2, [meta(x)]),
      episode(p2, 1, 0, [meta(r)]),
      episode(p2, 1, 1, [meta('{"action": "REWRITE", "out')]),
    ]);
    expect(stats).toEqual({
      action_DECOMPOSE: 0.5,
      action_REWRITE: 0.25,
      action_EMPTY: 0.25,
      action_by_level: {
        L1: { DECOMPOSE: 2 / 3, REWRITE: 0, EMPTY: 1 / 3, n: 3 },
        L2: { DECOMPOSE: 0, REWRITE: 1, EMPTY: 0, n: 1 },
      },
      action_invalid: 1,
    });
  });

  it('with the paper prompts: App. G.1.1 answer-generation message for DECOMPOSE / REWRITE, the VRP message for EMPTY', () => {
    const prompts = jsonActionPrompts(promptsFor('paper', 'single-turn', 'math'), 'paper');
    const q = 'What is 2 + 3?';
    expect(prompts.reasoningUser(q, '{"action": "REWRITE", "output": "Add 2 and 3."}')).toBe(
      jsonActionReasoningUser(q, 'Add 2 and 3.'),
    );
    expect(jsonActionReasoningUser(q, 'Add 2 and 3.')).toBe(
      'Here is the question and instructions:\nQuestion\nWhat is 2 + 3?\nProvided Instruction\nAdd 2 and 3.',
    );
    expect(prompts.reasoningUser(q, '{"action": "EMPTY", "output": ""}')).toBe(vrpUser(q));
    expect(prompts.metaUser(q)).toBe('Here is the question: What is 2 + 3?');
    expect(prompts.metaSystem).toContain('{"action": "REWRITE", "output": "{clearer question content}"}');
  });

  it('metaActions "json" is refused outside single-turn mode and on a judge task, naming the field', () => {
    expect(() => validateConfig({ metaActions: 'json' }, 'test', getPreset('tiny-default'))).toThrow(
      /field "metaActions".*needs mode "single-turn", not "multi-turn"/,
    );
    const config = getPreset('tiny-json-actions');
    const policy = policyForConfig(config, { backend: new CpuBackend(), checkpoint, decoder: tokenizer });
    const judge = tinyJudgeProblems({ split: 'train', count: 2, seed: 0 });
    expect(() =>
      createTrainer({
        config: { ...config, trainSet: 'tiny-judge', evalSet: 'tiny-judge' },
        policy,
        tokenizer,
        train: judge,
        eval: judge,
      }),
    ).toThrow(/metaActions "json" runs single-turn ReMA on a math task .* judge task/);
  });
});
