// AssemblyScript: the one fused multiply-add used by every kernel. Built twice from the same sources:
// with `--enable relaxed-simd` ASC_FEATURE_RELAXED_SIMD is true and this becomes f32x4.relaxed_madd (an FMA on
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
