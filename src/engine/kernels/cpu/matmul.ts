// CPU matmul family (the readable reference for kernels `matmul` and `sumRows`).
//   C[M,N] = alpha * op(A) @ op(B) + beta * C  (+ bias[N] on every row)
//   op(A) = A[M,K], or with transA A is stored [K,M];  op(B) = B[K,N], or with transB B is stored [N,K]
//   (transB=1 is the nn.Linear layout y = x W^T with W[out=N, in=K]).
// Method: op(B) is packed once per call into panels of 4 columns ([N/4][K][4], zero padded), then a 4x4 register
// block of accumulators walks K, reading 4 rows of A and one contiguous 4-float slice of the panel per step.
// That is the fastest shape plain JavaScript manages (~3 GFLOP/s); the WASM SIMD backend is the fast path.

import { scratchF32 } from './scratch.ts';

/** Columns per packed panel of op(B) (and the register block width). */
const NR = 4;

/** The 4x4 block's accumulators on their way out (kept as doubles: JavaScript arithmetic is f64). */
const blockAcc = new Float64Array(16);

/** Pack op(B) into panels: bp[p][k][jj] = op(B)[k, p*4 + jj] (0 past column N). Returns the panel count. */
function packB(b: Float32Array, bp: Float32Array, N: number, K: number, transB: 0 | 1): number {
  const panels = Math.ceil(N / NR);
  for (let p = 0; p < panels; p++) {
    const base = p * K * NR;
    for (let jj = 0; jj < NR; jj++) {
      const j = p * NR + jj;
      if (j >= N) {
        for (let k = 0; k < K; k++) bp[base + k * NR + jj] = 0;
      } else if (transB) {
        const row = j * K; // B stored [N,K]: op(B)[k,j] = B[j,k]
        for (let k = 0; k < K; k++) bp[base + k * NR + jj] = b[row + k];
      } else {
        for (let k = 0; k < K; k++) bp[base + k * NR + jj] = b[k * N + j]; // B stored [K,N]
      }
    }
  }
  return panels;
}

/** C[i,j] = alpha*acc + beta*C[i,j] + bias[j]; beta = 0 ignores the old C (even NaN). */
function store(
  c: Float32Array,
  idx: number,
  j: number,
  acc: number,
  alpha: number,
  beta: number,
  bias: Float32Array | null,
): void {
  let v = alpha * acc;
  if (beta !== 0) v += beta * c[idx];
  if (bias !== null) v += bias[j];
  c[idx] = v;
}

/** See the file header. a, b, c, bias are raw row-major arrays; c must not alias a or b. */
export function matmul(
  a: Float32Array,
  b: Float32Array,
  c: Float32Array,
  bias: Float32Array | null,
  M: number,
  N: number,
  K: number,
  transA: 0 | 1,
  transB: 0 | 1,
  alpha: number,
  beta: number,
): void {
  if (M === 0 || N === 0) return;
  const bp = scratchF32('matmul.packB', Math.ceil(N / NR) * NR * Math.max(K, 1));
  const panels = packB(b, bp, N, K, transB);
  // Element op(A)[i,k] = a[i*rowStride + k*kStride]
  const rowStride = transA ? 1 : K;
  const kStride = transA ? M : 1;

  let i = 0;
  // Main body: 4 rows x 4 columns per block, 16 accumulators in registers.
  for (; i + 4 <= M; i += 4) {
    const r0 = i * rowStride,
      r1 = r0 + rowStride,
      r2 = r1 + rowStride,
      r3 = r2 + rowStride;
    for (let p = 0; p < panels; p++) {
      let c00 = 0,
        c01 = 0,
        c02 = 0,
        c03 = 0,
        c10 = 0,
        c11 = 0,
        c12 = 0,
        c13 = 0;
      let c20 = 0,
        c21 = 0,
        c22 = 0,
        c23 = 0,
        c30 = 0,
        c31 = 0,
        c32 = 0,
        c33 = 0;
      let pb = p * K * NR;
      for (let k = 0, ka = 0; k < K; k++, ka += kStride, pb += NR) {
        const b0 = bp[pb],
          b1 = bp[pb + 1],
          b2 = bp[pb + 2],
          b3 = bp[pb + 3];
        const a0 = a[r0 + ka],
          a1 = a[r1 + ka],
          a2 = a[r2 + ka],
          a3 = a[r3 + ka];
        c00 += a0 * b0;
        c01 += a0 * b1;
        c02 += a0 * b2;
        c03 += a0 * b3;
        c10 += a1 * b0;
        c11 += a1 * b1;
        c12 += a1 * b2;
        c13 += a1 * b3;
        c20 += a2 * b0;
        c21 += a2 * b1;
        c22 += a2 * b2;
        c23 += a2 * b3;
        c30 += a3 * b0;
        c31 += a3 * b1;
        c32 += a3 * b2;
        c33 += a3 * b3;
      }
      const j = p * NR;
      const cols = Math.min(NR, N - j);
      const acc = blockAcc;
      acc[0] = c00;
      acc[1] = c01;
      acc[2] = c02;
      acc[3] = c03;
      acc[4] = c10;
      acc[5] = c11;
      acc[6] = c12;
      acc[7] = c13;
      acc[8] = c20;
      acc[9] = c21;
      acc[10] = c22;
      acc[11] = c23;
      acc[12] = c30;
      acc[13] = c31;
      acc[14] = c32;
      acc[15] = c33;
      for (let ii = 0; ii < 4; ii++) {
        const rowOut = (i + ii) * N + j;
        for (let jj = 0; jj < cols; jj++) store(c, rowOut + jj, j + jj, acc[ii * 4 + jj], alpha, beta, bias);
      }
    }
  }
  // Remaining rows (M % 4): one row x 4 columns per block.
  for (; i < M; i++) {
    const r0 = i * rowStride;
    for (let p = 0; p < panels; p++) {
      let c0 = 0,
        c1 = 0,
        c2 = 0,
        c3 = 0;
      let pb = p * K * NR;
      for (let k = 0, ka = 0; k < K; k++, ka += kStride, pb += NR) {
        const a0 = a[r0 + ka];
        c0 += a0 * bp[pb];
        c1 += a0 * bp[pb + 1];
        c2 += a0 * bp[pb + 2];
        c3 += a0 * bp[pb + 3];
      }
      const j = p * NR;
      const cols = Math.min(NR, N - j);
      const rowOut = i * N + j;
      if (cols > 0) store(c, rowOut, j, c0, alpha, beta, bias);
      if (cols > 1) store(c, rowOut + 1, j + 1, c1, alpha, beta, bias);
      if (cols > 2) store(c, rowOut + 2, j + 2, c2, alpha, beta, bias);
      if (cols > 3) store(c, rowOut + 3, j + 3, c3, alpha, beta, bias);
    }
  }
}

/** out[N] = beta * out + Σ_m x[m, n]  for x[M,N] (bias gradients). beta = 0 ignores the old out. */
export function sumRows(x: Float32Array, out: Float32Array, M: number, N: number, beta: number): void {
  const acc = scratchF32('sumRows.acc', N);
  acc.fill(0, 0, N);
  for (let m = 0; m < M; m++) {
    const row = m * N;
    for (let n = 0; n < N; n++) acc[n] += x[row + n];
  }
  for (let n = 0; n < N; n++) out[n] = beta === 0 ? acc[n] : beta * out[n] + acc[n];
}
