// Reward-hacking forms the checker refuses, each with variants, and the honest answers next to them that must
// still score: two answers stated together, a negated answer, a list of guesses, an answer only inside a think
// block or followed by a refusal, an unclosed box; and exact values of number expressions too large for the
// compute engine (src/rl/verifier/README.md, "Deliberate differences").
import { describe, expect, it } from 'vitest';
import { verifyMath } from '../../../src/rl/verifier/index.ts';

type Row = readonly [gold: string, prediction: string, expected: boolean];

function check(rows: readonly Row[]) {
  const wrong = rows
    .map(([gold, pred, expected]) => ({ gold, pred, expected, got: verifyMath(gold, pred, { timeoutMs: 5_000 }) }))
    .filter((r) => r.got.correct !== r.expected)
    .map((r) => `${r.gold} | ${r.pred} -> ${r.got.correct} (${r.got.reason})`);
  expect(wrong).toEqual([]);
}

describe('reward hacking: forms that get no reward', () => {
  it('two different answers stated together (a final-answer line and a box, two boxes, an answer line)', () => {
    for (const gold of ['5', '6'])
      check([
        [gold, 'The final answer is 5 and \\boxed{6}', false],
        [gold, 'So the final answer is $5$, i.e. $\\boxed{6}$.', false],
        [gold, '$\\boxed{6}$. The final answer is 5.', false],
        [gold, 'The final answer is 5.\nTherefore \\boxed{6}', false],
        [gold, 'Final Answer: The final answer is $5$. I hope it is correct. \\boxed{6}', false],
        [gold, 'The answer is 5, so \\boxed{6}.', false],
        [gold, '\\boxed{5}, I mean \\boxed{6}', false],
        [gold, 'Answer: 5. The answer is 6.', false],
        [gold, '**Final answer:** 5 or rather $\\boxed{6}$', false],
      ]);
  });

  it('answers stated together that agree, and a corrected earlier attempt, still score', () => {
    check([
      ['6', 'The final answer is 6, so \\boxed{6}.', true],
      ['\\frac{1}{2}', 'The final answer is $0.5$, i.e. $\\boxed{\\frac{1}{2}}$.', true],
      ['6', 'The answer is $2 \\times 3 = \\boxed{6}$.', true],
      ['6', 'The answer is 2 \\times 3 = \\boxed{6}', true],
      ['5', 'First I got $\\boxed{4}$. Wait, let me recheck the arithmetic step by step. So it is $\\boxed{5}$.', true],
      ['5', 'The final answer is 4.\n\nWait, I made an error in the second step; recomputing gives \\boxed{5}.', true],
      ['14916', 'Final Answer: The smallest possible value of $N$ is $\\boxed{14{,}916}$. I hope it is correct.', true],
    ]);
  });

  it('a negated answer', () => {
    check([
      ['5', 'The answer is not 5.', false],
      ['5', 'The answer is not $5$.', false],
      ['5', "The answer isn't 5.", false],
      ['5', 'The answer is definitely not \\boxed{5}.', false],
      ['5', 'It is not equal to $\\boxed{5}$.', false],
      ['5', 'x \\neq 5', false],
      ['5', '$x \\ne \\boxed{5}$', false],
      ['5', '\\boxed{5} is wrong.', false],
      ['5', 'So 5 is not the answer.', false],
      ['5', 'The result can never be 5.', false],
      ['5', 'The answer cannot be 5.', false],
      ['5', 'The answer is anything but 5.', false],
      ['5', 'Answer: x != 5', false],
    ]);
  });

  it('a negation of another value does not take the answer back', () => {
    check([
      ['5', 'It is not 3, so the answer is 5.', true],
      ['6', 'The answer is not 5, it is 6.', true],
      ['5', 'Since 4 is not prime, the answer is \\boxed{5}.', true],
      ['5', 'This is not only easy: \\boxed{5}', true],
      ['5', 'The answer is 5, not 6.', true],
      ['5', 'Not 4 but \\boxed{5}.', true],
    ]);
  });

  it('a list of guesses with no box', () => {
    for (const gold of ['3', '5', '6'])
      check([
        [gold, 'The answer could be 3, 4, 5, or 6.', false],
        [gold, 'Maybe 3, maybe 4, maybe 5, maybe 6.', false],
        [gold, 'Is it 3? Or 5? Maybe 6.', false],
        [gold, 'Possible answers: 3, 5, 6', false],
        [gold, 'It is either 3 or 5 or 6.', false],
        [gold, 'x = 3 or x = 5 or x = 6', false],
        [gold, 'The answer is $3$, $5$ or $6$.', false],
        [gold, 'I guess 3, 5, 6...', false],
        [gold, 'It might be 3. It might be 5. It might be 6.', false],
        [gold, 'Answer: 3 or 5 or 6', false],
      ]);
  });

  it('a list that is the answer, and numbers in prose, still score', () => {
    check([
      ['3, 5, 6', 'The answer could be 3, 5, or 6.', true],
      ['3, 5, 6', 'The values are 3, 5 and 6.', true],
      ['3', 'We find 2 apples and then 3 pears.', true],
      ['6', 'Adding 1, 2 and 3 we get 6.', true],
      ['7', 'He has 3 apples, 4 pears, so 7 fruits.', true],
      ['5', 'The answer is 5, which is prime.', true],
      ['5', 'I guess the answer is 5.', true],
    ]);
  });

  it('an answer only inside a think block, or followed by a refusal', () => {
    check([
      ['5', '<think>The answer is 5.</think> I cannot determine the answer.', false],
      ['5', '<think>So \\boxed{5}</think>\nThe answer cannot be determined.', false],
      ['5', '<think>x = 5</think>', false],
      ['5', '<think>Let me see, 2 + 3 = 5, so \\boxed{5}', false],
      ['5', 'The answer is 5. However, I cannot determine the answer with certainty.', false],
      ['5', '\\boxed{5}\n\nActually there is not enough information to answer.', false],
      ['5', 'Maybe 5? It is impossible to determine.', false],
      ['5', '<THINK>The answer is 5.</THINK> I cannot determine it.', false],
      ['5', '<thinking>\\boxed{5}</thinking> There is no way to know.', false],
      ['5', '<think>The answer is 5</think> It is impossible to say.', false],
    ]);
  });

  it('an answer after the think block, or after a refusal it overrides, still scores', () => {
    check([
      ['5', '<think>Maybe it is 4. Cannot determine yet.</think> The answer is \\boxed{5}.', true],
      ['5', '<think>hmm</think>\nSo the answer is 5.', true],
      ['5', 'The sign cannot be determined from the first equation alone; with both, x = \\boxed{5}.', true],
    ]);
  });

  it('an unclosed box, with nothing to fall back on', () => {
    check([
      ['5', '\\boxed{5', false],
      ['5', 'So the answer is \\boxed{5', false],
      ['5', '\\boxed{5} ... Wait, recheck: \\boxed{\\frac{10}{2}', false],
      ['5', 'The final answer is 5. \\boxed{5', false],
      ['5', '$\\boxed{5$', false],
      ['5', 'So we get \\boxed', false],
      ['5', '\\fbox{5', false],
    ]);
  });

  it('a closed box after an unclosed one still scores', () => {
    check([
      ['5', 'We write \\boxed{ oops. Restart: \\boxed{5}', true],
      ['5', '\\boxed{5}', true],
      ['5', '\\boxed 5', true],
    ]);
  });
});

