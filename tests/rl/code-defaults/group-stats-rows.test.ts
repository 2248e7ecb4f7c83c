// The ReMA code computes GRPO statistics over every trajectory's rows (ray_trainer merges the MTA
// and RA rows of all trajectories; compute_grpo_outcome_advantage groups them by uid), so an RA row without a
// trainable token (its only message is the dummy after a truncated first MTA message) still counts with score 0.
// Hand-built episodes, the real tokenizer, encoder, verifier, reward rule and advantage estimator; the reference
// is a port of compute_grpo_outcome_advantage (torch.std: unbiased; eps 1e-6).
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../../src/data/problem.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { promptsFor } from '../../../src/rl/prompts/index.ts';
import type { Episode, Message } from '../../../src/rl/protocol/episode.ts';
import { scoreEpisodes } from '../../../src/rl/grade-in-thread.ts';
import { assignAdvantages, buildRows } from '../../../src/rl/train/rows.ts';
import { validateConfig } from '../../../src/rl/config.ts';
import { tinyTokenizer } from '../../helpers/rl/tiny-tokenizer.ts';

const tok = tinyTokenizer();
const prompts = promptsFor('tiny', 'multi-turn', 'math');
const problem: Problem = { id: 'p', task: 'math', question: 'What is 2+3?', answer: '5' };
const msg = (role: Message['role'], text: string, over: Partial<Message> = {}): Message => ({
  role,
  text,
  generated: 3,
  truncated: false,
  endedNormally: true,
  dummy: false,
  ...over,
});

/** 4 episodes of one problem: correct, correct, wrong, and MTA truncated at turn 1 (dummy RA: no RA token) */
function episodes(): Episode[] {
  const done = (answer: string): Episode => ({
    problem,
    group: 0,
    sample: 0,
    kind: 'two-agent',
    finish: 'finished',
    messages: [msg('meta', 'Add them. [FINISH]'), msg('reasoning', `2 + 3 = \\boxed{${answer}}`)],
  });
  const cut: Episode = {
    problem,
    group: 0,
    sample: 3,
    kind: 'two-agent',
    finish: 'stop_when_truncated',
    messages: [
      msg('meta', 'Add the', { truncated: true, endedNormally: false }),
      msg('reasoning', '', { generated: 0, endedNormally: false, dummy: true }),
    ],
  };
  return [done('5'), done('5'), done('6'), cut];
}

/** port of verl compute_grpo_outcome_advantage for one group: (r - mean) / (std_unbiased + eps) */
function codeGrpo(scores: number[]): number[] {
  const n = scores.length;
  const mean = scores.reduce((a, b) => a + b, 0) / n;
  const std = Math.sqrt(scores.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  return scores.map((s) => (s - mean) / (std + 1e-6));
}

function advantages(groupStatsRows: 'all' | 'trained') {
  const config = { ...getPreset('rema-multiturn'), groupStatsRows };
  const scored = scoreEpisodes(config, episodes(), false);
  const rows = buildRows(
    tok,
    prompts,
    scored,
    ['meta', 'reasoning'],
    () => true,
    () => 'shared',
    groupStatsRows === 'all',
  );
  assignAdvantages(rows, config);
  const of = (role: string) =>
    rows
      .filter((r) => r.role === role)
      .map((r) => ({ episode: r.episode, tokens: r.positions.length, advantage: r.advantage }));
  return { meta: of('meta'), reasoning: of('reasoning') };
}

describe('groupStatsRows', () => {
  it('"all" (code default): the RA row without trained tokens counts with score 0, so the RA group has 4 rows', () => {
    const { meta, reasoning } = advantages('all');
    expect(reasoning.map((r) => r.tokens > 0)).toEqual([true, true, true, false]);
    const ref = codeGrpo([1, 1, 0, 0]);
    reasoning.forEach((r, i) => expect(r.advantage).toBeCloseTo(ref[i], 12));
    // the MTA rows all have tokens (a truncated message is trained, without its end token): same as the RA reference
    meta.forEach((r, i) => expect(r.advantage).toBeCloseTo(ref[i], 12));
  });

  it('"trained" (earlier behaviour): the empty row is dropped, the RA group shrinks to 3 and its advantages change', () => {
    const { meta, reasoning } = advantages('trained');
    expect(reasoning.length).toBe(3);
    const ref = codeGrpo([1, 1, 0]);
    reasoning.forEach((r, i) => expect(r.advantage).toBeCloseTo(ref[i], 12));
    expect(reasoning[0].advantage).not.toBeCloseTo(codeGrpo([1, 1, 0, 0])[0], 3);
    expect(meta.length).toBe(4);
  });

  it('is "all" in rema-multiturn, "trained" in tiny-default (recorded runs) and in configs saved before it', () => {
    expect(getPreset('rema-multiturn').groupStatsRows).toBe('all');
    expect(getPreset('tiny-default').groupStatsRows).toBe('trained');
    const { groupStatsRows: _dropped, ...old } = getPreset('rema-multiturn');
    expect(validateConfig(old, 'old config.json').groupStatsRows).toBe('trained');
  });
});
