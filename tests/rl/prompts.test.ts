// The paper's prompts byte for byte where the bytes matter (trailing spaces, final newline, literal \boxed{{}}),
// and the selection of prompt texts per prompt set, mode and task.
import { describe, expect, it } from 'vitest';
import * as paper from '../../src/rl/prompts/paper.ts';
import { promptsFor } from '../../src/rl/prompts/index.ts';
import { TINY_META_SYSTEM, TINY_MRP_SYSTEM } from '../../src/data/tiny-task/prompts.ts';

describe('paper prompts', () => {
  it('multi-turn MTA prompt: trailing space after "e.g.", one bullet per line, final newline', () => {
    const lines = paper.MULTI_TURN_META_SYSTEM.split('\n');
    expect(lines[0].endsWith('what to do next: e.g. ')).toBe(true);
    expect(lines.slice(1, 7).every((l) => l.startsWith('- '))).toBe(true);
    expect(lines[6]).toBe('- Finally confirm the answer with the tag [FINISH]');
    expect(lines[7]).toBe('');
    expect(lines.length).toBe(8);
  });
  it('multi-turn RA prompt: literal \\boxed{}, no final period', () => {
    expect(paper.MULTI_TURN_REASONING_SYSTEM.endsWith('put your answer within \\boxed{}')).toBe(true);
    expect(paper.MULTI_TURN_REASONING_SYSTEM.includes('\\\\')).toBe(false);
  });
  it('single-turn code prompts keep their quirks: a trailing space on line 1, the unformatted \\boxed{{}}', () => {
    expect(paper.SINGLE_TURN_CODE_META_SYSTEM.split('\n')[0].endsWith('step-by-step. ')).toBe(true);
    expect(paper.SINGLE_TURN_CODE_META_SYSTEM.endsWith('output your final instruction.')).toBe(true);
    expect(paper.SINGLE_TURN_CODE_REASONING_SYSTEM.endsWith('within \\boxed{{}}.')).toBe(true);
    expect(paper.SINGLE_TURN_PAPER_REASONING_SYSTEM.endsWith('within \\boxed{}.')).toBe(true);
    expect(paper.VRP_CODE_SYSTEM).toBe(
      'You are a math expert tasked with solving problems step by step. \nPresent the final answer within \\boxed{}.',
    );
  });
  it('user-message formats', () => {
    expect(paper.codeReasoningFirstUser('Q?', 'Plan.')).toBe('Question:\nQ?\n\nInstruction:\nPlan.');
    expect(paper.paperMetaUser('Q?')).toBe('Here is the question:\nQ?');
    expect(paper.mrpUser('Q?')).toBe('Here is the question: Q?');
    expect(paper.judgeReasoningUser({ instruction: 'I', responseA: 'a', responseB: 'b' }, 'P')).toBe(
      "[User Question]\nI\n[End of User Question]\n[The Start of Assistant A's Answer]\na\n[The End of Assistant A's Answer]\n" +
        "[The Start of Assistant B's Answer]\nb\n[The End of Assistant B's Answer]\n[The Start of Evaluation Plan]\nP\n[The End of Evaluation Plan]",
    );
    expect(paper.JUDGE_VRP_SYSTEM.endsWith('"[[A]]" if assistant A is better, "[[B]]" if assistant B is better.')).toBe(
      true,
    );
  });
});

describe('promptsFor', () => {
  it('multi-turn uses the code prompts for both the paper and code sets', () => {
    for (const set of ['paper', 'code'] as const) {
      const p = promptsFor(set, 'multi-turn', 'math');
      expect(p.metaSystem).toBe(paper.MULTI_TURN_META_SYSTEM);
      expect(p.metaUser('Q')).toBe('Q');
      expect(p.reasoningUser('Q', 'M')).toBe('Question:\nQ\n\nInstruction:\nM');
    }
  });
  it('single-turn: the paper set uses App. G.1.2, the code set single_turn_mamrp.py', () => {
    expect(promptsFor('paper', 'single-turn', 'math').reasoningSystem).toBe(paper.SINGLE_TURN_PAPER_REASONING_SYSTEM);
    expect(promptsFor('paper', 'single-turn', 'math').metaUser('Q')).toBe('Here is the question:\nQ');
    expect(promptsFor('code', 'single-turn', 'math').reasoningSystem).toBe(paper.SINGLE_TURN_CODE_REASONING_SYSTEM);
  });
  it('baselines and the tiny set', () => {
    expect(promptsFor('paper', 'mrp-rl', 'math').singleSystem).toBe(paper.MRP_PAPER_SYSTEM);
    expect(promptsFor('paper', 'vrp', 'math').singleUser('Q')).toBe('Here is the question:\nQ');
    expect(promptsFor('paper', 'vrp-rl', 'judge').singleSystem).toBe(paper.JUDGE_VRP_SYSTEM);
    expect(promptsFor('tiny', 'multi-turn', 'math').metaSystem).toBe(TINY_META_SYSTEM);
    expect(promptsFor('tiny', 'mrp-rl', 'math').singleSystem).toBe(TINY_MRP_SYSTEM);
  });
});
