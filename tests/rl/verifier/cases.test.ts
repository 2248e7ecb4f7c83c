// Runs the case table (tests/helpers/rl/verifier-cases.ts) through verifyMath, one test per case, grouped by behaviour.
import { describe, expect, it } from 'vitest';
import { verifyMath } from '../../../src/rl/verifier/index.ts';
import { VERIFIER_CASES } from '../../helpers/rl/verifier-cases.ts';

describe('verifyMath case table', () => {
  it('holds at least 150 cases', () => {
    const n = Object.values(VERIFIER_CASES).reduce((s, group) => s + group.length, 0);
    expect(n).toBeGreaterThanOrEqual(150);
  });
  for (const [group, cases] of Object.entries(VERIFIER_CASES)) {
    describe(group, () => {
      it.each(cases.map(([gold, pred, expected]) => ({ gold, pred, expected })))(
        'gold $gold, prediction $pred -> $expected',
        ({ gold, pred, expected }) => {
          const r = verifyMath(gold, pred, { timeoutMs: 5_000 });
          expect({ correct: r.correct, reason: r.reason, extracted: r.extracted }).toMatchObject({ correct: expected });
        },
      );
    });
  }
});
