// The judge task as in the paper. With the paper's prompts the meta-thinking agent sees only the
// instruction (App. G MAMRP judge high-level prompt), the reasoning agent the instruction, both responses and the
// plan; App. C.2's consistency reward for the meta agent; judge-pair JSONL files (RewardBench970 after the paper's
// pairwise conversion, JudgeBench's own rows) read with file:line:field errors.
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../../src/data/problem.ts';
import { parseProblems } from '../../../src/data/datasets.ts';
import { tinyJudgeProblems } from '../../../src/data/tiny-task/dataset.ts';
import { reasoningFirstUserMessage, TINY_JUDGE_META_SYSTEM } from '../../../src/data/tiny-task/prompts.ts';
import { promptsFor } from '../../../src/rl/prompts/index.ts';
import * as paper from '../../../src/rl/prompts/paper.ts';
import { chatFor, type Episode, type Message } from '../../../src/rl/protocol/episode.ts';
import { consistencyMetaReward } from '../../../src/rl/rewards.ts';
import { scoreEpisodes } from '../../../src/rl/grade-in-thread.ts';
import { getPreset } from '../../../src/rl/presets.ts';

const msg = (role: Message['role'], text: string): Message => ({
  role,
  text,
  generated: 3,
  truncated: false,
  endedNormally: true,
  dummy: false,
});

describe('judge prompts', () => {
  const [problem] = tinyJudgeProblems({ split: 'train', count: 1, seed: 3 });
  const pair = problem.judge!;
  const episode: Episode = {
    problem,
    group: 0,
    sample: 0,
    kind: 'two-agent',
    finish: null,
    messages: [msg('meta', 'Check each step.'), msg('reasoning', 'B is wrong. [[A]]')],
  };

  it("the paper's prompts show the meta-thinking agent only the instruction, the reasoning agent everything", () => {
    const p = promptsFor('paper', 'single-turn', 'judge');
    const meta = chatFor(episode, 'meta', p);
    expect(meta[0]).toEqual({ role: 'system', content: paper.JUDGE_META_SYSTEM });
    expect(meta[1]).toEqual({ role: 'user', content: `[User Question] ${pair.instruction} [End of User Question]` });
    expect(meta[1].content).not.toContain(pair.responseA);
    expect(meta[1].content).not.toContain(pair.responseB);
    const reasoning = chatFor(episode, 'reasoning', p);
    expect(reasoning[1].content).toBe(paper.judgeReasoningUser(pair, 'Check each step.'));
    expect(reasoning[1].content).toContain(pair.responseA);
    expect(reasoning[1].content).toContain(pair.responseB);
    // one agent (VRP / MRP) sees the instruction and both responses in the paper's VRP user template
    const single: Episode = { ...episode, kind: 'single', messages: [] };
    expect(chatFor(single, 'reasoning', promptsFor('paper', 'vrp-rl', 'judge'))[1].content).toBe(paper.judgeUser(pair));
  });

  it('the tiny prompts also show the meta-thinking agent only the instruction, the reasoning agent everything', () => {
    const p = promptsFor('tiny', 'multi-turn', 'judge');
    const meta = chatFor(episode, 'meta', p);
    expect(meta[0]).toEqual({ role: 'system', content: TINY_JUDGE_META_SYSTEM });
    expect(meta[1]).toEqual({ role: 'user', content: pair.instruction });
    for (const m of meta) {
      expect(m.content).not.toContain(pair.responseA);
      expect(m.content).not.toContain(pair.responseB);
    }
    expect(problem.question).toContain(pair.responseA);
    // the reasoning agent's first user message: the rendered question (instruction, A, B) and the plan, as before
    const reasoning = chatFor(episode, 'reasoning', p);
    expect(reasoning[1].content).toBe(reasoningFirstUserMessage(problem.question, 'Check each step.'));
    expect(reasoning[1].content).toContain(pair.instruction);
    expect(reasoning[1].content).toContain(pair.responseA);
    expect(reasoning[1].content).toContain(pair.responseB);
    // a tiny judge problem given only as one rendered question is shown whole
    const flat: Problem = { id: 'j', task: 'judge', question: problem.question, answer: problem.answer };
    expect(chatFor({ ...episode, problem: flat }, 'meta', p)[1].content).toBe(problem.question);
  });

  it('a judge problem given only as one rendered question is shown whole', () => {
    const flat: Problem = { id: 'j', task: 'judge', question: 'Q?\nA: x\nB: y', answer: 'A' };
    expect(chatFor({ ...episode, problem: flat }, 'meta', promptsFor('paper', 'single-turn', 'judge'))[1].content).toBe(
      flat.question,
    );
  });
});

