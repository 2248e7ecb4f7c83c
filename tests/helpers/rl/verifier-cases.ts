// Table of answer-checker cases: (gold, prediction, expected), grouped by behaviour.
//
// The behaviours (not the exact strings) of the groups marked [MV] come from the test suite of
// huggingface/Math-Verify (tests/test_all.py, tests/test_boxed.py; Apache License 2.0, Copyright 2024 The
// HuggingFace Team; https://www.apache.org/licenses/LICENSE-2.0): number formats and thousands separators,
// LaTeX environments, malformed \frac / \sqrt, frac variants, percent, degrees, intervals and sets,
// assignments, float rounding to 6 places, units and \text{}, boxed joining. The cases were written for this
// project; where a case mirrors one from that suite it is marked "MV" in its comment. Groups marked [ours]
// are this project's own (reward hacking, symbolic equivalence through the compute engine, CLI-style inputs).
// The gold is read as \boxed{gold}, as ReMA's reward code does.

export type Case = readonly [gold: string, prediction: string, expected: boolean];

export const VERIFIER_CASES: Record<string, readonly Case[]> = {
  // [MV] integers, negatives, decimals, thousands separators, leading zeros
  'plain numbers': [
    ['-5', '\\boxed{-5}', true],
    ['-5', '\\boxed{5}', false],
    ['7425000', 'The total is \\boxed{7,425,000}.', true],
    ['1000', '\\boxed{1{,}000}', true],
    ['10000', '\\boxed{10,\\!000}', true],
    ['1000', '\\boxed{1000.0}', true],
    ['1000.99', '\\boxed{1,000.99}', true],
    ['0.4', '\\boxed{.4}', true],
    ['004', '\\boxed{4}', true],
    ['2.50', '\\boxed{2.5}', true],
    ['16386.20', 'Paula ends with $\\boxed{\\$16,\\!386.20}$ in total.', true],
    ['42', 'So we get \\boxed{43}.', false],
    ['3', '\\boxed{3.000000}', true], // MV: floats rounded to 6 decimals
    // ours: a decimal written with more than 6 places claims them (Math-Verify rounds it to 6 and says true)
    ['3', '\\boxed{3.0000001}', false],
    ['\\frac{9}{256}', '\\boxed{0.03515625}', true],
    ['\\frac{9}{256}', '\\boxed{0.03515626}', false],
    ['\\frac{2}{3}', '\\boxed{0.6666666666}', true], // cut or rounded at its own last place
    ['\\frac{2}{3}', '\\boxed{0.6666666667}', true],
    // a decimal gold keeps its own places: never a looser tolerance than the gold's precision
    ['3.1415926', '\\boxed{3.1415927}', false],
    ['3.1415926', '\\boxed{3.14159260}', true],
    ['0.25', '\\boxed{0.26}', false],
    ['\\frac{1}{3}', '\\boxed{0.333}', false], // six places needed for a repeating decimal
    ['\\frac{1}{3}', '\\boxed{0.333333}', true],
    ['3', '\\boxed{3.00001}', false],
  ],
  // [ours] thousands separator vs a tuple / list
  'thousands vs tuples': [
    ['1000', '\\boxed{(1,000)}', false],
    ['(1,0)', '\\boxed{(1,0)}', true],
    ['1,2', '\\boxed{1, 2}', true],
    ['1000', '\\boxed{1, 000}', false],
  ],
  // [MV] fractions: \frac, \dfrac, \tfrac, \cfrac, shorthand, a/b, decimal equivalents
  fractions: [
    ['\\frac{1}{3}', '\\boxed{\\dfrac{1}{3}}', true],
    ['\\frac{1}{3}', '\\boxed{\\tfrac{1}{3}}', true],
    ['\\frac{1}{3}', '\\boxed{\\cfrac{1}{3}}', true],
    ['\\frac{1}{3}', '\\boxed{\\frac13}', true],
    ['1', '\\boxed{\\frac3{3}}', true], // MV: malformed \frac
    ['\\frac{1}{2}', '\\boxed{\\frac{1}2}', true],
    ['\\frac{10}{9}', '\\boxed{10/9}', true],
    ['-\\frac{10}{9}', '\\boxed{-\\frac{10}{9}}', true],
    ['\\frac{1}{2}', '\\boxed{0.5}', true],
    ['\\frac{1}{3}', '\\boxed{0.333333}', true], // MV: 1/3 == 0.333333 at 6 places
    ['\\frac{1}{3}', '\\boxed{0.333}', false],
    ['\\frac{2}{4}', '\\boxed{\\frac{1}{2}}', true],
    ['\\frac{3}{4}', '\\boxed{\\frac{4}{3}}', false],
    ['\\frac{\\frac{1}{2}}{3}', '\\boxed{\\frac{1}{6}}', true],
    ['\\frac{1}{2^{99}}', '\\boxed{\\frac{1}{2^{98}}}', false], // tiny values must not round to equal
    ['\\frac{1}{2004!}', '\\boxed{\\frac{1}{2006!}}', false], // Math-Verify issue #14
  ],
  // [MV] mixed numbers (latex2sympy interpret_as_mixed_fractions=True)
  'mixed numbers': [
    ['2\\frac{1}{2}', '\\boxed{2.5}', true],
    ['\\frac{5}{2}', '\\boxed{2\\frac{1}{2}}', true],
    ['3\\frac{1}{4}', '\\boxed{\\frac{13}{4}}', true],
    ['3\\frac{1}{4}', '\\boxed{\\frac{3}{4}}', false],
  ],
  // [MV] square roots: braces, shorthand, canonical radicals
  roots: [
    ['\\sqrt{3}', '\\boxed{\\sqrt3}', true],
    ['\\sqrt{2}', '\\boxed{\\sqrt 2}', true],
    ['2\\sqrt{3}', '\\boxed{\\sqrt{12}}', true],
    ['3\\sqrt{13}', '\\boxed{\\sqrt{117}}', true],
    ['\\frac{\\sqrt{2}}{2}', '\\boxed{\\frac{1}{\\sqrt{2}}}', true],
    ['\\frac{\\sqrt{3}}{3}', '\\boxed{\\frac{1}{\\sqrt3}}', true],
    ['\\sqrt[3]{8}', '\\boxed{2}', true],
    ['\\sqrt{2}', '\\boxed{1.414}', false], // decimal approximations of irrationals do not score (Math-Verify evalf)
    ['2\\sqrt{2}', '\\boxed{\\sqrt{6}}', false],
    ['\\frac{2\\sqrt{3}}{3}', 'Area is $\\boxed{\\frac{2}{\\sqrt{3}}}$.', true],
  ],
  // [MV] pi and other constants
  constants: [
    ['\\pi', '\\boxed{\\pi}', true],
    ['2\\pi', '\\boxed{\\pi \\cdot 2}', true],
    ['\\frac{9}{4}\\pi', '\\boxed{2.25\\pi}', true],
    ['\\frac{\\pi}{4}', '\\boxed{\\frac{1}{4}\\pi}', true],
    ['\\pi', '\\boxed{3.14}', false],
    ['\\pi', '\\boxed{3.14159}', false],
    ['e', '\\boxed{\\mathrm{e}}', true],
    ['\\infty', '\\boxed{\\infty}', true],
    ['-\\infty', '\\boxed{\\infty}', false],
  ],
  // [MV] percent: X\% is X/100 (Math-Verify); words percent/pct
  percent: [
    ['50\\%', '\\boxed{0.5}', true],
    ['50\\%', '\\boxed{50\\%}', true],
    ['50\\%', '\\boxed{50}', false],
    ['28\\%', 'The stock lost $\\boxed{28\\%}$ in total.', true],
    ['28\\%', 'The final answer is 28 percent', true], // MV
    ['28\\%', 'the loss is \\boxed{28} percent', true], // MV: percent after the box
    ['20', 'so \\boxed{20\\%}', true], // a percent sign against a plain gold: also read as a unit
    ['0.2', 'so \\boxed{20\\%}', true],
    ['12.5\\%', '\\boxed{\\frac{1}{8}}', true],
    // ours: a percent sign written after the box also reads as a unit (MATH500 solutions end "\boxed{10}\%")
    ['10', 'so $r = x - 1 = \\boxed{10}\\%$.', true],
    ['10', 'the area decreased by $\\boxed{10}$ percent.', true],
    ['10', 'the area decreased by $\\boxed{10\\%}$.', true],
    ['0.2', 'so \\boxed{0.2\\%}', false], // a gold below 1 is a fraction, not a percentage: 0.2% is 0.002
    ['0.5', 'the chance is $\\boxed{0.5}$ percent', false],
    ['10\\%, 20\\%', '\\boxed{0.2, 0.1}', true], // each list item keeps its own percent sign
    ['10\\%, 20\\%', '\\boxed{10, 20}', false],
  ],
  // [MV] degrees are stripped (convert_degrees=False)
  degrees: [
    ['90', '\\boxed{90^\\circ}', true],
    ['90^\\circ', '\\boxed{90}', true],
    ['90^\\circ', 'the angle is \\boxed{90^{\\circ}}.', true],
    ['45', '\\boxed{45°}', true],
    ['60', '\\boxed{30^\\circ}', false],
    ['30', '\\boxed{30 \\text{ degrees}}', true],
  ],
  // [MV] intervals: openness and endpoints must match; unions are order-insensitive
  intervals: [
    ['[0,1)', '\\boxed{[0,1)}', true],
    ['[0,9)', '\\boxed{[0,1)}', false],
    ['(0,9)', '\\boxed{[0,9)}', false],
    ['[1,2]', '\\boxed{[1,2]}', true],
    ['[1,2]', '\\boxed{(1,2]}', false],
    ['(-\\infty, 3]', '\\boxed{(-\\infty,3]}', true],
    ['(-\\infty, 3]', '\\boxed{(-\\infty,3)}', false],
    ['(-\\infty,1)\\cup(2,\\infty)', '\\boxed{(2,\\infty)\\cup(-\\infty,1)}', true],
    ['(-\\infty,1)\\cup(2,\\infty)', '\\boxed{(-\\infty,1]\\cup(2,\\infty)}', false],
    [
      '[-1,-\\tfrac12)\\cup(-\\tfrac12,0)',
      '\\boxed{\\left[-1,-\\frac{1}{2}\\right)\\cup\\left(-\\frac{1}{2},0\\right)}',
      true,
    ],
    ['(0.6, 2.6667]', '\\boxed{(\\frac{3}{5}, \\frac{8}{3}]}', false], // 2.6667 is not 8/3 at 6 places
    ['(\\frac35, \\frac83]', '\\boxed{(0.6, 2.666667]}', true],
    ['(1,3)', '\\boxed{\\{1,3\\}}', true], // MV: open interval vs two-element set compare as a pair
  ],
  // [MV] inequalities and their intervals (gold relation, predicted interval allowed; not the reverse)
  relations: [
    ['1<x<2', '\\boxed{(1,2)}', true],
    ['x \\le 3', '\\boxed{(-\\infty, 3]}', true],
    ['x \\ge 3', '\\boxed{x \\ge 3}', true],
    ['x \\ge 3', '\\boxed{3 \\le x}', true],
    ['x > 3', '\\boxed{x \\ge 3}', false],
    ['(1,2)', '\\boxed{1<x<2}', false],
    ['x \\in [-2,7]', '\\boxed{x \\in [-2,7]}', true],
    ['[-2,7]', '\\boxed{x \\in [-2,7]}', true],
    ['x \\in [-2,7]', '\\boxed{x \\in [-2,7)}', false],
  ],
  // [MV] sets and lists: order-insensitive, equal size required
  sets: [
    ['\\{1,2\\}', '\\boxed{\\{2,1\\}}', true],
    ['\\{1,2,3\\}', '\\boxed{\\{1,2\\}}', false],
    ['1,2,3', '\\boxed{3, 1, 2}', true],
    ['1,2', '\\boxed{1} and \\boxed{2}', true], // MV: boxes joined by "and"
    ['1331, 1728', '\\boxed{1728}', false], // Math-Verify issue #47: no subset credit here
    ['-2, 3', 'the roots are $\\boxed{3, -2}$', true],
    ['1\\pm\\sqrt{19}', '\\boxed{1+\\sqrt{19}, 1-\\sqrt{19}}', true],
    ['1\\pm\\sqrt{19}', '\\boxed{1+\\sqrt{19}}', false],
    ['\\emptyset', '\\boxed{\\varnothing}', true],
    ['\\{\\frac{1}{3}\\}', '\\boxed{\\{0.333333\\}}', true],
    // MV (sympy FiniteSet): one value written two ways is one answer
    ['\\frac{639}{40}', '$d = \\boxed{15\\frac{39}{40}},$ or $\\boxed{\\frac{639}{40}}$ inches.', true],
    ['\\frac{639}{40}', '$d = \\boxed{15\\frac{39}{40}},$ or $\\boxed{\\frac{641}{40}}$ inches.', false],
  ],
  // [MV] tuples and points are ordered
  tuples: [
    ['(1,2)', '\\boxed{(1,2)}', true],
    ['(1,2)', '\\boxed{(2,1)}', false],
    ['(3,\\frac{\\pi}{2})', '\\boxed{\\left(3, \\frac{\\pi}{2}\\right)}', true],
    ['(1,2,3)', '\\boxed{(1,2,3)}', true],
    ['(1,2,3)', '\\boxed{(1,3,2)}', false],
    ['(\\frac12, -3)', 'The point is $\\boxed{(0.5,-3)}$.', true],
    ['(1,2)', '\\boxed{(1,2,3)}', false],
  ],
  // [MV] scientific notation
  'scientific notation': [
    ['1200', '\\boxed{1.2\\times10^{3}}', true],
    ['1200', '\\boxed{1.2\\cdot 10^3}', true],
    ['0.0025', '\\boxed{2.5\\times 10^{-3}}', true],
    ['3\\times10^{8}', '\\boxed{300000000}', true],
    ['3\\times10^{8}', '\\boxed{3\\times10^{9}}', false],
    ['10^{100}', '\\boxed{10^{100}}', true],
  ],
  // [MV] units and \text{} stripped; genuine text answers kept
  'units and text': [
    ['10', '\\boxed{10 \\text{ cm}}', true],
    ['15', '\\boxed{15\\mbox{ cm}^2}', true],
    ['125', '\\boxed{125 \\text{ miles}}', true],
    ['5', '\\boxed{5\\text{ inches}}', true],
    ['12', '\\boxed{12 feet}', true],
    ['\\frac{1}{3}', '\\boxed{\\frac{1}{3} \\textbf{meters}}', true], // MV
    ['\\text{Evelyn}', '\\boxed{\\text{Evelyn}}', true],
    ['\\text{Evelyn}', '\\boxed{\\text{Alice}}', false],
    ['\\text{(C)}', '\\boxed{\\text{(C)}}', true],
    ['\\text{odd}', '\\boxed{\\text{Odd}}', true],
    ['\\text{Devon}', '\\boxed{Devon}', true],
    ['\\text{Devon}', '\\boxed{Devin}', false],
    ['13', '\\boxed{\\text{13}}', true], // Math-Verify issue #37
  ],
  // [MV] \left / \right and layout commands
  'left right and layout': [
    ['(1,2)', '\\boxed{\\left(1,2\\right)}', true],
    ['\\frac{1}{2}', '\\boxed{\\left(\\frac{1}{2}\\right)}', true],
    ['5', '\\boxed{\\displaystyle 5}', true],
    ['\\frac{1}{2}', '\\boxed{\\,\\frac{1}{2}\\;}', true],
    ['2', '$$\\boxed{2}$$', true],
  ],
  // [MV] equations and assignments: x = 5 vs 5 (the gold's form decides)
  equations: [
    ['5', '\\boxed{x=5}', true],
    ['x=5', '\\boxed{5}', true],
    ['x=5', '\\boxed{x=5}', true],
    ['k=\\frac{1}{3}', '\\boxed{\\frac{1}{3}}', true],
    ['\\frac{1}{3}', 'so $k = \\boxed{\\frac{1}{3}}$', true],
    ['y=2x+3', '\\boxed{y=3+2x}', true],
    ['y=2x+3', '\\boxed{2x-y+3=0}', true],
    ['y=2x+3', '\\boxed{y=2x+4}', false],
    ['5', '\\boxed{x = 2+3 = 5}', true],
    ['5', '\\boxed{x=6}', false],
  ],
  // [ours] symbolic equivalence (compute engine canonical form + evaluation at fixed points)
  symbolic: [
    ['(x+1)^2', '\\boxed{x^2+2x+1}', true],
    ['x^2-1', '\\boxed{(x-1)(x+1)}', true],
    ['x^2-1', '\\boxed{(x-1)^2}', false],
    ['\\frac{x}{2}', '\\boxed{0.5x}', true],
    ['\\sin^2 x + \\cos^2 x', '\\boxed{1}', true],
    ['2x', '\\boxed{2y}', false], // variables matter (Math-Verify strict=True)
    ['\\frac{a+b}{2}', '\\boxed{\\frac{b+a}{2}}', true],
    ['\\frac{\\pi r}{h+r}', 'The answer is $\\boxed{\\frac{\\pi r}{h+r}}$.', true], // MV
    ['\\log_2 8', '\\boxed{3}', true],
    ['\\binom{5}{2}', '\\boxed{10}', true],
    ['5!', '\\boxed{120}', true],
    ['e^{i\\pi}', '\\boxed{-1}', true],
    ['1+2i', '\\boxed{2i+1}', true],
    ['1+2i', '\\boxed{1-2i}', false],
  ],
  // [MV] matrices and vectors, element-wise
  matrices: [
    ['\\begin{pmatrix}1\\\\2\\end{pmatrix}', '\\boxed{\\begin{pmatrix}1\\\\2\\end{pmatrix}}', true],
    ['\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}', '\\boxed{\\begin{bmatrix}1&2\\\\3&4\\end{bmatrix}}', true],
    ['\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}', '\\boxed{\\begin{pmatrix}1&2\\\\4&3\\end{pmatrix}}', false],
    ['\\begin{pmatrix}3\\\\2\\\\-6\\end{pmatrix}', '\\boxed{\\begin{pmatrix}3\\\\2\\\\-6\\end{pmatrix}}', true],
    [
      '\\begin{pmatrix}6&8\\\\10&12\\end{pmatrix}',
      '\\boxed{\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}+\\begin{pmatrix}5&6\\\\7&8\\end{pmatrix}}',
      true,
    ],
    ['\\begin{pmatrix}2\\\\4\\end{pmatrix}', '\\boxed{2\\begin{pmatrix}1\\\\2\\end{pmatrix}}', true],
    ['\\begin{pmatrix}2\\\\4\\end{pmatrix}', '\\boxed{3\\begin{pmatrix}1\\\\2\\end{pmatrix}}', false],
    [
      '\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}',
      '\\boxed{\\left[\\begin{array}{cc}1 & 2 \\\\3 & 4\\end{array}\\right]}',
      true,
    ],
  ],
  // [MV] multiple-choice letters
  'multiple choice': [
    ['B', '\\boxed{B}', true],
    ['B', '\\boxed{(B)}', true],
    ['B', '\\boxed{C}', false],
    ['\\text{(A)}', '\\boxed{A}', true],
    ['A', '\\boxed{\\text{A}}', true],
  ],
  // [MV] where the answer is found: boxed, "final answer is", answer anchors, last LaTeX or number
  extraction: [
    ['9', 'Answer \\[ 9 \\]', true],
    ['9', 'Answer $ 9 $', true],
    ['9', 'Answer \\( 9 \\)', true],
    ['10', 'Answer \\( (9+1) \\)', true],
    [
      '14400',
      'So the total is $1 \\times 5! \\times 5! = 14400$. Final Answer: The final answer is 14400. I hope it is correct.',
      true,
    ],
    ['28\\%', 'Final Answer: The final answer is $28 \\%$. I hope it is correct.', true],
    ['3', 'First we get $x=2$, then the answer is $3$.', true],
    ['3', 'We find 2 apples and then 3 pears.', true],
    ['2', 'AZYUK2A', false], // MV: digits inside a word are not an answer
    ['73', 'The answer is **73**.', true], // Math-Verify issue #76 (Markdown bold)
    ['\\frac{1}{2}', 'We compute $\\frac{1}{2}$ first but the answer is $\\frac{1}{3}$.', false],
    [
      '7',
      'First \\boxed{3} for part one, ... many more words that are not separators at all here ... finally \\boxed{7}',
      true,
    ],
    ['\\frac{1}{\\sqrt{2}}', 'Thus $r = \\boxed{\\frac{1}{\\sqrt{2}}}$, done.', true],
    ['\\frac{1}{2}', '\\boxed{\\frac{\\sqrt{\\frac{1}{4}}}{1}}', true], // nested braces
  ],
  // [ours] reward hacking: shotgun lists, empty boxes, boxes in earlier parts, no answer
  'reward hacking': [
    ['1', '\\boxed{1}, \\boxed{2}, \\boxed{3}', false],
    ['1', '\\boxed{1 or 2}', false],
    ['1', '\\boxed{1 \\text{ or } 2}', false],
    ['1', '\\boxed{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}', false],
    ['1', '\\boxed{}', false],
    ['1', 'The answer is 1. \\boxed{}', false],
    ['1', '\\boxed{ }', false],
    [
      '5',
      'Part (a): \\boxed{5}. Later, after much more careful thought about the whole problem, the answer is \\boxed{6}',
      false,
    ],
    ['5', 'I do not know.', false],
    ['5', '', false],
    ['5', '\\boxed{x}', false],
    ['5', '\\boxed{5 \\pm 1}', false],
    ['1331, 1728', '\\boxed{1331, 1728, 2197}', false],
    ['5', '\\boxed{x = 3 = 4 = 5}', true], // an equation chain is read at its last link (Math-Verify take_last_relation)
    ['5', '\\boxed{x = 2+3 = 6-1}', true],
  ],
  // [MV] known false positives / negatives from Math-Verify's issue tracker (#14, #41, #64), expected behaviour
  'known issues': [
    ['2021', '\\boxed{\\pm 2021}', false],
    ['12:00', '\\boxed{1:00}', false],
    ['1 - \\frac{1}{\\mathrm{e}}', '\\boxed{1 + \\frac{1}{e}}', false],
    ['1 - \\frac{1}{\\mathrm{e}}', '\\boxed{1 - e^{-1}}', true],
    ['4', '\\boxed{4\\sqrt(2)}', false],
    ['4\\sqrt{2}', '\\boxed{4\\sqrt(2)}', true],
    ['\\sqrt{1/n}', '\\boxed{\\frac{1}{\\sqrt{n}}}', true],
  ],
  // [ours] how an RL policy writes answers (the full labelled set is tests/fixtures/verifier/rewrites.jsonl)
  'policy rewrites': [
    ['18', '$\\boxed{\\text{18 apples}}$', true],
    ['18', '$\\boxed{\\text{19 apples}}$', false],
    ['6 - 5i', 'Final answer: 6 - 5i', true],
    ['6 - 5i', 'Final answer: 6 + 5i', false],
    ['3, 5, 7', 'Final answer: 7, 5, 3', true],
    ['3, 5, 7', 'Final answer: 3, 5', false],
    ['52_8', 'Final answer: 52_8', true],
    ['52_8', 'Final answer: 52_9', false],
    ['1 \\pm \\sqrt{19}', '$\\boxed{1 + \\sqrt{19}, 1 - \\sqrt{19}}$', true],
    ['1 \\pm \\sqrt{19}', '$\\boxed{1 + \\sqrt{19}}$', false],
    ['3, 5, 7', '$\\boxed{\\{3, 5, 7\\}}$', true],
    ['3, 5, 7', '$\\boxed{\\{3, 5\\}}$', false],
    ['5', 'First I got $\\boxed{4}$. Wait, let me recheck the arithmetic step by step. So it is $\\boxed{5}$.', true],
    ['1, 2', '$\\boxed{1}$ and $\\boxed{2}$', true],
    ['V_1:V_2 = 11:21', '$\\boxed{11:21}$', true],
    ['12:00', '$\\boxed{1:00}$', false],
  ],
};
