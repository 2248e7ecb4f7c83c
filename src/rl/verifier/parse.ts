// Turn one normalised answer into a comparable value. Scalars are parsed by @cortex-js/compute-engine
// (canonical form: \frac{\sqrt2}{2} and \frac{1}{\sqrt2} both become Sqrt(2)/2, 2\sqrt3 and \sqrt{12} both
// 2*Sqrt(3)); sets, tuples, intervals, unions, relations and matrices are read from the MathJSON the engine
// returns. A bare comma list (`1, 2`) is a set, as Math-Verify reads it; a parenthesised pair `(a, b)` is a
// tuple that may also stand for an open interval. Guards: length, brace depth, tree size, magnitude.

import { ComputeEngine } from '@cortex-js/compute-engine';
import type { Deadline } from './deadline.ts';
import {
  LARGE_EXACT_BITS,
  exactRational,
  hasHeavyOperator,
  hasLargeExponent,
  isAtomicNumber,
  magnitudeLog10,
  rationalJson,
  treeSize,
  type Json,
  type Rational,
} from './numeric.ts';

export type Value =
  | { kind: 'scalar'; json: Json; latex: string; float: boolean; atomic: boolean }
  | { kind: 'text'; text: string }
  | { kind: 'set'; items: Value[] }
  | { kind: 'tuple'; items: Value[] }
  | { kind: 'interval'; lo: Value; hi: Value; loOpen: boolean; hiOpen: boolean }
  | { kind: 'union'; parts: Value[] }
  | { kind: 'relation'; ops: string[]; args: Value[] }
  | { kind: 'matrix'; rows: Value[][] };

/** Answers longer than this (after normalisation) are refused. */
export const MAX_ANSWER_CHARS = 1_500;
const MAX_BRACE_DEPTH = 40;
const MAX_TREE_NODES = 1_500;
/** Refuse values with more than this many decimal digits (upper bound from magnitudeLog10). */
const MAX_LOG10 = 20_000;

let engine: ComputeEngine | null = null;
/**
 * One shared engine, created on first use. Construction and the first parse cost about a second (library
 * warm-up), so verifyMath calls this before it starts the clock of a check.
 */
export function computeEngine(): ComputeEngine {
  if (!engine) {
    engine = new ComputeEngine();
    engine.parse('\\frac{1}{2}x^2+\\sqrt{3}\\pi').simplify();
  }
  return engine;
}

const RELATIONS = new Set(['Equal', 'Less', 'LessEqual', 'Greater', 'GreaterEqual', 'NotEqual']);

function braceDepth(s: string): number {
  let d = 0;
  let max = 0;
  for (const c of s) {
    if (c === '{' || c === '(' || c === '[') max = Math.max(max, ++d);
    else if (c === '}' || c === ')' || c === ']') d--;
  }
  return max;
}

function hasError(node: Json): boolean {
  if (!Array.isArray(node)) return false;
  if (node[0] === 'Error') return true;
  return (node.slice(1) as Json[]).some(hasError);
}

function openEnd(node: Json): { value: Json; open: boolean } {
  if (Array.isArray(node) && node[0] === 'Open' && node.length === 2) return { value: node[1] as Json, open: true };
  if (Array.isArray(node) && node[0] === 'Closed' && node.length === 2) return { value: node[1] as Json, open: false };
  return { value: node, open: false };
}

/** Split `s` at top-level commas (outside any bracket). */
function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && (s[i + 1] === '{' || s[i + 1] === '}')) {
      depth += s[i + 1] === '{' ? 1 : -1;
      i++;
    } else if ('{(['.includes(c)) depth++;
    else if ('})]'.includes(c)) depth--;
    else if (c === ',' && depth === 0) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(s.slice(start));
  return parts.map((p) => p.trim());
}

