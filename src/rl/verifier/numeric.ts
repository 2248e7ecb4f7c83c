// Numeric evaluation of MathJSON (the tree @cortex-js/compute-engine returns from `parse(...).json`):
//  - exactRational: exact BigInt fractions for +, -, *, /, integer powers, mod, factorials, binomials; bounded in
//    size (a bit budget checked before each power or factorial is computed)
//  - evalFloat: a double-precision evaluator with variable bindings, for constants like \sqrt{2}/2 and for the
//    random-point identity test on expressions with variables
//  - magnitudeLog10: an upper bound on log10 |value|, so towers like 9^{9^{9^9}} are refused before any
//    library call tries to compute them (the compute engine's own time limit can not stop a BigInt power).
// Everything here checks the Deadline in its recursion, so a deep tree can not outrun the budget.

import type { Deadline } from './deadline.ts';

/** MathJSON as returned by BoxedExpression.json. */
export type Json =
  number | string | { num: string } | { sym: string } | { str: string } | Json[] | Record<string, unknown>;

export interface Rational {
  n: bigint; // numerator (sign lives here)
  d: bigint; // denominator > 0
}

/** Refuse exact arithmetic on numbers above this many bits (about 60k decimal digits). */
const MAX_BITS = 200_000;
/**
 * The bit budget parse.ts gives an answer whose value bound is too large for the compute engine
 * (`2^{100000} - 2^{100000} + 2`, `\frac{100000!}{99999!}`): about 600k decimal digits, computed here exactly.
 */
export const LARGE_EXACT_BITS = 2_000_000;

function gcd(a: bigint, b: bigint, dl?: Deadline): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  for (let k = 1; y !== 0n; k++) {
    [x, y] = [y, x % y];
    if (dl && (k & 63) === 0) dl.check();
  }
  return x;
}

export function rational(n: bigint, d: bigint = 1n, dl?: Deadline): Rational | null {
  if (d === 0n) return null;
  if (d < 0n) [n, d] = [-n, -d];
  if (d === 1n) return { n, d };
  const g = gcd(n, d, dl);
  return g > 1n ? { n: n / g, d: d / g } : { n, d };
}

/** Number of bits of |x| (0 for 0). */
function bits(x: bigint): number {
  const hex = (x < 0n ? -x : x).toString(16);
  return hex === '0' ? 0 : (hex.length - 1) * 4 + Math.floor(Math.log2(parseInt(hex[0], 16))) + 1;
}

function tooBig(r: Rational, maxBits: number): boolean {
  return bits(r.n) > maxBits || bits(r.d) > maxBits;
}

/** log2 |x| for a non-zero bigint, to within a bit. */
function log2Abs(x: bigint): number {
  const b = bits(x);
  if (b <= 52) return Math.log2(Math.abs(Number(x)));
  return b - 52 + Math.log2(Number((x < 0n ? -x : x) >> BigInt(b - 52)));
}

/** lo * (lo+1) * ... * hi by halving the range, so the big multiplications are balanced (fast for 10^4 terms). */
function rangeProduct(lo: bigint, hi: bigint, dl: Deadline): bigint {
  if (lo > hi) return 1n;
  if (hi - lo < 16n) {
    let p = lo;
    for (let k = lo + 1n; k <= hi; k++) p *= k;
    return p;
  }
  dl.check();
  const mid = (lo + hi) / 2n;
  return rangeProduct(lo, mid, dl) * rangeProduct(mid + 1n, hi, dl);
}

/** log2(n!) by Stirling's series (an estimate within a bit, for the size check before computing n!). */
function log2Factorial(n: number): number {
  if (n < 2) return 0;
  return (n * Math.log(n) - n + 0.5 * Math.log(2 * Math.PI * n) + 1 / (12 * n)) / Math.LN2;
}

/** Exact value of a decimal literal such as "-12.50", "1e-3" or "123456789012345678901". */
export function decimalToRational(text: string): Rational | null {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const sign = m[1] === '-' ? -1n : 1n;
  const frac = m[3] ?? '';
  const exp = Number(m[4] ?? 0) - frac.length;
  if (Math.abs(exp) > 100_000) return null; // 10^100000 is about 330k bits; larger is refused
  let n = BigInt((m[2] || '0') + frac) * sign;
  let d = 1n;
  if (exp >= 0) n *= 10n ** BigInt(exp);
  else d = 10n ** BigInt(-exp);
  return rational(n, d);
}

