// Each agent's turn is trained on the token ids it sampled, not on a re-tokenisation of the decoded text, and its
// later prompts carry the same ids (protocol/encode.ts, Message.ids). The embedded model's tokenizer has merges, so
// ids sampled one character at a time decode to a text whose encoding is different, shorter ids: a trainer that
// re-tokenised would train those instead. Checked on the real engine (a random model sampling over the whole
// vocabulary, single agent) and on the multi-turn protocol with replies whose ids are fixed (a random model cannot
// be made to say [FINISH] on cue): a plan cut after [FINISH] trains the ids up to it, a reasoning answer with
// [FINISH] removed trains the prefix of its ids that decodes to the kept text.
import { describe, expect, it } from 'vitest';
import type { Generation } from '../../../src/engine/policy/policy.ts';
import type { Problem } from '../../../src/data/problem.ts';
import type { AgentRole } from '../../../src/rl/config.ts';
import { promptsFor } from '../../../src/rl/prompts/index.ts';
import type { Episode } from '../../../src/rl/protocol/episode.ts';
import {
  multiTurnRollout,
  sampledIds,
  singleAgentRollout,
  type RolloutSettings,
} from '../../../src/rl/protocol/rollout.ts';
import type { ScoredEpisode } from '../../../src/rl/train/episodes.ts';
import { buildRows, type TrainRow } from '../../../src/rl/train/rows.ts';
import { makePolicy, smallConfig } from '../../helpers/rl/trainer-setup.ts';
import { tinyTokenizer } from '../../helpers/rl/tiny-tokenizer.ts';
import { scriptedPolicy } from '../../helpers/rl/scripted-policy.ts';

const tok = tinyTokenizer();
const problem: Problem = {
  id: 'p0',
  task: 'math',
  question: 'Ann has 3 apples and buys 2 more. How many?',
  answer: '5',
};
const sampling = { temperature: 1, topP: 1, topK: 0, seed: 7 };

/** `text` sampled one character at a time (ids the tokenizer's merges would never give) */
const perChar = (text: string): number[] => [...text].flatMap((c) => tok.encode(c));

const episodes = (n: number, kind: Episode['kind']): Episode[] =>
  Array.from({ length: n }, (_, i) => ({ problem, group: 0, sample: i, kind, messages: [], finish: null }));

function rowsOf(eps: readonly Episode[], roles: readonly AgentRole[], mode: 'multi-turn' | 'vrp-rl'): TrainRow[] {
  const scored = eps.map((episode) => ({ episode, reward: { meta: 1, reasoning: 1 } }) as unknown as ScoredEpisode);
  return buildRows(
    tok,
    promptsFor('tiny', mode, 'math'),
    scored,
    roles,
    () => true,
    () => 'shared',
  );
}

/** The ids trained in turn `k` of `row`, without the end-of-turn token trained after a finished message. */
function trainedIds(row: TrainRow, k: number, endedNormally: boolean): number[] {
  const ids = row.positions.filter((_, j) => row.turns[j] === k).map((p) => row.tokens[p]);
  if (endedNormally) expect(ids.pop()).toBe(tok.endOfTurnTokenId);
  return ids;
}

const settings = (over: Partial<RolloutSettings>): RolloutSettings =>
  ({
    tokenizer: tok,
    adapterFor: () => 'shared',
    maxTurns: 3,
    maxTokensPerTurn: 40,
    maxPromptTokens: 400,
    maxContext: 512,
    stopWhenTruncated: true,
    ...over,
  }) as RolloutSettings;

describe('training on the sampled ids', () => {
  it('a random model (real engine, single agent): the trained ids are the sampled ids', async () => {
    const config = smallConfig('vrp-rl', { maxTokensPerTurn: 24 });
    const policy = makePolicy(config);
    const sampled: Generation[] = [];
    const generate = policy.generate.bind(policy);
    policy.generate = async (requests, s, onProgress) => {
      const out = await generate(requests, s, onProgress);
      sampled.push(...out);
      return out;
    };
    const eps = episodes(6, 'single');
    await singleAgentRollout(
      settings({ policy, prompts: promptsFor('tiny', 'vrp-rl', 'math'), maxTokensPerTurn: 24 }),
      eps,
      sampling,
    );
    const rows = rowsOf(eps, ['reasoning'], 'vrp-rl');
    expect(rows.length).toBe(6);
    let differ = 0;
    rows.forEach((row, i) => {
      const g = sampled[i];
      expect(trainedIds(row, 0, g.finish !== 'length')).toEqual(g.tokens);
      if (JSON.stringify(tok.encode(tok.decode(g.tokens))) !== JSON.stringify(g.tokens)) differ += 1;
    });
    // the check means something: re-tokenising these texts gives other ids
    expect(differ).toBeGreaterThan(0);
    policy.dispose();
  });

  it('multi-turn: each agent trains the ids it sampled, cut at [FINISH], and its next prompt carries them', async () => {
    const texts = [
      'Add the two numbers.',
      'The sum is 5 apples',
      'Confirm the answer. [FINISH] trailing',
      'The answer is \\boxed{5} [FINISH]',
    ];
    for (const t of texts) expect(perChar(t)).not.toEqual(tok.encode(t));
    const policy = scriptedPolicy(tok, [
      [{ text: texts[0], tokens: perChar(texts[0]), finish: 'stop_token' }],
      [{ text: texts[1], tokens: perChar(texts[1]) }],
      [{ text: texts[2], tokens: perChar(texts[2]), finish: 'stop_string' }],
      [{ text: texts[3], tokens: perChar(texts[3]), finish: 'stop_string' }],
    ]);
    const [e] = episodes(1, 'two-agent');
    await multiTurnRollout(settings({ policy, prompts: promptsFor('tiny', 'multi-turn', 'math') }), [e], {
      meta: sampling,
      reasoning: sampling,
    });
    expect(e.finish).toBe('finished');
    const [meta, reasoning] = rowsOf([e], ['meta', 'reasoning'], 'multi-turn');
    expect(trainedIds(meta, 0, true)).toEqual(perChar('Add the two numbers.'));
    expect(trainedIds(meta, 1, true)).toEqual(perChar('Confirm the answer. [FINISH]'));
    expect(trainedIds(reasoning, 0, true)).toEqual(perChar('The sum is 5 apples'));
    expect(trainedIds(reasoning, 1, true)).toEqual(perChar('The answer is \\boxed{5}'));
    // the meta agent's second prompt holds its first plan as sampled
    const prompt = policy.calls[2].requests[0].prompt.join(',');
    expect(prompt).toContain(perChar('Add the two numbers.').join(','));
    expect(prompt).not.toContain(tok.encode('Add the two numbers.').join(','));
  });

  it('sampledIds: the whole generation, the prefix that decodes to a cut text, or none for a changed text', () => {
    const ids = perChar('plan [FINISH] more');
    const g: Generation = { tokens: ids, logprobs: [], text: tok.decode(ids), finish: 'stop_string' };
    expect(sampledIds(g.text, g, tok)).toEqual(ids);
    expect(sampledIds('plan [FINISH]', g, tok)).toEqual(perChar('plan [FINISH]'));
    expect(sampledIds('plan more', g, tok)).toBeUndefined();
  });
});
