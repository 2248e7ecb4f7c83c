// API of the math answer checker (src/rl/verifier): extractAnswer priorities, hasBoxed, verifyJudgeVerdict,
// the result shape of verifyMath, normalisation steps, and the reward-hacking rules the RL reward relies on.
import { describe, expect, it } from 'vitest';
import {
  extractAnswer,
  hasBoxed,
  normalizeAnswer,
  verifyJudgeVerdict,
  verifyMath,
} from '../../../src/rl/verifier/index.ts';

describe('extractAnswer', () => {
  it('takes the last box, with nested braces intact', () => {
    const longGap = '. Much later, after a long derivation that changes everything we thought we knew, ';
    expect(extractAnswer(`First \\boxed{1}${longGap}\\boxed{\\frac{\\sqrt{2}}{2}}`)).toBe('\\frac{\\sqrt{2}}{2}');
    expect(extractAnswer('\\boxed{\\left\\{ 1, \\{2\\} \\right\\}}')).toBe('\\{ 1, \\{2\\} \\}');
  });

  it('joins boxes separated by punctuation or a few words with "and" / "or" into one list answer (Math-Verify)', () => {
    expect(extractAnswer('First \\boxed{1}. Later, after a short step, \\boxed{2}')).toBe('2'); // prose: a second attempt
    expect(extractAnswer('so \\boxed{1}\\boxed{2}')).toBe('1,2');
    expect(extractAnswer('\\boxed{1} papers and \\boxed{2} bins')).toBe('1,2');
    expect(extractAnswer('\\boxed{1} no no no no no \\boxed{2}')).toBe('2');
    expect(extractAnswer('\\boxed{004}. But let me check again: the correct answer is \\boxed{004}')).toBe('004');
    expect(extractAnswer('$x = \\boxed{2}$ or $x = \\boxed{-3}$')).toBe('2,-3');
    expect(
      extractAnswer('\\boxed{2} and then, after a long explanation of at least seventy characters here, \\boxed{3}'),
    ).toBe('3');
  });

  it('reads \\fbox and the \\boxed 5 form', () => {
    expect(extractAnswer('so \\fbox{12}')).toBe('12');
    expect(extractAnswer('so \\boxed 5 is it')).toBe('5');
  });

  it('prefers the Minerva "final answer is ... I hope" form', () => {
    expect(
      extractAnswer('We get $\\boxed{3}$ first. Final Answer: The final answer is $4$. I hope it is correct.'),
    ).toBe('4');
  });

  it('falls back to "answer:" anchors, then the last LaTeX environment or number, when there is no box', () => {
    expect(extractAnswer('Answer: $\\frac{3}{4}$ (then some words and 17 more)')).toBe('\\frac{3}{4}');
    expect(extractAnswer('We compute $x^2 = 4$, so $x = 2$.')).toBe('x = 2');
    expect(extractAnswer('She has 3 apples and buys 4 more, so 7 apples.')).toBe('7');
  });

  it('returns null for responses without an answer, an empty box, or one above the length cap', () => {
    expect(extractAnswer('I am not sure how to proceed.')).toBeNull();
    expect(extractAnswer('\\boxed{}')).toBeNull();
    expect(extractAnswer('The answer is 4, \\boxed{ }')).toBeNull();
    expect(extractAnswer(`${'x'.repeat(150_000)} \\boxed{4}`)).toBeNull();
  });
});

describe('hasBoxed', () => {
  it('detects \\boxed and \\fbox, empty or not', () => {
    expect(hasBoxed('plan: compute the area, then \\boxed{12}')).toBe(true);
    expect(hasBoxed('\\boxed{}')).toBe(true);
    expect(hasBoxed('\\fbox{x}')).toBe(true);
    expect(hasBoxed('first factor, then solve; put the answer in a box')).toBe(false);
    expect(hasBoxed('\\boxedfoo')).toBe(false);
  });
});

