// exp of a non-positive f32, rounded to f32, without a call into the JavaScript engine's Math.exp: the sampler's
// weights exp(x - max) take one exponential per vocabulary entry per drawn token, the sampler's largest cost.
// The method is the classic one of fdlibm (and of V8's Math.exp, which is fdlibm's): x = k·ln2 + r with
// |r| <= ln2/2 and ln2 split in a high part exact in k·ln2 and a low part, exp(r) from the rational form
// 1 + 2r / (2 - R(r)) with R a degree-5 minimax polynomial in r², then the power of two. Every operation is an
// IEEE float64 one, so the result is the same on every JavaScript engine; on V8 it equals Math.fround(Math.exp(x))
// for every f32 x in [-104, 0] (tests/engine/kernels/exp-f32.test.ts checks a stride of them;
// scripts/golden/exp-f32-all.ts checks all 1.1e9).

const LN2_HI = 6.9314718036912381649e-1; // ln2 with its low 32 bits of mantissa zero: k·LN2_HI is exact
const LN2_LO = 1.90821492927058770002e-10; // ln2 - LN2_HI
const INV_LN2 = Math.LOG2E; // 1 / ln2
const P1 = 1.66666666666666019037e-1;
const P2 = -2.77777777770155933842e-3;
const P3 = 6.61375632143793436117e-5;
const P4 = -1.6533902205465251539e-6;
const P5 = 4.13813679705723846039e-8;
/** Below -150·ln2 the exponential rounds to f32 zero. */
const F32_ZERO_BELOW = -104;
/** 2^k for k in [-160, 0] (index k + 160): k·ln2 reaches -104 at k = -150. */
const POW2 = Float64Array.from({ length: 161 }, (_, i) => 2 ** (i - 160));

/** Math.fround(exp(x)) for x <= 0 (NaN for NaN); a positive x falls back to Math.exp. */
export function expF32(x: number): number {
  if (x < F32_ZERO_BELOW) return 0;
  if (x > 0) return Math.fround(Math.exp(x));
  // fdlibm's three cases (|x| <= ln2/2: k = 0; |x| < 1.5·ln2: k = -1; else k = round(x / ln2)) are the same
  // operations with k from the rounding below, so one path serves all, with no branch on the data (it is random
  // across a vocabulary). Below 2^-28 in magnitude fdlibm returns 1 + x, which rounds to the same f32 (1).
  const k = (INV_LN2 * x - 0.5) | 0;
  const hi = x - k * LN2_HI;
  const lo = k * LN2_LO;
  const r = hi - lo;
  const t = r * r;
  const c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
  return Math.fround((1 - (lo - (r * c) / (2 - c) - hi)) * POW2[k + 160]);
}
