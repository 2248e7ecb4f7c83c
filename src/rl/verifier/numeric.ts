// Numeric evaluation of MathJSON (the tree @cortex-js/compute-engine returns from `parse(...).json`):
//  - exactRational: exact BigInt fractions for +, -, *, /, integer powers, factorials, binomials; bounded in size
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

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

export function rational(n: bigint, d: bigint = 1n): Rational | null {
  if (d === 0n) return null;
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d);
  return g > 1n ? { n: n / g, d: d / g } : { n, d };
}

function bits(x: bigint): number {
  return (x < 0n ? -x : x).toString(16).length * 4;
}

function tooBig(r: Rational): boolean {
  return bits(r.n) > MAX_BITS || bits(r.d) > MAX_BITS;
}

/** Exact value of a decimal literal such as "-12.50", "1e-3" or "123456789012345678901". */
export function decimalToRational(text: string): Rational | null {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const sign = m[1] === '-' ? -1n : 1n;
  const frac = m[3] ?? '';
  const exp = Number(m[4] ?? 0) - frac.length;
  if (Math.abs(exp) > 4000) return null;
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

function add(a: Rational, b: Rational): Rational | null {
  return rational(a.n * b.d + b.n * a.d, a.d * b.d);
}
function mul(a: Rational, b: Rational): Rational | null {
  return rational(a.n * b.n, a.d * b.d);
}

/** Exact value, or null when the tree is not a rational number (variables, roots, pi) or too large. */
export function exactRational(node: Json, dl: Deadline): Rational | null {
  dl.check();
  const lit = numberLiteral(node);
  if (lit !== null) return decimalToRational(lit);
  if (!Array.isArray(node) || node.length === 0) return null;
  const [op, ...args] = node as [string, ...Json[]];
  const vals = (): Rational[] | null => {
    const out: Rational[] = [];
    for (const a of args) {
      const v = exactRational(a, dl);
      if (!v || tooBig(v)) return null;
      out.push(v);
    }
    return out;
  };
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
      return acc && !tooBig(acc) ? acc : null;
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
      return args.length === 1 ? exactRational(args[0], dl) : null;
    case 'Power': {
      const v = vals();
      if (!v || v.length !== 2 || v[1].d !== 1n) return null;
      const e = v[1].n < 0n ? -v[1].n : v[1].n;
      const base = v[0];
      if (e > 100_000n || (bits(base.n) + bits(base.d)) * Number(e) > MAX_BITS) return null;
      if (base.n === 0n && v[1].n < 0n) return null;
      const p = rational(base.n ** e, base.d ** e);
      return p && v[1].n < 0n ? rational(p.d, p.n) : p;
    }
    case 'Factorial': {
      const v = vals();
      if (!v || v.length !== 1 || v[0].d !== 1n || v[0].n < 0n || v[0].n > 5000n) return null;
      let f = 1n;
      for (let k = 2n; k <= v[0].n; k++) {
        f *= k;
        if ((k & 255n) === 0n) dl.check();
      }
      return { n: f, d: 1n };
    }
    case 'Binomial': {
      const v = vals();
      if (!v || v.length !== 2 || v[0].d !== 1n || v[1].d !== 1n) return null;
      const [nn, kk] = [v[0].n, v[1].n];
      if (kk < 0n || nn < 0n || kk > nn || nn > 5000n) return kk >= 0n && nn >= 0n ? { n: 0n, d: 1n } : null;
      let r = 1n;
      for (let i = 1n; i <= kk; i++) r = (r * (nn - kk + i)) / i;
      return { n: r, d: 1n };
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
