// Math in model text is found (including nested braces in \boxed) and plain text is left alone.
import { describe, expect, it } from 'vitest';
import { splitMath } from '../../src/app/components/MathText.tsx';

describe('splitMath', () => {
  it('finds inline, display and boxed math', () => {
    expect(splitMath('so $x^2$ and \\boxed{\\frac{1}{2}} done')).toEqual([
      { kind: 'text', text: 'so ' },
      { kind: 'math', tex: 'x^2', display: false },
      { kind: 'text', text: ' and ' },
      { kind: 'math', tex: '\\boxed{\\frac{1}{2}}', display: false },
      { kind: 'text', text: ' done' },
    ]);
    expect(splitMath('\\[a+b\\]')).toEqual([{ kind: 'math', tex: 'a+b', display: true }]);
  });

  it('leaves unbalanced or lone delimiters as text', () => {
    expect(splitMath('costs $5 and \\boxed{12')).toEqual([{ kind: 'text', text: 'costs $5 and \\boxed{12' }]);
  });
});
