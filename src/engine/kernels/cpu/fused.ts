// CPU twin of the fused inference kernel `qkvRope` (catalog.ts): split a row of concatenated q, k, v
// projections, rotate q and k with the `rope` kernel's own code, and write k, v at their cache rows. Built from
// rope() and copyRows() on the same values, so it is exactly what the unfused sequence computes. With `kvHalf` (a
// KV cache stored in halves) k and v are rounded to the nearest half as copyRows rounds into an f16 destination.
import { copyRows } from './elementwise.ts';
import { rope } from './rope.ts';
import { scratchF32 } from './scratch.ts';

export interface QkvRopeParams {
  B: number;
  T: number;
  H: number;
  Hkv: number;
  Dh: number;
  Sdst: number;
  dstRow0: number;
  theta: number;
}

export function qkvRope(
  qkv: Float32Array,
  pos: Int32Array,
  invFreq: Float32Array | null,
  q: Float32Array,
  k: Float32Array,
  v: Float32Array,
  p: QkvRopeParams,
  kvHalf = false,
): number {
  const { B, T, H, Hkv, Dh, Sdst, dstRow0, theta } = p;
  const R = B * T;
  const Wq = H * Dh,
    Wkv = Hkv * Dh,
    W = Wq + 2 * Wkv;
  const kRows = scratchF32('qkvRope.k', R * Wkv);
  const vRows = scratchF32('qkvRope.v', R * Wkv);
  for (let r = 0; r < R; r++) {
    q.set(qkv.subarray(r * W, r * W + Wq), r * Wq);
    kRows.set(qkv.subarray(r * W + Wq, r * W + Wq + Wkv), r * Wkv);
    vRows.set(qkv.subarray(r * W + Wq + Wkv, (r + 1) * W), r * Wkv);
  }
  rope(q, pos, R, H, Dh, theta, 0, invFreq);
  rope(kRows, pos, R, Hkv, Dh, theta, 0, invFreq);
  // values clamped to ±65,504 on their way into a cache of halves
  return (
    copyRows(kRows, k, B, T, Wkv, Sdst, dstRow0, 0, kvHalf) + copyRows(vRows, v, B, T, Wkv, Sdst, dstRow0, 0, kvHalf)
  );
}
