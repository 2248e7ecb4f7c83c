// AssemblyScript (WebAssembly SIMD): the 4x8 register-block matmul of matmul.ts reading op(A) where it lies
// instead of from a packed copy, and op(B) from 8-column panels that are either packed (packB) or B itself when
// B is stored [K,N] with N a multiple of 8. Each output takes the same multiply-adds in the same order as in the
// packed kernel, so both give the same bits.
//   C[M,N] = alpha * op(A) @ op(B) + beta * C (+ bias[N])
//   op(A)[i, k] at a + i*lda + 4k (transA = 0: A [M,K], lda = 4K) or a + k*lda + 4i (transA = 1: A stored [K,M],
//   lda = 4M); op(B)[k, 8p + jj] at b + p*bPanel + k*bStep + 4jj (packed: bStep 32, bPanel 32K; B [K,N] itself:
//   bStep 4N, bPanel 32).
// Packing op(A) copies all of it once per call; with few panels (thin LoRA products: N = r) or a long K (weight
// gradients, K = rows of the batch) that copy costs as much as the multiply, and a row chunk of a thread then reads
// op(A) directly. A tail block (M mod 4 rows) reads its last row again for the missing ones, and only its rows are
// stored.

import { madd } from './simd';
import { finishRow } from './block';

const NR: i32 = 8;
const MR: i32 = 4;
/** rows of op(A) per row group, as in matmul.ts: the group stays in L2 while every panel passes over it */
const ROW_GROUP_FLOATS: i32 = 49152;

export function matmulDirect(
  a: usize, transA: i32, lda: usize, b: usize, bStep: usize, bPanel: usize, c: usize, bias: usize,
  M: i32, N: i32, K: i32, alpha: f32, beta: f32,
): void {
  const panels = (N + NR - 1) / NR;
  const rowBytes = <usize>N << 2;
  const groupRows = max(MR, (ROW_GROUP_FLOATS / max(K, 1)) & ~(MR - 1));
  for (let g = 0; g < M; g += groupRows) {
    const gEnd = min(M, g + groupRows);
    for (let p = 0; p < panels; p++) {
      const pb0 = b + <usize>p * bPanel;
      const j = p * NR;
      const cols0 = min(4, N - j), cols1 = min(4, N - j - 4);
      for (let i = g; i < gEnd; i += MR) {
        const rows = M - i;
        let c00 = f32x4.splat(0), c01 = f32x4.splat(0), c10 = f32x4.splat(0), c11 = f32x4.splat(0);
        let c20 = f32x4.splat(0), c21 = f32x4.splat(0), c30 = f32x4.splat(0), c31 = f32x4.splat(0);
        let pb = pb0;
        if (transA == 0 || rows < MR) {
          // four broadcast loads per k: rows i..i+3 (transA 0) or columns i..i+3 of A's row k (transA 1)
          const next: usize = transA ? 4 : lda; // from one row of op(A) to the next
          const step: usize = transA ? lda : 4; // from k to k+1
          const a0 = transA ? a + (<usize>i << 2) : a + <usize>i * lda;
          const a1 = rows > 1 ? a0 + next : a0, a2 = rows > 2 ? a1 + next : a1, a3 = rows > 3 ? a2 + next : a2;
          let o: usize = 0;
          for (let k = 0; k < K; k++) {
            const b0 = v128.load(pb), b1 = v128.load(pb, 16);
            let av = v128.load32_splat(a0 + o);
            c00 = madd(av, b0, c00); c01 = madd(av, b1, c01);
            av = v128.load32_splat(a1 + o);
            c10 = madd(av, b0, c10); c11 = madd(av, b1, c11);
            av = v128.load32_splat(a2 + o);
            c20 = madd(av, b0, c20); c21 = madd(av, b1, c21);
            av = v128.load32_splat(a3 + o);
            c30 = madd(av, b0, c30); c31 = madd(av, b1, c31);
            pb += bStep;
            o += step;
          }
        } else {
          // transA 1, a whole block: op(A)[i..i+3, k] are four consecutive floats of A's row k
          let pa = a + (<usize>i << 2);
          for (let k = 0; k < K; k++) {
            const b0 = v128.load(pb), b1 = v128.load(pb, 16);
            const a4 = v128.load(pa);
            let av = i32x4.shuffle(a4, a4, 0, 0, 0, 0);
            c00 = madd(av, b0, c00); c01 = madd(av, b1, c01);
            av = i32x4.shuffle(a4, a4, 1, 1, 1, 1);
            c10 = madd(av, b0, c10); c11 = madd(av, b1, c11);
            av = i32x4.shuffle(a4, a4, 2, 2, 2, 2);
            c20 = madd(av, b0, c20); c21 = madd(av, b1, c21);
            av = i32x4.shuffle(a4, a4, 3, 3, 3, 3);
            c30 = madd(av, b0, c30); c31 = madd(av, b1, c31);
            pb += bStep;
            pa += lda;
          }
        }
        const cp = c + <usize>i * rowBytes + (<usize>j << 2);
        finishRow(cp, c00, c01, bias, j, cols0, cols1, alpha, beta);
        if (rows > 1) finishRow(cp + rowBytes, c10, c11, bias, j, cols0, cols1, alpha, beta);
        if (rows > 2) finishRow(cp + 2 * rowBytes, c20, c21, bias, j, cols0, cols1, alpha, beta);
        if (rows > 3) finishRow(cp + 3 * rowBytes, c30, c31, bias, j, cols0, cols1, alpha, beta);
      }
    }
  }
}
