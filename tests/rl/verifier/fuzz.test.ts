// Seeded fuzzing of verifyMath: random soups of LaTeX tokens (braces, boxes, powers, factorials, sets,
// intervals, text) must never throw, must always return a known reason, and must finish within the budget.
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyMath } from '../../../src/rl/verifier/index.ts';
import { Rng } from '../../../src/util/rng.ts';

const TOKENS = [
  '\\boxed{',
  '\\fbox{',
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  '\\{',
  '\\}',
  ',',
  ' and ',
  ' or ',
  '=',
  '<',
  '\\le',
  '+',
  '-',
  '\\cdot',
  '^',
  '^{',
  '_',
  '!',
  '\\frac',
  '\\dfrac',
  '\\sqrt',
  '\\sqrt[3]',
  '\\pi',
  'e',
  'i',
  'x',
  'y',
  '\\infty',
  '\\cup',
  '\\pm',
  '\\%',
  '%',
  '^\\circ',
  '\\text{',
  'cm',
  '$',
  '$$',
  '\\(',
  '\\)',
  '\\[',
  '\\]',
  '9',
  '0',
  '1',
  '12',
  '3.5',
  '1,000',
  '.',
  '\\left(',
  '\\right)',
  '\\begin{pmatrix}',
  '\\end{pmatrix}',
  '&',
  '\\\\',
  'final answer is ',
  'Answer: ',
  'I hope',
  '\\approx',
  '\\in',
  '\\emptyset',
  '\\ln',
  '\\sin',
  '\\log_',
  '\\binom',
  '9^{9^{9}}',
  ' ',
];
const REASONS = new Set([
  'equal',
  'not-equal',
  'no-answer',
  'unparsable-answer',
  'conflicting-answers',
  'bad-gold',
  'timeout',
  'too-long',
]);
const BUDGET_MS = 500;

function soup(rng: Rng, maxTokens: number): string {
  const n = rng.int(1, maxTokens);
  let s = '';
  for (let i = 0; i < n; i++) s += rng.pick(TOKENS);
  return s;
}

describe('verifyMath fuzzing', () => {
  beforeAll(() => {
    verifyMath('1', '\\boxed{1}');
  });

  it('never throws and always answers within the budget on 400 random inputs', () => {
    const rng = new Rng(20_251_130);
    let slowest = 0;
    for (let k = 0; k < 400; k++) {
      const gold = soup(rng, 6);
      const pred = soup(rng, 40);
      const t0 = performance.now();
      const r = verifyMath(gold, pred, { timeoutMs: BUDGET_MS });
      slowest = Math.max(slowest, performance.now() - t0);
      expect(REASONS.has(r.reason), `${r.reason} for ${JSON.stringify([gold, pred])}`).toBe(true);
      expect(typeof r.correct).toBe('boolean');
    }
    expect(slowest).toBeLessThan(BUDGET_MS + 1_500);
  });

  it('random expressions equal themselves and differ from themselves plus one', () => {
    const rng = new Rng(7);
    const expr = (depth: number): string => {
      if (depth === 0 || rng.next() < 0.3)
        return rng.pick(['2', '3', '7', '\\pi', 'x', 'y', '\\frac{1}{2}', '0.25', '\\sqrt{2}']);
      const a = expr(depth - 1);
      const b = expr(depth - 1);
      return rng.pick([
        `${a}+${b}`,
        `${a}-${b}`,
        `${a}\\cdot ${b}`,
        `\\frac{${a}}{${b}}`,
        `\\sqrt{${a}}`,
        `(${a})^{2}`,
        `\\left(${a}\\right)`,
      ]);
    };
    let checked = 0;
    for (let k = 0; k < 150; k++) {
      const gold = expr(3);
      const same = verifyMath(gold, `\\boxed{${gold}}`, { timeoutMs: BUDGET_MS });
      if (same.reason === 'bad-gold') continue;
      expect(same.correct, JSON.stringify(gold)).toBe(true);
      expect(verifyMath(gold, `\\boxed{${gold}+1}`, { timeoutMs: BUDGET_MS }).correct, JSON.stringify(gold)).toBe(
        false,
      );
      checked++;
    }
    expect(checked).toBeGreaterThan(120);
  });
});