function numberLiteral(node: Json): string | null {
  if (typeof node === 'number') return Number.isFinite(node) ? String(node) : null;
  if (node && typeof node === 'object' && !Array.isArray(node) && typeof (node as { num?: unknown }).num === 'string') {
    return (node as { num: string }).num;
  }
  return null;
}

/** True for a plain number: a literal, a Rational, or a negated one (Math-Verify's "atomic" Number). */
export function isAtomicNumber(node: Json): boolean {
  if (numberLiteral(node) !== null) return true;
  if (Array.isArray(node)) {
    if (node[0] === 'Rational' && node.length === 3)
      return numberLiteral(node[1] as Json) !== null && numberLiteral(node[2] as Json) !== null;
    if (node[0] === 'Negate' && node.length === 2) return isAtomicNumber(node[1] as Json);
  }
  return false;
}

const numJson = (x: bigint): Json => ({ num: x.toString() });

/** MathJSON of an exact value: an integer literal or a Rational of two. */
export function rationalJson(r: Rational): Json {
  const num = numJson;
  return r.d === 1n ? num(r.n) : ['Rational', num(r.n), num(r.d)];
}

/** base^e mod m for integers (e >= 0, m > 0), by repeated squaring. */
function powMod(base: bigint, e: bigint, m: bigint, dl: Deadline): bigint {
  let result = 1n % m;
  let b = ((base % m) + m) % m;
  for (let k = 0; e > 0n; k++) {
    if (e & 1n) result = (result * b) % m;
    b = (b * b) % m;
    e >>= 1n;
    if ((k & 63) === 0) dl.check();
  }
  return result;
}

/**
 * Exact value, or null when the tree is not a rational number (variables, roots, pi) or a value or intermediate
 * value would pass `maxBits` (checked before each power or factorial is computed).
 */
