// AssemblyScript: small SIMD helpers shared by the kernels. Built twice from the same sources: with
// `--enable relaxed-simd` ASC_FEATURE_RELAXED_SIMD is true and madd becomes f32x4.relaxed_madd (an FMA on
// x64/arm64); otherwise a plain SIMD multiply then add.

/** c + a * b, four lanes */
// @ts-ignore: decorator
@inline export function madd(a: v128, b: v128, c: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return f32x4.relaxed_madd(a, b, c);
  return f32x4.add(c, f32x4.mul(a, b));
}

/** horizontal sum of four lanes */
// @ts-ignore: decorator
@inline export function hsum(v: v128): f32 {
  return f32x4.extract_lane(v, 0) + f32x4.extract_lane(v, 1) + f32x4.extract_lane(v, 2) + f32x4.extract_lane(v, 3);
}

/** horizontal max of four lanes */
// @ts-ignore: decorator
@inline export function hmax(v: v128): f32 {
  return max(max(f32x4.extract_lane(v, 0), f32x4.extract_lane(v, 1)), max(f32x4.extract_lane(v, 2), f32x4.extract_lane(v, 3)));
}

/** [hsum(a0), hsum(a1), hsum(a2), hsum(a3)] with shuffles (a 4x4 transpose-and-add) */
// @ts-ignore: decorator
@inline export function reduce4(a0: v128, a1: v128, a2: v128, a3: v128): v128 {
  const s01 = f32x4.add(v128.shuffle<f32>(a0, a1, 0, 4, 1, 5), v128.shuffle<f32>(a0, a1, 2, 6, 3, 7));
  const s23 = f32x4.add(v128.shuffle<f32>(a2, a3, 0, 4, 1, 5), v128.shuffle<f32>(a2, a3, 2, 6, 3, 7));
  // s01 = [a0:0+2, a1:0+2, a0:1+3, a1:1+3], s23 likewise for a2, a3
  return f32x4.add(v128.shuffle<f32>(s01, s23, 0, 1, 4, 5), v128.shuffle<f32>(s01, s23, 2, 3, 6, 7));
}

/** Constants of expv, kept in memory: V8 rebuilds every v128.const inside a loop, while a broadcast load from
 *  memory is one instruction (measured: exp over an array ~1.9x faster this way). */
const EXP_CONSTANTS = memory.data<f32>([
  -87.0, 88.0, 1.44269504088896341, 0.693359375, -2.12194440e-4,
  1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1, 1.0,
  12582912.0, // 1.5 * 2^23: adding it rounds to an integer, which then sits in the low mantissa bits
]);

// @ts-ignore: decorator
@inline function ec(k: i32): v128 {
  return v128.load32_splat(EXP_CONSTANTS + (<usize>k << 2));
}

/** e^x on four lanes (Cephes expf: x = n ln2 + r, degree-5 polynomial in r, times 2^n, with n rounded by the
 *  1.5 * 2^23 trick instead of a float -> int conversion, which V8 expands to several instructions); x clamped to [-87, 88],
 *  relative error about 1.2e-7 (measured over [-87, 88]). */
// @ts-ignore: decorator
@inline export function expv(x: v128): v128 {
  return expClamped(f32x4.pmin(f32x4.pmax(x, ec(0)), ec(1)));
}

/** expv for x <= 0 (a logit minus its row's maximum): only the lower clamp, one instruction less per vector. */
// @ts-ignore: decorator
@inline export function expNonPositive(x: v128): v128 {
  return expClamped(f32x4.pmax(x, ec(0)));
}

// @ts-ignore: decorator
@inline function expClamped(x: v128): v128 {
  // j = round(x log2 e) + 1.5 * 2^23: n = j - 1.5 * 2^23 as a float, and j's low bits are n as an integer
  const j = madd(x, ec(2), ec(12));
  const n = f32x4.sub(j, ec(12));
  let r = f32x4.sub(x, f32x4.mul(n, ec(3)));
  r = f32x4.sub(r, f32x4.mul(n, ec(4)));
  let p = ec(5);
  p = madd(p, r, ec(6));
  p = madd(p, r, ec(7));
  p = madd(p, r, ec(8));
  p = madd(p, r, ec(9));
  p = madd(p, r, ec(10));
  const y = madd(p, f32x4.mul(r, r), f32x4.add(r, ec(11)));
  const pow2n = i32x4.shl(i32x4.add(j, i32x4.splat(127)), 23); // 2^n: (n + 127) in the exponent field, n in [-126, 127]
  return f32x4.mul(y, pow2n);
}
