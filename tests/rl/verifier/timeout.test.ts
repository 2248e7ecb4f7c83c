// Pathological inputs must score false within the per-check budget and never hang the trainer:
// exponent towers, giant factorials, 10^6-character strings, deep nesting, regex-hostile repetitions.
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyMath } from '../../../src/rl/verifier/index.ts';

const BUDGET_MS = 1_000;
// Wall-clock bound per check: the budget plus slack for a loaded 2-core CI machine.
const WALL_LIMIT_MS = 2_500;

function timed(gold: string, pred: string): { correct: boolean; reason: string; ms: number } {
  const t0 = performance.now();
  const r = verifyMath(gold, pred, { timeoutMs: BUDGET_MS });
  return { correct: r.correct, reason: r.reason, ms: performance.now() - t0 };
}

describe('verifyMath on pathological inputs', () => {
  beforeAll(() => {
    verifyMath('1', '\\boxed{1}'); // library warm-up happens once, outside any budget
  });

  const hostile: Array<[string, string, string]> = [
    ['exponent tower in the prediction', '5', '\\boxed{9^{9^{9^{9}}}}'],
    ['exponent tower as gold and prediction', '9^{9^{9^{9}}}', '\\boxed{9^{9^{9^{9}}}}'],
    ['power of a power of ten', '5', '\\boxed{10^{10^{10}}}'],
    ['2^2^2^2^2^2', '2', '\\boxed{2^{2^{2^{2^{2^{2}}}}}}'],
    ['giant factorial', '5', '\\boxed{(10^{10})!}'],
    ['large factorial', '5', '\\boxed{100000!}'],
    ['10^6 characters then a box', '5', `${'a'.repeat(1_000_000)}\\boxed{5}`],
    ['10^6 opening braces', '5', '{'.repeat(1_000_000)],
    ['10^6 digits', '5', '7'.repeat(1_000_000)],
    ['many dollar signs', '5', '$'.repeat(99_990)],
    ['many \\( openers', '5', '\\('.repeat(49_990)],
    ['many \\[ openers', '5', '\\['.repeat(49_990)],
    ['digits then a letter', '5', `${'1'.repeat(99_990)}a`],
    ['comma list of ones', '5', '1,'.repeat(49_990)],
    ['repeated anchors', '5', 'final answer is '.repeat(6_000)],
    ['unclosed nested boxes', '5', '\\boxed{'.repeat(14_000)],
    ['thousands of boxes', '5', '\\boxed{1}'.repeat(11_000)],
    ['long sum', '5', `\\boxed{${'1+'.repeat(700)}1}`],
    ['deep roots', '5', `\\boxed{${'\\sqrt{'.repeat(39)}2${'}'.repeat(39)}}`],
    ['deep parentheses beyond the cap', '5', `\\boxed{${'('.repeat(5_000)}1${')'.repeat(5_000)}}`],
    ['tower of variables', 'x', `\\boxed{${'x^{'.repeat(30)}2${'}'.repeat(30)}}`],
    ['nested powers of polynomials', '5', `\\boxed{${'(x+'.repeat(35)}1${')^{9}'.repeat(35)}}`],
    ['high power of a polynomial', '0', '\\boxed{(x+1)^{200}-(x-1)^{200}}'],
    ['complex tower', '5', '\\boxed{i^{i^{i^{i}}}}'],
    // finite sums and products: the engine's simplify evaluated them term by term, for minutes
    ['a sum to 10^9', '5', '\\boxed{\\sum_{k=1}^{10^{9}} k}'],
    ['a sum to 10^9 as the gold', '\\sum_{k=1}^{10^{9}} k', '\\boxed{5}'],
    ['a sum of squares to 10^6', '5', '\\boxed{\\sum_{k=1}^{1000000} k^2}'],
    ['a product to 10^5', '5', '\\boxed{\\prod_{k=1}^{100000} k}'],
    ['a product to 10^9', '5', '\\boxed{\\prod_{k=1}^{10^9} \\left(1+\\frac{1}{k}\\right)}'],
    ['a sum of a million sines', '5', '\\boxed{\\sum_{k=1}^{10^{6}} \\sin(k)}'],
    ['a huge binomial', '5', '\\boxed{\\binom{10^9}{5 \\cdot 10^8}}'],
    ['a factorial of a million as the gold', '1000000!', '\\boxed{1000000!}'],
  ];

  it.each(hostile)('%s scores false within the limit', (_name, gold, pred) => {
    const r = timed(gold, pred);
    expect(r.correct).toBe(false);
    expect(r.ms).toBeLessThan(WALL_LIMIT_MS);
  });

  it('still verifies big but sane answers exactly', () => {
    const r = timed('3000!', '\\boxed{3000!}');
    expect(r.correct).toBe(true);
    expect(timed('2^{100}', '\\boxed{1267650600228229401496703205376}').correct).toBe(true);
    expect(timed('2^{100}', '\\boxed{1267650600228229401496703205377}').correct).toBe(false);
    expect(timed('(x+1)^{1000}', '\\boxed{(1+x)^{1000}}').correct).toBe(true);
    expect(timed('5050', '\\boxed{\\sum_{k=1}^{100} k}').correct).toBe(true);
    expect(timed('5051', '\\boxed{\\sum_{k=1}^{100} k}').correct).toBe(false);
    expect(timed('120', '\\boxed{\\prod_{k=1}^{5} k}').correct).toBe(true);
  });

  it('reports a timeout (not an exception) when the budget is already spent', () => {
    const r = verifyMath('x^2-1', '\\boxed{(x-1)(x+1)}', { timeoutMs: 0 });
    expect(r).toMatchObject({ correct: false, reason: 'timeout' });
  });

  it('rejects responses above the length cap without looking at them', () => {
    const r = verifyMath('5', `${' '.repeat(200_000)}\\boxed{5}`, { timeoutMs: BUDGET_MS });
    expect(r).toMatchObject({ correct: false, reason: 'too-long' });
  });
});