export function exactRational(node: Json, dl: Deadline, maxBits = MAX_BITS): Rational | null {
  dl.check();
  const lit = numberLiteral(node);
  if (lit !== null) return decimalToRational(lit);
  if (!Array.isArray(node) || node.length === 0) return null;
  const [op, ...args] = node as [string, ...Json[]];
  const vals = (): Rational[] | null => {
    const out: Rational[] = [];
    for (const a of args) {
      const v = exactRational(a, dl, maxBits);
      if (!v || tooBig(v, maxBits)) return null;
      out.push(v);
    }
    return out;
  };
  const add = (a: Rational, b: Rational) => rational(a.n * b.d + b.n * a.d, a.d * b.d, dl);
  const mul = (a: Rational, b: Rational) => rational(a.n * b.n, a.d * b.d, dl);
  switch (op) {
    case 'Rational':
    case 'Divide': {
      const v = vals();
      if (!v || v.length !== 2 || v[1].n === 0n) return null;
      return mul(v[0], { n: v[1].d * (v[1].n < 0n ? -1n : 1n), d: v[1].n < 0n ? -v[1].n : v[1].n });
    }
    case 'Add':
    case 'Multiply': {
      const v = vals();
      if (!v || v.length === 0) return null;
      let acc: Rational | null = v[0];
      for (let i = 1; i < v.length && acc; i++) acc = op === 'Add' ? add(acc, v[i]) : mul(acc, v[i]);
      return acc && !tooBig(acc, maxBits) ? acc : null;
    }
    case 'Subtract': {
      const v = vals();
      if (!v || v.length !== 2) return null;
      return add(v[0], { n: -v[1].n, d: v[1].d });
    }
    case 'Negate': {
      const v = vals();
      return v && v.length === 1 ? { n: -v[0].n, d: v[0].d } : null;
    }
    case 'Delimiter':
      return args.length === 1 ? exactRational(args[0], dl, maxBits) : null;
    case 'Power': {
      const v = vals();
      if (!v || v.length !== 2 || v[1].d !== 1n) return null;
      const e = v[1].n < 0n ? -v[1].n : v[1].n;
      const base = v[0];
      if (base.n === 0n) return v[1].n < 0n ? null : { n: e === 0n ? 1n : 0n, d: 1n };
      const size = Math.max(log2Abs(base.n), log2Abs(base.d)) * Number(e);
      if (size > maxBits) return null;
      const p = rational(base.n ** e, base.d ** e);
      return p && v[1].n < 0n ? rational(p.d, p.n) : p;
    }
    case 'Mod': {
      // a mod m for integers, with the divisor's sign (sympy's Mod); a^e mod m by repeated squaring.
      if (args.length !== 2) return null;
      const m = exactRational(args[1], dl, maxBits);
      if (!m || m.d !== 1n || m.n === 0n) return null;
      const a = args[0];
      if (Array.isArray(a) && a[0] === 'Power' && a.length === 3 && m.n > 0n) {
        const base = exactRational(a[1] as Json, dl, maxBits);
        const e = exactRational(a[2] as Json, dl, maxBits);
        if (base && e && base.d === 1n && e.d === 1n && e.n >= 0n) return { n: powMod(base.n, e.n, m.n, dl), d: 1n };
      }
      const x = exactRational(a, dl, maxBits);
      if (!x || x.d !== 1n) return null;
      return { n: ((x.n % m.n) + m.n) % m.n, d: 1n };
    }
    case 'GCD':
    case 'LCM': {
      const v = vals();
      if (!v || v.length < 2 || v.some((x) => x.d !== 1n)) return null;
      let acc = v[0].n < 0n ? -v[0].n : v[0].n;
      for (const x of v.slice(1)) {
        const g = gcd(acc, x.n, dl);
        acc = op === 'GCD' ? g : g === 0n ? 0n : (acc / g) * (x.n < 0n ? -x.n : x.n);
      }
      return tooBig({ n: acc, d: 1n }, maxBits) ? null : { n: acc, d: 1n };
    }
    case 'Abs': {
      const v = vals();
      return v && v.length === 1 ? { n: v[0].n < 0n ? -v[0].n : v[0].n, d: v[0].d } : null;
    }
    case 'Floor':
    case 'Ceil': {
      const v = vals();
      if (!v || v.length !== 1) return null;
      const q = v[0].n / v[0].d; // truncated toward zero
      const exact = q * v[0].d === v[0].n;
      if (exact) return { n: q, d: 1n };
      const down = v[0].n < 0n ? q - 1n : q;
      return { n: op === 'Floor' ? down : down + 1n, d: 1n };
    }
    case 'Factorial': {
      const v = vals();
      if (!v || v.length !== 1 || v[0].d !== 1n || v[0].n < 0n) return null;
      if (v[0].n > 1_000_000n || log2Factorial(Number(v[0].n)) > maxBits) return null;
      return { n: rangeProduct(2n, v[0].n, dl), d: 1n };
    }
    case 'Binomial': {
      const v = vals();
      if (!v || v.length !== 2 || v[0].d !== 1n || v[1].d !== 1n) return null;
      const [nn, kk] = [v[0].n, v[1].n];
      if (kk < 0n || nn < 0n || kk > nn) return kk >= 0n && nn >= 0n ? { n: 0n, d: 1n } : null;
      const k = kk < nn - kk ? kk : nn - kk;
      if (nn > 1_000_000n || Number(k) * Math.log2(Number(nn) + 1) > 2 * maxBits) return null;
      return { n: rangeProduct(nn - k + 1n, nn, dl) / rangeProduct(1n, k, dl), d: 1n };
    }
    default:
      return null;
  }
}

const CONSTANTS: Record<string, number> = {
  Pi: Math.PI,
  ExponentialE: Math.E,
  PositiveInfinity: Infinity,
  NegativeInfinity: -Infinity,
  Half: 0.5,
};
const UNARY: Record<string, (x: number) => number> = {
  Sqrt: Math.sqrt,
  Exp: Math.exp,
  Ln: Math.log,
  Abs: Math.abs,
  Sin: Math.sin,
  Cos: Math.cos,
  Tan: Math.tan,
  Cot: (x) => 1 / Math.tan(x),
  Sec: (x) => 1 / Math.cos(x),
  Csc: (x) => 1 / Math.sin(x),
  Arcsin: Math.asin,
  Arccos: Math.acos,
  Arctan: Math.atan,
  Sinh: Math.sinh,
  Cosh: Math.cosh,
  Tanh: Math.tanh,
  Floor: Math.floor,
  Ceil: Math.ceil,
  Lb: Math.log2,
  Lg: Math.log10,
  Square: (x) => x * x,
  Negate: (x) => -x,
};

function gammaFactorial(n: number): number {
  if (!Number.isInteger(n) || n < 0) return NaN;
  if (n > 170) return Infinity;
  let f = 1;
  for (let k = 2; k <= n; k++) f *= k;
  return f;
}