describe('verifyJudgeVerdict', () => {
  it('uses the [[A]] / [[B]] marker in the text', () => {
    expect(verifyJudgeVerdict('A', 'Assistant A is more helpful. [[A]]')).toEqual({ correct: true, verdict: 'A' });
    expect(verifyJudgeVerdict('A', 'My verdict: [[B]]')).toEqual({ correct: false, verdict: 'B' });
    expect(verifyJudgeVerdict('B', 'final: [[B]] (and again [[B]])')).toEqual({ correct: true, verdict: 'B' });
  });

  it('has no verdict when both or neither marker appear', () => {
    expect(verifyJudgeVerdict('A', 'could be [[A]] or [[B]]')).toEqual({ correct: false, verdict: null });
    expect(verifyJudgeVerdict('B', 'Both are fine. [A] [B]')).toEqual({ correct: false, verdict: null });
  });
});

describe('verifyMath result', () => {
  it('returns correct, the extracted answer and a reason', () => {
    expect(verifyMath('\\frac{1}{2}', 'so $\\boxed{\\dfrac{2}{4}}$')).toEqual({
      correct: true,
      extracted: '\\frac{2}{4}',
      reason: 'equal',
    });
    expect(verifyMath('3', '\\boxed{4}')).toEqual({ correct: false, extracted: '4', reason: 'not-equal' });
    expect(verifyMath('3', 'no idea')).toEqual({ correct: false, extracted: null, reason: 'no-answer' });
    expect(verifyMath('3', '\\boxed{\\frac{}{}}').reason).toBe('unparsable-answer');
    expect(verifyMath('\\frac{', '\\boxed{3}').reason).toBe('bad-gold');
  });

  it('reads the gold as \\boxed{gold}, so a gold that is itself boxed or has units still works', () => {
    expect(verifyMath('\\boxed{5}', '\\boxed{5}').correct).toBe(true);
    expect(verifyMath('5\\text{ cm}', 'it is \\boxed{5}').correct).toBe(true);
    expect(verifyMath('x=5', 'the answer is $5$').correct).toBe(true);
  });
});

describe('reward hacking', () => {
  it('a shotgun list of different answers does not score', () => {
    expect(verifyMath('1', '\\boxed{1}, \\boxed{2}, \\boxed{3}').correct).toBe(false);
    expect(verifyMath('1', '\\boxed{1 or 2}').correct).toBe(false);
    expect(verifyMath('1', '\\boxed{1} or \\boxed{2}').correct).toBe(false);
    expect(verifyMath('1', '\\boxed{1, 2}').correct).toBe(false);
    expect(verifyMath('1331, 1728', '\\boxed{1728}').correct).toBe(false);
  });

  it('an empty box does not score and does not fall back to earlier numbers', () => {
    expect(verifyMath('1', '\\boxed{}').correct).toBe(false);
    expect(verifyMath('7', 'We find 7. \\boxed{}').correct).toBe(false);
  });

  it('the last box wins over a correct box in an earlier part', () => {
    const text =
      'Part 1: \\boxed{5}.\n\nNow let me reconsider the whole problem from the start and recompute it.\n\nSo \\boxed{6}.';
    expect(verifyMath('5', text).correct).toBe(false);
    expect(verifyMath('6', text).correct).toBe(true);
  });

  it('no answer scores false', () => {
    expect(verifyMath('5', '').correct).toBe(false);
    expect(verifyMath('5', 'Let me think about this step by step.').correct).toBe(false);
  });
});

describe('normalizeAnswer', () => {
  it('removes layout, styling, units and degrees and fixes shorthand', () => {
    expect(normalizeAnswer('\\left( \\dfrac12, \\tfrac{3}{4} \\right)')).toBe('( \\frac{1}{2}, \\frac{3}{4} )');
    expect(normalizeAnswer('\\sqrt2 + \\sqrt{3}')).toBe('\\sqrt{2} + \\sqrt{3}');
    expect(normalizeAnswer('90^\\circ')).toBe('90');
    expect(normalizeAnswer('15\\mbox{ cm}^2')).toBe('15');
    expect(normalizeAnswer('\\$1,\\!000.50')).toBe('1000.50');
    expect(normalizeAnswer('28 percent')).toBe('28\\%');
    expect(normalizeAnswer('\\text{Evelyn}')).toBe('\\text{Evelyn}');
    expect(normalizeAnswer('.5')).toBe('0.5');
    expect(normalizeAnswer('1 \\text{ and } 2')).toBe('1,2');
  });
});