function fromJson(node: Json, latex: string, dl: Deadline): Value | null {
  dl.check();
  if (typeof node === 'string' && node.startsWith("'") && node.endsWith("'")) {
    return { kind: 'text', text: node.slice(1, -1) };
  }
  if (Array.isArray(node) && typeof node[0] === 'string') {
    const [op, ...args] = node as [string, ...Json[]];
    const all = (xs: Json[]): Value[] | null => {
      const out: Value[] = [];
      for (const x of xs) {
        const v = fromJson(x, '', dl);
        if (!v) return null;
        out.push(v);
      }
      return out;
    };
    switch (op) {
      case 'Delimiter':
        return args.length === 1 ? fromJson(args[0], latex, dl) : null;
      case 'Set': {
        const items = all(args);
        return items && { kind: 'set', items };
      }
      case 'Tuple':
      case 'Pair':
      case 'Triple':
      case 'List': {
        // [a, b] written with brackets is a closed interval when it has two elements.
        if (op === 'List' && args.length === 2) {
          const ends = all(args);
          return ends && { kind: 'interval', lo: ends[0], hi: ends[1], loOpen: false, hiOpen: false };
        }
        const items = all(args);
        if (!items) return null;
        const bare = latex !== '' && !/^\(.*\)$|^\[.*\]$/.test(latex.trim());
        return bare ? { kind: 'set', items } : { kind: 'tuple', items };
      }
      case 'Interval': {
        if (args.length !== 2) return null;
        const lo = openEnd(args[0]);
        const hi = openEnd(args[1]);
        const ends = all([lo.value, hi.value]);
        return ends && { kind: 'interval', lo: ends[0], hi: ends[1], loOpen: lo.open, hiOpen: hi.open };
      }
      case 'Union': {
        const parts = all(args);
        return parts && { kind: 'union', parts };
      }
      case 'Element': {
        // x \in S reads as x = S (Math-Verify: interpret_contains_as_eq).
        const parts = all(args);
        return parts && parts.length === 2 ? { kind: 'relation', ops: ['Equal'], args: parts } : null;
      }
      case 'Measurement':
      case 'PlusMinus': {
        // a \pm b is the set {a + b, a - b}.
        if (args.length !== 2) return null;
        return {
          kind: 'set',
          items: [scalar(['Add', args[0], args[1]], ''), scalar(['Subtract', args[0], args[1]], '')],
        };
      }
      case 'Matrix': {
        const body = args[0];
        if (!Array.isArray(body) || body[0] !== 'List') return null;
        const rows: Value[][] = [];
        for (const row of body.slice(1) as Json[]) {
          const cells = Array.isArray(row) && row[0] === 'List' ? all(row.slice(1) as Json[]) : null;
          if (!cells) return null;
          rows.push(cells);
        }
        return { kind: 'matrix', rows };
      }
      case 'Add':
      case 'Multiply':
      case 'Subtract':
      case 'Negate':
        // Arithmetic on matrices (A + B, 2A, AB): let the engine evaluate it, for small trees only.
        if (containsMatrix(node) && treeSize(node).nodes <= 200 && !hasLargeExponent(node) && !hasHeavyOperator(node))
          return evaluatedMatrix(node, dl);
        break;
      default:
        if (RELATIONS.has(op)) {
          const parts = all(args);
          return parts && parts.length >= 2
            ? { kind: 'relation', ops: Array(parts.length - 1).fill(op), args: parts }
            : null;
        }
    }
  }
  if (node === 'EmptySet') return { kind: 'set', items: [] };
  return scalar(node, latex);
}

/** True when the tree holds a decimal literal (canonical parsing keeps 0.5 as 0.5 but turns \frac12 into Rational). */
function hasDecimalLiteral(node: Json): boolean {
  if (typeof node === 'number') return !Number.isInteger(node);
  if (node && typeof node === 'object' && !Array.isArray(node))
    return String((node as { num?: unknown }).num ?? '').includes('.');
  return Array.isArray(node) && (node.slice(1) as Json[]).some(hasDecimalLiteral);
}

function containsMatrix(node: Json): boolean {
  return Array.isArray(node) && (node[0] === 'Matrix' || (node.slice(1) as Json[]).some(containsMatrix));
}

function evaluatedMatrix(node: Json, dl: Deadline): Value | null {
  const result = computeEngine()
    .box(node as never)
    .evaluate().json as Json;
  dl.check();
  if (!Array.isArray(result) || result[0] !== 'List') return null;
  const rows = (result.slice(1) as Json[]).map((row) =>
    Array.isArray(row) && row[0] === 'List' ? (row.slice(1) as Json[]) : null,
  );
  if (rows.some((r) => r === null)) return null;
  return { kind: 'matrix', rows: (rows as Json[][]).map((r) => r.map((cell) => scalar(cell, ''))) };
}

function scalar(json: Json, latex: string): Value {
  const float = /(^|[^\d])\d*\.\d/.test(latex) || hasDecimalLiteral(json);
  return { kind: 'scalar', json, latex, float, atomic: isAtomicNumber(json) };
}

/**
 * The JSON of `latex`, or null when it does not parse cleanly or fails a guard. A number expression whose size
 * bound is too large for the engine (`2^{100000} - 2^{100000} + 2`) is computed exactly here and replaced by its
 * value, which must itself fit the bound.
 */