describe('exact values of number expressions too large for the compute engine', () => {
  it('computes them exactly (BigInt), right and wrong alike, within the check budget', () => {
    check([
      ['2', '\\boxed{2^{100000} - 2^{100000} + 2}', true],
      ['3', '\\boxed{2^{100000} - 2^{100000} + 2}', false],
      ['1', '\\boxed{(2^{100000}+1)-2^{100000}}', true],
      ['2', '\\boxed{\\frac{2^{100001}}{2^{100000}}}', true],
      ['10000', '\\boxed{\\frac{10000!}{9999!}}', true],
      ['9999', '\\boxed{\\frac{10000!}{9999!}}', false],
      ['2', '\\boxed{2^{100000} \\bmod 7}', true],
      ['4', '\\boxed{2^{100000} \\bmod 7}', false],
      ['4', '\\boxed{2^{10^{9}+1} \\bmod 7}', true],
      ['1', '\\boxed{\\binom{30000}{15000} - \\binom{30000}{15000} + 1}', true],
      ['0', '\\boxed{(10^{40000}+1)^2 - 10^{80000} - 2\\cdot 10^{40000} - 1}', true],
      ['-1', '\\boxed{(10^{40000}+1)^2 - 10^{80000} - 2\\cdot 10^{40000}}', false],
      ['2^{100000} - 2^{100000} + 7', '\\boxed{7}', true],
      ['\\frac{1}{3}', '\\boxed{\\frac{3^{60000}}{3^{60001}}}', true],
      ['100000', '\\boxed{\\frac{100000!}{99999!}}', true],
      ['1', '\\boxed{\\gcd(2^{100000}, 3)}', true],
      ['3', '\\boxed{\\lfloor 10^{30000} / 10^{29999} \\rfloor - 7}', true],
      ['0', '\\boxed{10^{50000} \\bmod 10}', true],
    ]);
  });

  it('still refuses values that are themselves astronomically large', () => {
    for (const pred of ['\\boxed{9^{9^{9^9}}}', '\\boxed{2^{10^{9}} - 2^{10^9} + 2}', '\\boxed{(10^{6})!}']) {
      const t0 = performance.now();
      expect(verifyMath('2', pred, { timeoutMs: 3_000 }).correct).toBe(false);
      expect(performance.now() - t0).toBeLessThan(3_500);
    }
  });
});
