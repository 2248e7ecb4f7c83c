// Writes tests/fixtures/verifier/rewrites.jsonl: answer rewrites of MATH500 and GSM8K golds as an RL policy writes
// them, each labelled correct or incorrect by construction, one category per way of writing (see CATEGORIES).
// Deterministic (no randomness but a seeded Rng over the data's order):
//   npx tsx scripts/verifier/gen-rewrites.ts
// A line: {"source": "math500" | "gsm8k" | "synthetic", "id", "category", "gold", "pred", "label"}.
import { readFileSync, writeFileSync } from 'node:fs';
import { Rng } from '../../src/util/rng.ts';

interface Rewrite {
  category: string;
  pred: string;
  label: boolean;
}

const DATA = new URL('../../public/data/', import.meta.url);
const OUT = new URL('../../tests/fixtures/verifier/rewrites.jsonl', import.meta.url);
const GSM8K_COUNT = 150;

const rng = new Rng(20261201);
const pick = <T>(xs: readonly T[]): T => xs[rng.int(0, xs.length - 1)];

const UNITS = ['apples', 'dollars', 'cookies', 'minutes', 'miles', 'students', 'pages', 'eggs', 'hours', 'feet'];
const LEADS = ['So the answer is ', 'Therefore, the final result is ', 'Hence we get ', 'Putting it together: ', ''];
const boxed = (x: string) => `${pick(LEADS)}$\\boxed{${x}}$.`;

