// A linear projection y = x W^T (+ bias) (+ s·(x A^T) B^T for LoRA) and its backward, as catalog matmuls.
// Shapes: x[R, in], W[out, in], bias[out], A[r, in], B[out, r], y[R, out]; s = alpha / r.
// With the LoRA weight merged for the pass (W' = W + s·B·A, lora-train-merge.ts) y = x W'^T and dx = dy W'; the
// adapter's gradients still take xa = x A^T and dy B.
import type { Backend, Tensor } from '../backend.ts';
import type { LoraPair } from './lora.ts';

export interface LinearParams {
  w: Tensor; // [out, in]
  bias: Tensor | null; // [out]
  nIn: number;
  nOut: number;
}

/** LoRA pieces for one projection in one pass: weights, scale, and the saved x A^T. */
export interface LoraUse {
  pair: LoraPair;
  scale: number;
  rank: number;
  /** [R, r] = x A^T, written by the forward and read by the backward */
  xa: Tensor;
  /** W + s·B·A [out, in] when the pass merged this projection (lora-train-merge.ts), else null */
  merged: Tensor | null;
}

/** y[R,out] = x W^T + bias (+ s (x A^T) B^T) */
export function linearForward(
  be: Backend,
  x: Tensor,
  lin: LinearParams,
  y: Tensor,
  R: number,
  lora: LoraUse | null,
): void {
  const w = lora?.merged ?? lin.w;
  be.run('matmul', {
    t: lin.bias ? { a: x, b: w, c: y, bias: lin.bias } : { a: x, b: w, c: y },
    p: { M: R, N: lin.nOut, K: lin.nIn, transA: 0, transB: 1, alpha: 1, beta: 0 },
  });
  if (!lora) return;
  const r = lora.rank;
  be.run('matmul', {
    t: { a: x, b: lora.pair.A, c: lora.xa },
    p: { M: R, N: r, K: lin.nIn, transA: 0, transB: 1, alpha: 1, beta: 0 },
  });
  if (lora.merged) return;
  be.run('matmul', {
    t: { a: lora.xa, b: lora.pair.B, c: y },
    p: { M: R, N: lin.nOut, K: r, transA: 0, transB: 1, alpha: lora.scale, beta: 1 },
  });
}

export interface LinearBackwardArgs {
  x: Tensor; // [R, in] the forward input
  dy: Tensor; // [R, out]
  /** [R, in]; null: dL/dx is not needed (the first layer's input when nothing below it trains) */
  dx: Tensor | null;
  /** false: dx = ...; true: dx += ... */
  accumulateDx: boolean;
  /** full fine-tuning: dW[out,in] += dy^T x, dBias[out] += Σ_r dy */
  dW: Tensor | null;
  dBias: Tensor | null;
  /** LoRA: dA, dB accumulated; dyB[R, r] is scratch */
  lora: (LoraUse & { grad: LoraPair | null; dyB: Tensor }) | null;
}

export function linearBackward(be: Backend, lin: LinearParams, R: number, a: LinearBackwardArgs): void {
  const { nIn, nOut } = lin;
  // dx (+)= dy W        dy[R,out] @ W[out,in]  (W' when merged)
  if (a.dx) {
    be.run('matmul', {
      t: { a: a.dy, b: a.lora?.merged ?? lin.w, c: a.dx },
      p: { M: R, N: nIn, K: nOut, transA: 0, transB: 0, alpha: 1, beta: a.accumulateDx ? 1 : 0 },
    });
  }
  if (a.dW) {
    // dW[out,in] += dy^T x
    be.run('matmul', {
      t: { a: a.dy, b: a.x, c: a.dW },
      p: { M: nOut, N: nIn, K: R, transA: 1, transB: 0, alpha: 1, beta: 1 },
    });
  }
  if (a.dBias) be.run('sumRows', { t: { x: a.dy, out: a.dBias }, p: { M: R, N: nOut, beta: 1 } });
  const lora = a.lora;
  if (!lora) return;
  const r = lora.rank;
  if ((lora.merged || !a.dx) && !lora.grad) return;
  // dyB[R,r] = dy B          B[out,r]
  be.run('matmul', {
    t: { a: a.dy, b: lora.pair.B, c: lora.dyB },
    p: { M: R, N: r, K: nOut, transA: 0, transB: 0, alpha: 1, beta: 0 },
  });
  // dx += s · dyB A          A[r,in]  (in W' when merged)
  if (!lora.merged && a.dx) {
    be.run('matmul', {
      t: { a: lora.dyB, b: lora.pair.A, c: a.dx },
      p: { M: R, N: nIn, K: r, transA: 0, transB: 0, alpha: lora.scale, beta: 1 },
    });
  }
  if (!lora.grad) return;
  // dB[out,r] += s · dy^T (x A^T)
  be.run('matmul', {
    t: { a: a.dy, b: lora.xa, c: lora.grad.B },
    p: { M: nOut, N: r, K: R, transA: 1, transB: 0, alpha: lora.scale, beta: 1 },
  });
  // dA[r,in] += s · (dy B)^T x
  be.run('matmul', {
    t: { a: lora.dyB, b: a.x, c: lora.grad.A },
    p: { M: r, N: nIn, K: R, transA: 1, transB: 0, alpha: lora.scale, beta: 1 },
  });
}