/** Double-precision value; NaN when something is not a real-valued function we know. */
export function evalFloat(node: Json, vars: ReadonlyMap<string, number>, dl: Deadline, depth = 0): number {
  if (depth > 200) return NaN;
  dl.check();
  const lit = numberLiteral(node);
  if (lit !== null) return Number(lit);
  if (typeof node === 'string') {
    if (node in CONSTANTS) return CONSTANTS[node];
    return vars.get(node) ?? NaN;
  }
  if (!Array.isArray(node) || node.length === 0) return NaN;
  const [op, ...args] = node as [string, ...Json[]];
  if (op === 'Sum' || op === 'Product') return bigOperatorFloat(op, args, vars, dl, depth);
  const v = args.map((a) => evalFloat(a, vars, dl, depth + 1));
  switch (op) {
    case 'Add':
      return v.reduce((s, x) => s + x, 0);
    case 'Multiply':
      return v.reduce((s, x) => s * x, 1);
    case 'Subtract':
      return v.length === 2 ? v[0] - v[1] : NaN;
    case 'Rational':
    case 'Divide':
      return v.length === 2 ? v[0] / v[1] : NaN;
    case 'Power':
      return v.length === 2 ? Math.pow(v[0], v[1]) : NaN;
    case 'Root':
      return v.length === 2
        ? v[0] < 0 && v[1] % 2 === 1
          ? -Math.pow(-v[0], 1 / v[1])
          : Math.pow(v[0], 1 / v[1])
        : NaN;
    case 'Log':
      return v.length === 1 ? Math.log10(v[0]) : v.length === 2 ? Math.log(v[0]) / Math.log(v[1]) : NaN;
    case 'Factorial':
      return v.length === 1 ? gammaFactorial(v[0]) : NaN;
    case 'Binomial':
      return v.length === 2 ? gammaFactorial(v[0]) / (gammaFactorial(v[1]) * gammaFactorial(v[0] - v[1])) : NaN;
    case 'Max':
      return Math.max(...v);
    case 'Min':
      return Math.min(...v);
    case 'Delimiter':
      return v.length === 1 ? v[0] : NaN;
    default: {
      const f = UNARY[op] as ((x: number) => number) | undefined;
      return f && v.length === 1 ? f(v[0]) : NaN;
    }
  }
}

/** Most terms a finite sum or product is evaluated over (more: NaN, the answer is compared some other way or not at all). */
export const MAX_TERMS = 100_000;

/** `\sum_{k=a}^{b} f(k)` / `\prod`: [body, ['Limits', k, a, b]], evaluated term by term under the deadline. */
function bigOperatorFloat(
  op: string,
  args: Json[],
  vars: ReadonlyMap<string, number>,
  dl: Deadline,
  depth: number,
): number {
  const limits = args[1];
  if (
    args.length !== 2 ||
    !Array.isArray(limits) ||
    limits[0] !== 'Limits' ||
    limits.length !== 4 ||
    typeof limits[1] !== 'string'
  )
    return NaN;
  const lo = evalFloat(limits[2] as Json, vars, dl, depth + 1);
  const hi = evalFloat(limits[3] as Json, vars, dl, depth + 1);
  if (!Number.isInteger(lo) || !Number.isInteger(hi) || hi - lo + 1 > MAX_TERMS) return NaN;
  const inner = new Map(vars);
  let acc = op === 'Sum' ? 0 : 1;
  for (let k = lo; k <= hi; k++) {
    inner.set(limits[1], k);
    const t = evalFloat(args[0], inner, dl, depth + 1);
    acc = op === 'Sum' ? acc + t : acc * t;
    if (!Number.isFinite(acc)) return acc;
  }
  return acc;
}

/** Operators the compute engine evaluates by iterating or integrating (its simplify/evaluate can run for minutes). */
const HEAVY = new Set([
  'Sum',
  'Product',
  'Integrate',
  'Limit',
  'D',
  'Derivative',
  'ND',
  'NIntegrate',
  'Gamma',
  'Factorial',
  'Factorial2',
  'Binomial',
  'Fibonacci',
  'GCD',
  'LCM',
  'Mod',
  'PrimeFactors',
]);

/** True when the tree holds an operator of HEAVY: such trees never reach the engine's simplify / evaluate. */
export function hasHeavyOperator(node: Json): boolean {
  if (!Array.isArray(node)) return false;
  if (typeof node[0] === 'string' && HEAVY.has(node[0])) return true;
  return (node.slice(1) as Json[]).some(hasHeavyOperator);
}