function parseJson(latex: string, dl: Deadline): Json | null {
  // A plain integer of up to 15 digits is the number the engine's canonical form gives (7 for "007", 0 for "-0"),
  // without its two parses: most answers of arithmetic tasks
  if (/^-?\d{1,15}$/.test(latex)) return Number(latex) || 0;
  // Read as written first: the engine's canonical form would multiply out such values itself, slowly.
  const raw = computeEngine().parse(latex, { form: 'raw' }).json as Json;
  if (!hasError(raw) && magnitudeLog10(raw) > MAX_LOG10) {
    const exact = exactRational(raw, dl, LARGE_EXACT_BITS);
    if (exact) return fitsDigits(exact) ? rationalJson(exact) : null;
  }
  dl.check();
  const expr = computeEngine().parse(latex);
  const json = expr.json as Json;
  if (hasError(json)) return null;
  const size = treeSize(json);
  if (size.nodes > MAX_TREE_NODES || size.depth > 60) return null;
  if (magnitudeLog10(json) <= MAX_LOG10) return json;
  const exact = exactRational(json, dl, LARGE_EXACT_BITS);
  return exact && fitsDigits(exact) ? rationalJson(exact) : null;
}

/** An exact value small enough to hand on (at most MAX_LOG10 digits, numerator and denominator together). */
function fitsDigits(r: Rational): boolean {
  return (r.n < 0n ? -r.n : r.n).toString().length + r.d.toString().length <= MAX_LOG10;
}

/**
 * A ratio `a:b` on either side of an equation reads as a/b (`V_1:V_2 = 11:21`, `7:32`); a time of day (`12:00`)
 * and `:=` stay as written.
 */
function ratiosAsFractions(s: string): string {
  if (!s.includes(':') || s.includes(':=') || /\\colon/.test(s)) return s;
  return s
    .split('=')
    .map((side) => {
      const parts = side.split(':');
      if (parts.length !== 2 || parts.some((p) => p.trim() === '')) return side;
      if (/^\s*\d{1,2}:\d{2}\s*$/.test(side)) return `\\text{${side.trim()}}`; // 12:00 is a time: compared as written
      return `\\frac{${parts[0].trim()}}{${parts[1].trim()}}`;
    })
    .join('=');
}

/**
 * Parse one normalised answer into a Value; null when it does not parse or a guard refuses it
 * (too long, nested too deep, a value with astronomically many digits).
 */
export function parseAnswer(latex: string, percent: boolean, dl: Deadline): Value | null {
  let s = latex.trim();
  if (s === '' || s.length > MAX_ANSWER_CHARS || braceDepth(s) > MAX_BRACE_DEPTH) return null;
  dl.check();
  // A bare comma list is a set of answers ("1, 2", joined boxes, "x=1, y=2"); each part is parsed on its own
  // (with its own percent sign), and the set is compared without regard to order.
  const parts = splitTopLevel(s);
  if (parts.length > 1) {
    if (parts.length > 64 || parts.some((p) => p === '')) return null;
    const items: Value[] = [];
    for (const p of parts) {
      const v = parseAnswer(p, false, dl);
      if (!v) return null;
      items.push(v);
    }
    return { kind: 'set', items };
  }
  if (/\\%\s*$/.test(s)) {
    percent = true;
    s = s.replace(/\\%\s*$/, '').trim();
  }
  const text = /^\\text\s*\{([^{}]*)\}$/.exec(s);
  if (text) {
    // \text{13} and \text{A} are maths (Math-Verify issue #37); \text{Evelyn} stays a word.
    const inner = text[1].trim();
    if (!/^(?:[-+]?[\d.,\s/]+|\(?[a-zA-Z]\)?)$/.test(inner)) return { kind: 'text', text: inner };
    s = inner.replace(/^\((.)\)$/, '$1');
  }
  let json = parseJson(ratiosAsFractions(s), dl);
  dl.check();
  // An equation chain that does not parse as a whole (`1 = \zzz = x = 0`) is read at its last link.
  const links = s.split('=');
  if (json === null && links.length > 2 && links.at(-1)!.trim() !== '')
    json = parseJson(ratiosAsFractions(links.at(-1)!), dl);
  if (json === null) return null;
  const value = fromJson(json, s, dl);
  if (!value) return null;
  if (!percent) return value;
  if (value.kind !== 'scalar') return null;
  return { ...value, json: ['Divide', value.json, 100], latex: s };
}
