// verifyMath keeps each gold's parse (verifier/index.ts parsedGold): the answers of a GRPO group share one gold.
// A kept parse must act like a fresh one: every case of the checker's table, checked in order, again in reverse
// (every gold then comes from the memo, after checks against other predictions), gives the table's verdict.
import { describe, expect, it } from 'vitest';
import { verifyMath } from '../../../src/rl/verifier/index.ts';
import { VERIFIER_CASES, type Case } from '../../helpers/rl/verifier-cases.ts';

const cases: Case[] = Object.values(VERIFIER_CASES).flat();

describe('verifyMath with kept gold parses', () => {
  it('gives the same verdicts in either order, every gold checked many times', () => {
    const golds = new Set(cases.map(([gold]) => gold));
    expect(golds.size).toBeLessThan(cases.length);
    const forward = cases.map(([gold, prediction]) => verifyMath(gold, prediction).correct);
    const backward = cases.toReversed().map(([gold, prediction]) => verifyMath(gold, prediction).correct);
    expect(forward).toEqual(cases.map(([, , expected]) => expected));
    expect(backward.toReversed()).toEqual(forward);
  });
});
