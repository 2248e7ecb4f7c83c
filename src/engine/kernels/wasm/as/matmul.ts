// AssemblyScript (compiled to WebAssembly SIMD): the matmul kernel of the catalog.
//   C[M,N] = alpha * op(A) @ op(B) + beta * C (+ bias[N]);  op(A) = A[M,K] or (transA) A stored [K,M];
//   op(B) = B[K,N] or (transB) B stored [N,K].
// Two steps, like the TypeScript reference (kernels/cpu/matmul.ts) but 8 columns wide:
//   packB: op(B) -> panels bp[N/8][K][8] (zero padded past N), contiguous for the inner loop;
//   matmul: a 4x8 register block (8 f32x4 accumulators, 2 B vectors, 1 broadcast A value: fits the 16 xmm
//   registers V8 gives WASM on x64; bigger blocks spill and run slower, see shared notes) walks K.
// Pointers are byte offsets into the imported memory; every tensor is f32.

import { madd } from './simd';

const NR: i32 = 8; // columns per panel

/** bp[p][k][jj] = op(B)[k, 8p + jj], 0 past column N. bp holds ceil(N/8)*8*K floats. */
export function packB(b: usize, bp: usize, N: i32, K: i32, transB: i32): void {
  const panels = (N + NR - 1) / NR;
  for (let p = 0; p < panels; p++) {
    const base = bp + (<usize>(p * K * NR) << 2);
    for (let jj = 0; jj < NR; jj++) {
      const j = p * NR + jj;
      let dst = base + (<usize>jj << 2);
      if (j >= N) {
        for (let k = 0; k < K; k++, dst += NR << 2) store<f32>(dst, 0);
      } else if (transB) {
        let src = b + (<usize>(j * K) << 2); // B stored [N,K]
        for (let k = 0; k < K; k++, dst += NR << 2, src += 4) store<f32>(dst, load<f32>(src));
      } else {
        let src = b + (<usize>j << 2); // B stored [K,N]
        const step = <usize>N << 2;
        for (let k = 0; k < K; k++, dst += NR << 2, src += step) store<f32>(dst, load<f32>(src));
      }
    }
  }
}

// @ts-ignore: decorator
@inline function finish(cp: usize, acc: v128, bias: usize, j: i32, cols: i32, alpha: f32, beta: f32): void {
  // acc holds 4 consecutive columns j..j+3 of one row; cols of them are inside the matrix
  let v = f32x4.mul(acc, f32x4.splat(alpha));
  if (cols >= 4) {
    if (beta != 0) v = madd(v128.load(cp), f32x4.splat(beta), v);
    if (bias) v = f32x4.add(v, v128.load(bias + (<usize>j << 2)));
    v128.store(cp, v);
    return;
  }
  for (let jj = 0; jj < cols; jj++) {
    let x: f32 = 0;
    if (jj == 0) x = f32x4.extract_lane(v, 0);
    else if (jj == 1) x = f32x4.extract_lane(v, 1);
    else x = f32x4.extract_lane(v, 2);
    const at = cp + (<usize>jj << 2);
    if (beta != 0) x += beta * load<f32>(at);
    if (bias) x += load<f32>(bias + (<usize>(j + jj) << 2));
    store<f32>(at, x);
  }
}

/** C = alpha * op(A) @ packed op(B) + beta * C (+ bias when bias != 0). bp from packB. */
export function matmul(
  a: usize, bp: usize, c: usize, bias: usize, M: i32, N: i32, K: i32, transA: i32, alpha: f32, beta: f32,
): void {
  const panels = (N + NR - 1) / NR;
  // op(A)[i,k] at a + 4*(i*rs + k*ks)
  const rs: usize = transA ? 4 : <usize>K << 2;
  const ks: usize = transA ? <usize>M << 2 : 4;
  const rowBytes = <usize>N << 2;
  let i = 0;
  for (; i + 4 <= M; i += 4) {
    const a0 = a + <usize>i * rs;
    for (let p = 0; p < panels; p++) {
      let c00 = f32x4.splat(0), c01 = f32x4.splat(0), c10 = f32x4.splat(0), c11 = f32x4.splat(0);
      let c20 = f32x4.splat(0), c21 = f32x4.splat(0), c30 = f32x4.splat(0), c31 = f32x4.splat(0);
      let pb = bp + (<usize>(p * K * NR) << 2);
      let pa = a0;
      for (let k = 0; k < K; k++) {
        const b0 = v128.load(pb), b1 = v128.load(pb, 16);
        let av = v128.load32_splat(pa);
        c00 = madd(av, b0, c00); c01 = madd(av, b1, c01);
        av = v128.load32_splat(pa + rs);
        c10 = madd(av, b0, c10); c11 = madd(av, b1, c11);
        av = v128.load32_splat(pa + 2 * rs);
        c20 = madd(av, b0, c20); c21 = madd(av, b1, c21);
        av = v128.load32_splat(pa + 3 * rs);
        c30 = madd(av, b0, c30); c31 = madd(av, b1, c31);
        pb += NR << 2;
        pa += ks;
      }
      const j = p * NR;
      const cols0 = min(4, N - j), cols1 = min(4, N - j - 4);
      let cp = c + <usize>i * rowBytes + (<usize>j << 2);
      finish(cp, c00, bias, j, cols0, alpha, beta);
      if (cols1 > 0) finish(cp + 16, c01, bias, j + 4, cols1, alpha, beta);
      cp += rowBytes;
      finish(cp, c10, bias, j, cols0, alpha, beta);
      if (cols1 > 0) finish(cp + 16, c11, bias, j + 4, cols1, alpha, beta);
      cp += rowBytes;
      finish(cp, c20, bias, j, cols0, alpha, beta);
      if (cols1 > 0) finish(cp + 16, c21, bias, j + 4, cols1, alpha, beta);
      cp += rowBytes;
      finish(cp, c30, bias, j, cols0, alpha, beta);
      if (cols1 > 0) finish(cp + 16, c31, bias, j + 4, cols1, alpha, beta);
    }
  }
  for (; i < M; i++) {
    // remaining rows: 1 x 8 block
    for (let p = 0; p < panels; p++) {
      let c0 = f32x4.splat(0), c1 = f32x4.splat(0);
      let pb = bp + (<usize>(p * K * NR) << 2);
      let pa = a + <usize>i * rs;
      for (let k = 0; k < K; k++) {
        const av = v128.load32_splat(pa);
        c0 = madd(av, v128.load(pb), c0);
        c1 = madd(av, v128.load(pb, 16), c1);
        pb += NR << 2;
        pa += ks;
      }
      const j = p * NR;
      const cols0 = min(4, N - j), cols1 = min(4, N - j - 4);
      const cp = c + <usize>i * rowBytes + (<usize>j << 2);
      finish(cp, c0, bias, j, cols0, alpha, beta);
      if (cols1 > 0) finish(cp + 16, c1, bias, j + 4, cols1, alpha, beta);
    }
  }
}
