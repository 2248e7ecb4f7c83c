// Plain integers skip the compute engine's two parses (parse.ts parseJson): the value must be the one the engine's
// canonical form gives, for signs, zeros, leading zeros and up to 15 digits, and a 16-digit integer still goes
// through the engine.
import { describe, expect, it } from 'vitest';
import { Deadline } from '../../../src/rl/verifier/deadline.ts';
import { computeEngine, parseAnswer } from '../../../src/rl/verifier/parse.ts';
import { verifyMath } from '../../../src/rl/verifier/index.ts';

const INTEGERS = ['0', '-0', '7', '-7', '007', '-007', '42', '1000', '999999999999999', '-123456789012345'];

describe('plain integer answers', () => {
  it.each(INTEGERS)('%s parses to the engine canonical value', (s) => {
    const v = parseAnswer(s, false, new Deadline(10_000, 6, false));
    expect(v).toMatchObject({ kind: 'scalar', json: computeEngine().parse(s).json, latex: s, float: false });
  });

  it('grades as before: equal values, other values, and a 16-digit integer', () => {
    expect(verifyMath('42', 'so \\boxed{042}')).toMatchObject({ correct: true, reason: 'equal' });
    expect(verifyMath('0', '\\boxed{-0}')).toMatchObject({ correct: true, reason: 'equal' });
    expect(verifyMath('-7', '\\boxed{7}')).toMatchObject({ correct: false, reason: 'not-equal' });
    expect(verifyMath('1234567890123456', '\\boxed{1234567890123456}')).toMatchObject({ correct: true });
    expect(verifyMath('1234567890123456', '\\boxed{1234567890123457}')).toMatchObject({ correct: false });
  });
});
