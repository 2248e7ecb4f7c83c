// The row-local elementwise kernels a helper thread can share (threads.ts WasmJob.Rows): each output row (or, for
// axpby, element) depends only on the same rows of the inputs, so the rows [s, e) of a call run as the same export
// on pointers moved to row s, and every row takes the same instructions as on one thread (bit-identical results).
// One function runs a part for either thread, and the whole call on one thread (s = 0, e = rows).
//   args [kernel, ...] per kernel below; floats in alpha, beta.
import type { WasmKernelExports } from './loader.ts';

export const RowKernel = {
  /** args [kernel, x, w, y, rstd, D], alpha = eps; rows R */
  Rmsnorm: 1,
  /** args [kernel, x, w, rstd, dy, dx, D, accumulate] (no dw: that sums over rows); rows R */
  RmsnormBackward: 2,
  /** args [kernel, g, u, h, F]; rows R of F (chunks of whole SIMD groups: F·rows a multiple of 4) */
  Swiglu: 3,
  /** args [kernel, g, u, dh, dg, du, F]; as Swiglu */
  SwigluBackward: 4,
  /** args [kernel, gu, h, F]; rows R */
  SwigluPacked: 5,
  /** args [kernel, x, pos, cos, sin, nHeads, Dh, inverse]; rows R */
  Rope: 6,
  /** args [kernel, x, y], alpha = a, beta = b; "rows" are the n elements (chunks of multiples of 4) */
  Axpby: 7,
} as const;
export type RowKernel = (typeof RowKernel)[keyof typeof RowKernel];

/** What an element costs on one thread, in the matmul multiply-adds that runtime.ts's split threshold counts (~0.02
 *  ns each): bench/threads.ts part 6 measures ~1.1-1.3 ns an element for the SwiGLU kernels (an exponential), ~0.4
 *  for the norms and rope, ~0.12 for axpby (a memory stream, which gains least from a second core). */
export const ROW_ELEMENT_WORK: Readonly<Record<RowKernel, number>> = {
  [RowKernel.Rmsnorm]: 16,
  [RowKernel.RmsnormBackward]: 16,
  [RowKernel.Swiglu]: 48,
  [RowKernel.SwigluBackward]: 48,
  [RowKernel.SwigluPacked]: 48,
  [RowKernel.Rope]: 16,
  [RowKernel.Axpby]: 4,
};

/** Runs rows [s, e) of a row job with kernel exports `x`. */
export function runRows(
  x: WasmKernelExports,
  g: ArrayLike<number>,
  alpha: number,
  beta: number,
  s: number,
  e: number,
): void {
  const n = e - s;
  switch (g[0]) {
    case RowKernel.Rmsnorm: {
      const [, xp, w, y, rstd, D] = g as number[];
      x.rmsnorm(xp + s * D * 4, w, y + s * D * 4, rstd + s * 4, n, D, alpha);
      return;
    }
    case RowKernel.RmsnormBackward: {
      const [, xp, w, rstd, dy, dx, D, accumulate] = g as number[];
      const at = s * D * 4;
      x.rmsnormBackward(xp + at, w, rstd + s * 4, dy + at, dx + at, 0, n, D, accumulate);
      return;
    }
    case RowKernel.Swiglu: {
      const [, gp, u, h, F] = g as number[];
      const at = s * F * 4;
      x.swiglu(gp + at, u + at, h + at, n * F);
      return;
    }
    case RowKernel.SwigluBackward: {
      const [, gp, u, dh, dg, du, F] = g as number[];
      const at = s * F * 4;
      x.swigluBackward(gp + at, u + at, dh + at, dg + at, du + at, n * F);
      return;
    }
    case RowKernel.SwigluPacked: {
      const [, gu, h, F] = g as number[];
      x.swigluPacked(gu + s * 2 * F * 4, h + s * F * 4, n, F);
      return;
    }
    case RowKernel.Rope: {
      const [, xp, pos, cos, sin, nHeads, Dh, inverse] = g as number[];
      x.rope(xp + s * nHeads * Dh * 4, pos + s * 4, cos, sin, n, nHeads, Dh, inverse);
      return;
    }
    case RowKernel.Axpby: {
      const [, xp, y] = g as number[];
      x.axpby(xp + s * 4, y + s * 4, n, alpha, beta);
      return;
    }
    default:
      throw new Error(`runRows: unknown row kernel ${g[0]}`);
  }
}