/** The gold with its last digit changed (d -> d+1 mod 10): a different value for every answer form here. */
function bumpLastDigit(g: string): string | null {
  // the number, not a unit written after it (`864 \mbox{ inches}^2`: the 4, not the 2)
  const unit = g.search(/\\(?:text|mbox)\s*\{/);
  const head = unit > 0 ? g.slice(0, unit) : g;
  const m = /(\d)(?!.*\d)/s.exec(head);
  if (!m) return null;
  return g.slice(0, m.index) + String((Number(m[1]) + 1) % 10) + g.slice(m.index + 1);
}

const isInt = (g: string) => /^-?\d+$/.test(g);
/** `58,500`: one number written with thousands separators, not a list. */
const isThousands = (g: string) => /^-?\d{1,3}(?:,\d{3})+$/.test(g);
const isDecimal = (g: string) => /^-?\d+\.\d+$/.test(g);
const fracOf = (g: string) => /^(-?)\\[dt]?frac\{(\d+)\}\{(\d+)\}$/.exec(g);
const withThousands = (n: string, sep: string) => n.replace(/\B(?=(\d{3})+(?!\d))/g, sep);

/** A terminating decimal for p/q (denominator 2^a 5^b), else null. */
function terminating(p: number, q: number): string | null {
  let d = q;
  while (d % 2 === 0) d /= 2;
  while (d % 5 === 0) d /= 5;
  if (d !== 1) return null;
  let places = 0;
  while ((p * 10 ** places) % q !== 0 && places < 12) places++;
  return (p / q).toFixed(places);
}

/** Rewrites that apply to every gold. */
function general(g: string): Rewrite[] {
  const out: Rewrite[] = [
    { category: 'boxed', pred: boxed(g), label: true },
    { category: 'minerva', pred: `Final Answer: The final answer is $${g}$. I hope it is correct.`, label: true },
  ];
  const spaced = g
    .replace(/,\s*/g, ', \\, ')
    .replace(/\\frac/g, '\\dfrac')
    .replace(/([+=])/g, ' $1 ');
  if (spaced !== g && !/,\\!|\{,\}/.test(g) && !isThousands(g))
    out.push({ category: 'latex-spacing', pred: `$$\\boxed{ ${spaced} }$$`, label: true });
  const wrong = bumpLastDigit(g);
  if (wrong) {
    out.push({ category: 'wrong-value', pred: boxed(wrong), label: false });
    out.push({
      category: 'wrong-value',
      pred: `Final Answer: The final answer is $${wrong}$. I hope it is correct.`,
      label: false,
    });
  }
  // two attempts: the last one counts
  if (wrong)
    out.push({
      category: 'multiple-boxes',
      pred: `First I got $\\boxed{${wrong}}$. Wait, let me recheck the arithmetic step by step. So it is $\\boxed{${g}}$.`,
      label: true,
    });
  if (wrong)
    out.push({
      category: 'multiple-boxes',
      pred: `First I got $\\boxed{${g}}$. Wait, let me recheck the arithmetic step by step. So it is $\\boxed{${wrong}}$.`,
      label: false,
    });
  return out;
}

/** Integer golds (MATH500 and GSM8K). */
function integer(g: string, gsm: boolean): Rewrite[] {
  const n = Number(g);
  const other = String(n + (n % 7 === 3 ? -1 : 1));
  const unit = pick(UNITS);
  const out: Rewrite[] = [
    { category: 'text-unit', pred: `$\\boxed{\\text{${g} ${unit}}}$`, label: true },
    { category: 'text-unit', pred: `$\\boxed{${g} \\text{ ${unit}}}$`, label: true },
    { category: 'text-unit', pred: `$\\boxed{\\text{${other} ${unit}}}$`, label: false },
    { category: 'final-answer-line', pred: `Let me compute it step by step.\nFinal answer: ${g}`, label: true },
    { category: 'final-answer-line', pred: `Let me compute it step by step.\nFinal answer: ${other}`, label: false },
    { category: 'percent', pred: `$\\boxed{${g}\\%}$`, label: true },
    { category: 'percent', pred: `The increase is $\\boxed{${g}}$ percent.`, label: true },
    { category: 'percent', pred: `$\\boxed{${other}\\%}$`, label: false },
    { category: 'decimal-precision', pred: `$\\boxed{${g}.0}$`, label: true },
    { category: 'decimal-precision', pred: `$\\boxed{${g}.01}$`, label: false },
  ];
  if (Math.abs(n) >= 1000) {
    out.push({ category: 'thousands', pred: `$\\boxed{${withThousands(g, ',')}}$`, label: true });
    out.push({ category: 'thousands', pred: `$\\boxed{${withThousands(g, '{,}')}}$`, label: true });
    out.push({ category: 'thousands', pred: `$\\boxed{${withThousands(g, ',\\!')}}$`, label: true });
    out.push({ category: 'thousands', pred: `The total is ${withThousands(g, ',')}.`, label: true });
    out.push({ category: 'thousands', pred: `$\\boxed{${withThousands(other, ',')}}$`, label: false });
  }
  if (gsm) {
    out.push({ category: 'dollars', pred: `She makes $\\boxed{\\$${g}}$ every day.`, label: true });
    out.push({ category: 'dollars', pred: `She makes $\\boxed{\\$${g}.00}$ every day.`, label: true });
    out.push({ category: 'dollars', pred: `She makes $\\boxed{\\$${g}.50}$ every day.`, label: false });
    out.push({ category: 'plain-number', pred: `${n} - 0 = ${g}. The answer is ${g}.`, label: true });
    out.push({ category: 'plain-number', pred: `The answer is ${other}.`, label: false });
    out.push({ category: 'units-word', pred: `$\\boxed{${g}}$ ${unit}`, label: true });
  }
  return out;
}

function decimal(g: string): Rewrite[] {
  const places = g.split('.')[1].length;
  const last = Number(g.at(-1));
  const near = g.slice(0, -1) + String(last === 9 ? 8 : last + 1);
  return [
    { category: 'decimal-precision', pred: `$\\boxed{${g}0}$`, label: true },
    { category: 'decimal-precision', pred: `$\\boxed{${near}}$`, label: false },
    {
      category: 'decimal-precision',
      pred: `$\\boxed{${Number(g).toFixed(Math.max(0, places - 1))}}$`,
      label: Number(Number(g).toFixed(Math.max(0, places - 1))) === Number(g),
    },
    // a percent sign on a gold below 1 (a fraction or probability) changes the value: 0.25% is 0.0025
    ...(Math.abs(Number(g)) < 1 ? [{ category: 'percent', pred: `$\\boxed{${g}\\%}$`, label: false }] : []),
  ];
}

function fraction(m: RegExpExecArray): Rewrite[] {
  const [sign, p, q] = [m[1], Number(m[2]), Number(m[3])];
  const out: Rewrite[] = [
    { category: 'fraction-decimal', pred: `$\\boxed{${sign}${p}/${q}}$`, label: true },
    {
      category: 'fraction-decimal',
      pred: `$\\boxed{${sign}\\frac${p < 10 && q < 10 ? `${p}${q}` : `{${p}}{${q}}`}}$`,
      label: true,
    },
    { category: 'fraction-decimal', pred: `$\\boxed{${sign}\\frac{${q}}{${p}}}$`, label: p === q },
  ];
  if (p < q) out.push({ category: 'percent', pred: `$\\boxed{${sign}\\frac{${p}}{${q}}\\%}$`, label: false });
  const t = terminating(p, q);
  if (t) {
    out.push({ category: 'fraction-decimal', pred: `$\\boxed{${sign}${t}}$`, label: true });
    const wrong = (Number(t) + 10 ** -Math.max(2, t.split('.')[1]?.length ?? 0)).toFixed(
      Math.max(2, t.split('.')[1]?.length ?? 0),
    );
    out.push({ category: 'decimal-precision', pred: `$\\boxed{${sign}${wrong}}$`, label: false });
  } else {
    // a repeating decimal: six places (Math-Verify's rounding) is right, three places is not
    out.push({ category: 'decimal-precision', pred: `$\\boxed{${sign}${(p / q).toFixed(6)}}$`, label: true });
    out.push({ category: 'decimal-precision', pred: `$\\boxed{${sign}${(p / q).toFixed(3)}}$`, label: false });
  }
  return out;
}

function degrees(g: string): Rewrite[] {
  const n = /^(\d+)\^\\circ$/.exec(g);
  if (!n) return [];
  const other = String(Number(n[1]) + 1);
  return [
    { category: 'degrees', pred: `$\\boxed{${n[1]}}$`, label: true },
    { category: 'degrees', pred: `$\\boxed{${n[1]}^{\\circ}}$`, label: true },
    { category: 'degrees', pred: `$\\boxed{${n[1]} \\text{ degrees}}$`, label: true },
    { category: 'degrees', pred: `$\\boxed{${n[1]}°}$`, label: true },
    { category: 'degrees', pred: `$\\boxed{${other}^\\circ}$`, label: false },
  ];
}

function complexNumber(g: string): Rewrite[] {
  const m = /^(-?\d+)\s*([+-])\s*(\d*)i$/.exec(g);
  if (!m) return [];
  const [re, s, im] = [m[1], m[2], m[3] || '1'];
  const flip = s === '+' ? '-' : '+';
  return [
    { category: 'complex', pred: `Final answer: ${re} ${s} ${im}i`, label: true },
    { category: 'complex', pred: `$\\boxed{${s === '-' ? '-' : ''}${im}i + ${re}}$`, label: true },
    { category: 'complex', pred: `Final answer: ${re} ${flip} ${im}i`, label: false },
    { category: 'complex', pred: `$\\boxed{${re}${flip}${im}i}$`, label: false },
  ];
}

function base(g: string): Rewrite[] {
  const m = /^(\d+)_\{?(\d+)\}?$/.exec(g);
  if (!m) return [];
  const [digits, b] = [m[1], m[2]];
  const wrongBase = String(Number(b) + 1);
  return [
    { category: 'base-subscript', pred: `Final answer: ${digits}_${b}`, label: true },
    { category: 'base-subscript', pred: `Final answer: ${digits}_{${b}}`, label: true },
    { category: 'base-subscript', pred: `$\\boxed{${digits}_{${b}}}$`, label: true },
    { category: 'base-subscript', pred: `Final answer: ${digits}_${wrongBase}`, label: false },
    { category: 'base-subscript', pred: `Final answer: ${bumpLastDigit(digits)}_${b}`, label: false },
  ];
}

function textAnswer(g: string): Rewrite[] {
  const choice = /^\\text\{\(([A-E])\)\}$/.exec(g);
  if (choice) {
    const other = String.fromCharCode(((choice[1].charCodeAt(0) - 65 + 1) % 5) + 65);
    return [
      { category: 'text-answer', pred: `$\\boxed{${choice[1]}}$`, label: true },
      { category: 'text-answer', pred: `$\\boxed{(${choice[1]})}$`, label: true },
      { category: 'text-answer', pred: `$\\boxed{\\textbf{(${choice[1]})}}$`, label: true },
      { category: 'text-answer', pred: `$\\boxed{\\text{(${other})}}$`, label: false },
    ];
  }
  const word = /^\\text\{([A-Za-z]+)\}$/.exec(g);
  if (word) {
    return [
      { category: 'text-answer', pred: `$\\boxed{${word[1]}}$`, label: true },
      { category: 'text-answer', pred: `$\\boxed{\\text{${word[1].toLowerCase()}}}$`, label: true },
      { category: 'text-answer', pred: `$\\boxed{\\text{${word[1]}s}}$`, label: false },
    ];
  }
  return [];
}

/** Plain comma lists of numbers (`3, 5, 7`, `1,-2`): braces, order, multiple boxes, a "Final answer:" line. */
function list(g: string): Rewrite[] {
  if (!/^-?\d+(?:\s*,\s*-?\d+)+$/.test(g) || isThousands(g)) return [];
  const items = g.split(',').map((s) => s.trim());
  const reversed = items.toReversed();
  const fewer = items.slice(0, -1);
  const changed = [...items.slice(0, -1), String(Number(items.at(-1)) + 1)];
  return [
    { category: 'braces', pred: `$\\boxed{\\{${items.join(', ')}\\}}$`, label: true },
    { category: 'braces', pred: `$\\boxed{\\left\\{${reversed.join(',')}\\right\\}}$`, label: true },
    { category: 'braces', pred: `$\\boxed{\\{${fewer.join(', ')}\\}}$`, label: false },
    { category: 'list', pred: `Final answer: ${reversed.join(', ')}`, label: true },
    { category: 'list', pred: `Final answer: ${changed.join(', ')}`, label: false },
    {
      category: 'multiple-boxes',
      pred: `The solutions are ${items.map((x) => `$\\boxed{${x}}$`).join(' and ')}.`,
      label: true,
    },
    {
      category: 'multiple-boxes',
      pred: `The solutions are ${fewer.map((x) => `$\\boxed{${x}}$`).join(' and ')}.`,
      label: false,
    },
  ];
}

/** a \pm b golds (and synthetic ones built from integer golds): the set of both values. */
function plusMinus(a: string, b: string): Rewrite[] {
  return [
    { category: 'pm-set', pred: `$\\boxed{${a} + ${b}, ${a} - ${b}}$`, label: true },
    { category: 'pm-set', pred: `$\\boxed{\\{${a} - ${b}, ${a} + ${b}\\}}$`, label: true },
    { category: 'pm-set', pred: `$x = \\boxed{${a} + ${b}}$ or $x = \\boxed{${a} - ${b}}$`, label: true },
    { category: 'pm-set', pred: `$\\boxed{${a} \\pm ${b}}$`, label: true },
    { category: 'pm-set', pred: `$\\boxed{${a} + ${b}}$`, label: false },
    { category: 'pm-set', pred: `$\\boxed{${a} + ${b}, ${a} - ${b}, ${a}}$`, label: false },
  ];
}

function interval(g: string): Rewrite[] {
  const m =
    /^\\left([[(])\s*(.+?)\s*,\s*(.+?)\s*\\right([\])])$/.exec(g) ??
    /^([[(])\s*([^,]+?)\s*,\s*([^,]+?)\s*([\])])$/.exec(g);
  if (!m || (m[1] === '(' && m[4] === ')')) return []; // (a, b) is also a point: not an interval-only answer
  const [open, lo, hi, close] = [m[1], m[2], m[3], m[4]];
  const flipped = close === ']' ? ')' : ']';
  return [
    { category: 'interval', pred: `$\\boxed{${open}${lo}, ${hi}${close}}$`, label: true },
    { category: 'interval', pred: `$x \\in \\boxed{\\left${open} ${lo},${hi} \\right${close}}$`, label: true },
    { category: 'interval', pred: `$\\boxed{${open}${lo}, ${hi}${flipped}}$`, label: false },
  ];
}

function main(): void {
  const lines: string[] = [];
  const emit = (source: string, id: string, gold: string, rewrites: Rewrite[]) => {
    rewrites.forEach((r, k) =>
      lines.push(
        JSON.stringify({ source, id: `${id}#${k}`, category: r.category, gold, pred: r.pred, label: r.label }),
      ),
    );
  };
  const math = readFileSync(new URL('math500_test.jsonl', DATA), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { answer: string; unique_id: string });
  const ints: string[] = [];
  for (const row of math) {
    const g = row.answer.trim();
    const out = general(g);
    if (isInt(g)) {
      out.push(...integer(g, false));
      ints.push(g);
    }
    if (isDecimal(g)) out.push(...decimal(g));
    const f = fracOf(g);
    if (f) out.push(...fraction(f));
    out.push(...degrees(g), ...complexNumber(g), ...base(g), ...textAnswer(g), ...list(g), ...interval(g));
    const pm = /^(-?\d+)\s*\\pm\s*(\d*\s*\\sqrt\{\d+\})$/.exec(g);
    if (pm) out.push(...plusMinus(pm[1], pm[2]));
    emit('math500', row.unique_id, g, out);
  }
  const gsm = readFileSync(new URL('gsm8k.jsonl', DATA), 'utf8')
    .trim()
    .split('\n')
    .slice(0, GSM8K_COUNT)
    .map((l) => JSON.parse(l) as { idx: number; reward_model: { ground_truth: string } });
  for (const row of gsm) {
    const g = row.reward_model.ground_truth.trim();
    emit('gsm8k', `gsm8k/${row.idx}`, g, [
      ...general(g),
      ...(isInt(g) ? integer(g, true) : []),
      ...(isDecimal(g) ? decimal(g) : []),
    ]);
  }
  // synthetic golds for the rarer shapes (MATH500 has 3 \pm answers and 6 complex numbers), built from integer golds
  for (let k = 0; k < 40; k++) {
    const a = ints[(k * 7) % ints.length];
    const b = String(2 + (Math.abs(Number(ints[(k * 11 + 3) % ints.length])) % 17) * (k % 3 === 0 ? 1 : 2) + 1);
    const root = `\\sqrt{${b}}`;
    emit('synthetic', `pm/${k}`, `${a} \\pm ${root}`, plusMinus(a, root));
    const im = String(1 + (Math.abs(Number(ints[(k * 13 + 5) % ints.length])) % 29));
    const cg = `${a} ${k % 2 === 0 ? '+' : '-'} ${im}i`;
    emit('synthetic', `complex/${k}`, cg, complexNumber(cg));
    const digits =
      String((Math.abs(Number(ints[(k * 5 + 1) % ints.length])) % 7) + 1) + String((k * 3) % 7) + String(k % 5);
    const bg = `${digits}_${8 + (k % 2)}`;
    emit('synthetic', `base/${k}`, bg, base(bg));
  }
  writeFileSync(OUT, lines.join('\n') + '\n');
  console.log(`${OUT.pathname}: ${lines.length} rewrites`);
}

main();
