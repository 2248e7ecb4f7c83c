// CPU small helpers of the catalog: axpby (gradient accumulation, scaling), copyRows (KV-cache writes),
// sumSquares (global gradient norm).
import { floatToHalfBits, halfBitsToFloat } from '../../io/half-float.ts';
import { HALF_MAX } from '../wgsl/half-pack.ts';

/** y[n] = a*x[n] + b*y[n]; b = 0 overwrites y (its old contents, even NaN, are ignored). */
export function axpby(x: Float32Array, y: Float32Array, n: number, a: number, b: number): void {
  if (b === 0) for (let i = 0; i < n; i++) y[i] = a * x[i];
  else for (let i = 0; i < n; i++) y[i] = a * x[i] + b * y[i];
}

/** dst[dstB0 + b, dstRow0 + t, :] = src[b, t, :] for t < T;  src[B,T,W], dst[dstB0+B,Sdst,W]. `toHalf`: each value
 *  rounded to the nearest half (an f16 destination, kept in f32 by the CPU backend), clamped to ±65,504 first as
 *  the WebGPU writers clamp (wgsl/half-pack.ts). Returns how many values it clamped. */
export function copyRows(
  src: Float32Array,
  dst: Float32Array,
  B: number,
  T: number,
  W: number,
  Sdst: number,
  dstRow0: number,
  dstB0 = 0,
  toHalf = false,
): number {
  if (dstRow0 < 0 || dstRow0 + T > Sdst) {
    throw new Error(`copyRows: rows [${dstRow0}, ${dstRow0 + T}) do not fit a destination of ${Sdst} rows`);
  }
  if (!Number.isInteger(dstB0) || dstB0 < 0)
    throw new Error(`copyRows: dstB0 must be a non-negative integer, got ${dstB0}`);
  let clamped = 0;
  for (let b = 0; b < B; b++) {
    const from = b * T * W;
    const at = ((dstB0 + b) * Sdst + dstRow0) * W;
    dst.set(src.subarray(from, from + T * W), at);
    if (!toHalf) continue;
    for (let i = at; i < at + T * W; i++) {
      const x = dst[i];
      if (Math.abs(x) > HALF_MAX) clamped++;
      dst[i] = halfBitsToFloat(floatToHalfBits(Math.min(HALF_MAX, Math.max(-HALF_MAX, x))));
    }
  }
  return clamped;
}

/** out[0] = Σ x² (accumulate=0) or out[0] += Σ x² (accumulate=1); summed in f64. */
export function sumSquares(x: Float32Array, out: Float32Array, n: number, accumulate: 0 | 1): void {
  let s = 0;
  for (let i = 0; i < n; i++) s += x[i] * x[i];
  out[0] = accumulate ? out[0] + s : s;
}