/**
 * Upper bound on log10(|value| + 1), treating each variable as about 10. Used as a guard: answers whose
 * value would have more than ~10^5 digits are refused before the compute engine sees them.
 */
export function magnitudeLog10(node: Json, depth = 0): number {
  if (depth > 200) return Infinity;
  const lit = numberLiteral(node);
  if (lit !== null) {
    const x = Math.abs(Number(lit));
    return Number.isFinite(x) ? Math.log10(x + 1) : lit.replace(/[^0-9]/g, '').length;
  }
  if (typeof node === 'string') return 1;
  if (!Array.isArray(node) || node.length === 0) return 1;
  const [op, ...args] = node as [string, ...Json[]];
  const m = args.map((a) => magnitudeLog10(a, depth + 1));
  const sum = m.reduce((s, x) => s + x, 0);
  switch (op) {
    case 'Add':
    case 'Subtract':
      return Math.max(0, ...m) + Math.log10(args.length + 1);
    case 'Power':
      return m.length === 2 ? (m[0] + 1) * Math.pow(10, Math.min(m[1], 308)) : Infinity;
    case 'Exp':
      return Math.pow(10, Math.min(m[0] ?? 0, 308));
    case 'Factorial':
    case 'Factorial2':
    case 'Gamma': {
      const n = Math.pow(10, Math.min(m[0] ?? 0, 308));
      return n * Math.max(1, Math.log10(n + 1));
    }
    case 'Binomial': {
      const n = Math.pow(10, Math.min(m[0] ?? 0, 308));
      return n * 0.302;
    }
    case 'Multiply':
      return sum;
    case 'Sum':
    case 'Product': {
      // terms x (the body with the index as large as the upper limit): a bound that refuses 10^9-term products
      const lim = args[1];
      const hi = Array.isArray(lim) && lim[0] === 'Limits' ? magnitudeLog10(lim[3] as Json, depth + 1) : 1;
      const terms = Math.pow(10, Math.min(hi, 308));
      const body = (m[0] ?? 1) * Math.max(1, hi);
      return op === 'Sum' ? hi + body : terms * body;
    }
    case 'Rational':
    case 'Divide':
      return m[0] ?? 1; // |a / b| <= |a| for the integer-like denominators of answers; a bound, not a value
    case 'Sqrt':
    case 'Root':
    case 'Ln':
    case 'Log':
    case 'Abs':
    case 'Negate':
    case 'Delimiter':
      return m[0] ?? 1;
    default:
      return sum + 1;
  }
}

/** Number of nodes and the depth of a MathJSON tree (for size caps). */
export function treeSize(node: Json, depth = 0): { nodes: number; depth: number } {
  if (!Array.isArray(node)) return { nodes: 1, depth };
  let nodes = 1;
  let maxDepth = depth;
  for (const child of node.slice(1) as Json[]) {
    const s = treeSize(child, depth + 1);
    nodes += s.nodes;
    maxDepth = Math.max(maxDepth, s.depth);
    if (nodes > 100_000 || maxDepth > 1_000) break;
  }
  return { nodes, depth: maxDepth };
}

/** Free variables of a tree (symbols that are not known constants). */
export function freeVariables(node: Json, out: Set<string> = new Set()): Set<string> {
  if (typeof node === 'string') {
    if (!(node in CONSTANTS) && !node.startsWith("'")) out.add(node);
  } else if (Array.isArray(node)) {
    const lim = node[2];
    if (
      (node[0] === 'Sum' || node[0] === 'Product') &&
      Array.isArray(lim) &&
      lim[0] === 'Limits' &&
      typeof lim[1] === 'string'
    ) {
      // the index of a sum is bound, not free
      const body = freeVariables(node[1] as Json);
      body.delete(lim[1]);
      for (const v of body) out.add(v);
      for (const child of lim.slice(2) as Json[]) freeVariables(child, out);
      return out;
    }
    for (const child of node.slice(1) as Json[]) freeVariables(child, out);
  }
  return out;
}

/** A power with a literal exponent above 12 (symbolic expansion of such a power can take seconds). */
export function hasLargeExponent(node: Json): boolean {
  if (!Array.isArray(node)) return false;
  if (node[0] === 'Power' && node.length === 3) {
    const e = node[2];
    if (typeof e === 'number' ? Math.abs(e) > 12 : freeVariables(node[1] as Json).size > 0) return true;
  }
  return (node.slice(1) as Json[]).some(hasLargeExponent);
}