describe('consistency reward (App. C.2)', () => {
  it('share of the most frequent answer; 0 when that is no answer; -1 for a leak', () => {
    expect(consistencyMetaReward(['5', '5', '6', undefined], false)).toBe(0.5);
    expect(consistencyMetaReward([undefined, undefined, '5'], false)).toBe(0);
    // a tie between an answer and no answer: no definitive majority
    expect(consistencyMetaReward(['5', undefined], false)).toBe(0);
    expect(consistencyMetaReward(['A', 'A', 'A', 'B'], true)).toBe(-0.25);
  });

  it("rewards the meta agent of a single-turn group by its followers' agreement (judge verdicts), the reasoning agent by the base reward", () => {
    const [problem] = tinyJudgeProblems({ split: 'train', count: 1, seed: 3 });
    const wrong = problem.answer === 'A' ? 'B' : 'A';
    const texts = [`[[${wrong}]]`, `so [[${wrong}]]`, `[[${problem.answer}]]`, 'no verdict'];
    const eps: Episode[] = texts.map((t, sample) => ({
      problem,
      group: 0,
      sample,
      kind: 'two-agent',
      finish: 'finished',
      messages: [msg('meta', 'Check.'), msg('reasoning', t)],
    }));
    const config = { ...getPreset('rema-singleturn'), singleTurnReward: 'consistency' as const };
    const scored = scoreEpisodes(config, eps, true);
    // two of four agree on the (wrong) verdict: consistency 0.5, although only one is right
    for (const s of scored) expect(s.reward.meta).toBe(0.5);
    expect(scored.map((s) => s.reward.reasoning)).toEqual([-0.5, -0.5, 1, -1]);
    expect(scoreEpisodes({ ...config, singleTurnReward: 'base' }, eps, true)[0].reward.meta).toBe(0.25);
  });
});

describe('judge-pair JSONL', () => {
  const rows = [
    { instruction: 'Name a prime.', response_a: '4', response_b: '7', label: 'B', subset: 'math-prm' },
    { question: 'Sum 2 and 2.', response_A: '4', response_B: '5', label: 'A>B', pair_id: 'jb-1', source: 'mmlu-pro' },
  ];
  it("reads our layout and JudgeBench's, keeping the parts", () => {
    const [rb, jb] = parseProblems(rows.map((r) => JSON.stringify(r)).join('\n'), 'pairs.jsonl');
    expect(rb).toMatchObject({
      id: 'pairs:1',
      task: 'judge',
      answer: 'B',
      subject: 'math-prm',
      judge: { instruction: 'Name a prime.', responseA: '4', responseB: '7' },
    });
    expect(rb.question).toContain("[The Start of Assistant B's Answer]\n7\n");
    expect(jb).toMatchObject({
      id: 'jb-1',
      answer: 'A',
      subject: 'mmlu-pro',
      judge: { instruction: 'Sum 2 and 2.', responseA: '4', responseB: '5' },
    });
  });

  it('names the file, line and field of a bad row', () => {
    const bad = (row: object) => () =>
      parseProblems([JSON.stringify(rows[0]), JSON.stringify(row)].join('\n'), 'pairs.jsonl');
    expect(bad({ ...rows[0], label: 'C' })).toThrow(
      /pairs\.jsonl:2: field "label" must name the better response: "A" or "B" \(JudgeBench: "A>B" or "B>A"\), got "C"/,
    );
    expect(bad({ ...rows[1], label: 'A=B' })).toThrow(/pairs\.jsonl:2: field "label" .*got "A=B"/);
    expect(bad({ ...rows[0], response_b: '' })).toThrow(
      /pairs\.jsonl:2: field "response_b" must be a non-empty string/,
    );
    expect(bad({ response_A: 'x', response_B: 'y', label: 'A' })).toThrow(
      /pairs\.jsonl:2: field "question" must be a non-empty string/,
    );
  });
});
