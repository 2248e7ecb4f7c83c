// AssemblyScript (compiled to WebAssembly SIMD): the matmul kernel of the catalog.
//   C[M,N] = alpha * op(A) @ op(B) + beta * C (+ bias[N]);  op(A) = A[M,K] or (transA) A stored [K,M];
//   op(B) = B[K,N] or (transB) B stored [N,K].
// Three steps, like the TypeScript reference (kernels/cpu/matmul.ts) but in 4x8 register blocks:
//   packA: op(A) -> blocks ap[M/4][K][4] (zero rows past M): the four rows of a block sit side by side, so one
//          vector load per k gives all four A values, and four lane shuffles broadcast them;
//   packB: op(B) -> panels bp[N/8][K][8] (zero padded past N), contiguous for the inner loop (4x4 transposes in
//          SIMD when B is stored [N,K]);
//   matmul: a 4x8 register block (8 f32x4 accumulators, 2 B vectors, 1 A vector and its broadcast: fits the 16 xmm
//   registers V8 gives WASM on x64; bigger blocks spill and run slower) walks K.
// Pointers are byte offsets into the imported memory; every tensor is f32, except B in the *Half variants below
// (frozen weights stored as f16 / bf16, widened as they are read).

import { madd, reduce4 } from './simd';
import { finish, finishRow } from './block';

export { matmulDirect } from './matmul-direct';

const NR: i32 = 8; // columns per panel
const MR: i32 = 4; // rows per packed A block
/** Rows of packed A per row group: a group (ROW_GROUP_FLOATS floats, 192 KiB) stays in L2 while every panel of
 *  op(B) passes over it, and each panel (8*K floats) stays in L1 while the group's row blocks walk it. */
const ROW_GROUP_FLOATS: i32 = 49152;

// @ts-ignore: decorator
@inline function transpose4Store(dst: usize, stride: usize, x0: v128, x1: v128, x2: v128, x3: v128): void {
  // dst + kk*stride <- [x0[kk], x1[kk], x2[kk], x3[kk]] for kk = 0..3
  const t0 = v128.shuffle<f32>(x0, x1, 0, 4, 1, 5), t1 = v128.shuffle<f32>(x0, x1, 2, 6, 3, 7);
  const t2 = v128.shuffle<f32>(x2, x3, 0, 4, 1, 5), t3 = v128.shuffle<f32>(x2, x3, 2, 6, 3, 7);
  v128.store(dst, v128.shuffle<f32>(t0, t2, 0, 1, 4, 5));
  v128.store(dst + stride, v128.shuffle<f32>(t0, t2, 2, 3, 6, 7));
  v128.store(dst + 2 * stride, v128.shuffle<f32>(t1, t3, 0, 1, 4, 5));
  v128.store(dst + 3 * stride, v128.shuffle<f32>(t1, t3, 2, 3, 6, 7));
}

/** ap[q][k][ii] = op(A)[4q + ii, k], 0 past row M. ap holds ceil(M/4)*4*K floats. */
export function packA(a: usize, ap: usize, M: i32, K: i32, transA: i32): void {
  const blocks = (M + MR - 1) / MR;
  for (let q = 0; q < blocks; q++) {
    const i0 = q * MR;
    const rows = min(MR, M - i0);
    const dst = ap + (<usize>(q * K * MR) << 2);
    if (transA) {
      // A stored [K,M]: op(A)[i0..i0+3, k] are 4 consecutive floats of row k
      for (let k = 0; k < K; k++) {
        const src = a + (<usize>(k * M + i0) << 2), at = dst + (<usize>k << 4);
        if (rows == MR) v128.store(at, v128.load(src));
        else for (let ii = 0; ii < MR; ii++) store<f32>(at + (<usize>ii << 2), ii < rows ? load<f32>(src + (<usize>ii << 2)) : 0);
      }
    } else if (rows == MR) {
      const rowBytes = <usize>K << 2;
      const r0 = a + <usize>i0 * rowBytes, r1 = r0 + rowBytes, r2 = r1 + rowBytes, r3 = r2 + rowBytes;
      let k = 0;
      for (; k + 4 <= K; k += 4) {
        const o = <usize>k << 2;
        transpose4Store(dst + (<usize>k << 4), 16, v128.load(r0 + o), v128.load(r1 + o), v128.load(r2 + o), v128.load(r3 + o));
      }
      for (; k < K; k++) {
        const o = <usize>k << 2, at = dst + (<usize>k << 4);
        store<f32>(at, load<f32>(r0 + o)); store<f32>(at, load<f32>(r1 + o), 4);
        store<f32>(at, load<f32>(r2 + o), 8); store<f32>(at, load<f32>(r3 + o), 12);
      }
    } else {
      for (let k = 0; k < K; k++) {
        const at = dst + (<usize>k << 4);
        for (let ii = 0; ii < MR; ii++) store<f32>(at + (<usize>ii << 2), ii < rows ? load<f32>(a + (<usize>((i0 + ii) * K + k) << 2)) : 0);
      }
    }
  }
}

/** bp[p][k][jj] = op(B)[k, 8p + jj], 0 past column N. bp holds ceil(N/8)*8*K floats. */
export function packB(b: usize, bp: usize, N: i32, K: i32, transB: i32): void {
  const panels = (N + NR - 1) / NR;
  for (let p = 0; p < panels; p++) {
    const base = bp + (<usize>(p * K * NR) << 2);
    const j0 = p * NR;
    const cols = min(NR, N - j0);
    if (transB) {
      // B stored [N,K]: each half panel (4 columns = 4 rows of B) by 4x4 transposes
      for (let h = 0; h < 2; h++) {
        const c0 = j0 + h * 4, hc = min(4, max(0, cols - h * 4));
        const dst = base + (<usize>h << 4);
        let k = 0;
        if (hc == 4) {
          const rowBytes = <usize>K << 2;
          const r0 = b + <usize>c0 * rowBytes, r1 = r0 + rowBytes, r2 = r1 + rowBytes, r3 = r2 + rowBytes;
          for (; k + 4 <= K; k += 4) {
            const o = <usize>k << 2;
            transpose4Store(dst + (<usize>k << 5), 32, v128.load(r0 + o), v128.load(r1 + o), v128.load(r2 + o), v128.load(r3 + o));
          }
        }
        for (; k < K; k++) {
          const at = dst + (<usize>k << 5);
          for (let jj = 0; jj < 4; jj++) store<f32>(at + (<usize>jj << 2), jj < hc ? load<f32>(b + (<usize>((c0 + jj) * K + k) << 2)) : 0);
        }
      }
    } else if (cols == NR) {
      // B stored [K,N]: 8 consecutive floats of row k
      for (let k = 0; k < K; k++) {
        const src = b + (<usize>(k * N + j0) << 2), at = base + (<usize>k << 5);
        v128.store(at, v128.load(src));
        v128.store(at, v128.load(src, 16), 16);
      }
    } else {
      for (let k = 0; k < K; k++) {
        const at = base + (<usize>k << 5);
        for (let jj = 0; jj < NR; jj++) store<f32>(at + (<usize>jj << 2), jj < cols ? load<f32>(b + (<usize>(k * N + j0 + jj) << 2)) : 0);
      }
    }
  }
}

/** C = alpha * op(A) @ op(B) + beta * C (+ bias when bias != 0), from ap = packA(op(A)) and bp = packB(op(B)). */
export function matmul(ap: usize, bp: usize, c: usize, bias: usize, M: i32, N: i32, K: i32, alpha: f32, beta: f32): void {
  const panels = (N + NR - 1) / NR;
  const rowBytes = <usize>N << 2;
  const groupRows = max(MR, (ROW_GROUP_FLOATS / max(K, 1)) & ~(MR - 1));
  for (let g = 0; g < M; g += groupRows) {
    const gEnd = min(M, g + groupRows);
    for (let p = 0; p < panels; p++) {
      const pb0 = bp + (<usize>(p * K * NR) << 2);
      const pbEnd = pb0 + (<usize>K << 5);
      const j = p * NR;
      const cols0 = min(4, N - j), cols1 = min(4, N - j - 4);
      for (let i = g; i < gEnd; i += MR) {
        let c00 = f32x4.splat(0), c01 = f32x4.splat(0), c10 = f32x4.splat(0), c11 = f32x4.splat(0);
        let c20 = f32x4.splat(0), c21 = f32x4.splat(0), c30 = f32x4.splat(0), c31 = f32x4.splat(0);
        let pb = pb0;
        let pa = ap + (<usize>(i * K) << 2);
        while (pb < pbEnd) {
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
          pb += NR << 2;
          pa += MR << 2;
        }
        const rows = M - i;
        const cp = c + <usize>i * rowBytes + (<usize>j << 2);
        finishRow(cp, c00, c01, bias, j, cols0, cols1, alpha, beta);
        if (rows > 1) finishRow(cp + rowBytes, c10, c11, bias, j, cols0, cols1, alpha, beta);
        if (rows > 2) finishRow(cp + 2 * rowBytes, c20, c21, bias, j, cols0, cols1, alpha, beta);
        if (rows > 3) finishRow(cp + 3 * rowBytes, c30, c31, bias, j, cols0, cols1, alpha, beta);
      }
    }
  }
}

// ---- few rows (decode steps, the LM head on sampled rows): no packing ----
// With M below ~16 rows, packing op(B) costs as much as the multiply itself, so these read B in place:
//   transB=1 (weights [N,K], the usual case): two rows of A at a time against four rows of B, eight vector
//   accumulators over K, reduced with shuffles into two vectors of four outputs;
//   transB=0 (B [K,N]): two rows of A at a time, eight columns of B per step, like the packed kernel but
//   striding over B's rows. Tails (odd M, N % 4 or N % 8, K % 4) fall back to scalar loops.
// A must be row-major here (transA = 0).

// @ts-ignore: decorator
@inline function scalarDot(x: usize, y: usize, K: i32): f32 {
  let s: f32 = 0;
  for (let k = 0; k < K; k++) s += load<f32>(x + (<usize>k << 2)) * load<f32>(y + (<usize>k << 2));
  return s;
}

// @ts-ignore: decorator
@inline function storeOne(cp: usize, v: f32, bias: usize, j: i32, alpha: f32, beta: f32): void {
  let x = alpha * v;
  if (beta != 0) x += beta * load<f32>(cp);
  if (bias) x += load<f32>(bias + (<usize>j << 2));
  store<f32>(cp, x);
}

export function matmulFewRows(
  a: usize, b: usize, c: usize, bias: usize, M: i32, N: i32, K: i32, transB: i32, alpha: f32, beta: f32,
): void {
  const rowA = <usize>K << 2, rowC = <usize>N << 2;
  if (transB) {
    const K4 = K & ~3;
    let j = 0;
    for (; j + 4 <= N; j += 4) {
      // four rows of B (4*K floats, in L1) against every pair of A rows: B is read from memory once per call
      const b0 = b + <usize>j * rowA, b1 = b0 + rowA, b2 = b1 + rowA, b3 = b2 + rowA;
      for (let i = 0; i < M; i += 2) {
        const two = i + 1 < M;
        const a0 = a + <usize>i * rowA, a1 = two ? a0 + rowA : a0;
        let x00 = f32x4.splat(0), x01 = f32x4.splat(0), x02 = f32x4.splat(0), x03 = f32x4.splat(0);
        let x10 = f32x4.splat(0), x11 = f32x4.splat(0), x12 = f32x4.splat(0), x13 = f32x4.splat(0);
        for (let k = 0; k < K4; k += 4) {
          const o = <usize>k << 2;
          const av0 = v128.load(a0 + o), av1 = v128.load(a1 + o);
          const bv0 = v128.load(b0 + o), bv1 = v128.load(b1 + o), bv2 = v128.load(b2 + o), bv3 = v128.load(b3 + o);
          x00 = madd(av0, bv0, x00); x01 = madd(av0, bv1, x01); x02 = madd(av0, bv2, x02); x03 = madd(av0, bv3, x03);
          x10 = madd(av1, bv0, x10); x11 = madd(av1, bv1, x11); x12 = madd(av1, bv2, x12); x13 = madd(av1, bv3, x13);
        }
        let r0 = reduce4(x00, x01, x02, x03), r1 = reduce4(x10, x11, x12, x13);
        if (K4 < K) {
          const t0 = f32x4.replace_lane(f32x4.replace_lane(f32x4.replace_lane(f32x4.splat(
            scalarDot(a0 + (<usize>K4 << 2), b0 + (<usize>K4 << 2), K - K4)), 1,
            scalarDot(a0 + (<usize>K4 << 2), b1 + (<usize>K4 << 2), K - K4)), 2,
            scalarDot(a0 + (<usize>K4 << 2), b2 + (<usize>K4 << 2), K - K4)), 3,
            scalarDot(a0 + (<usize>K4 << 2), b3 + (<usize>K4 << 2), K - K4));
          const t1 = f32x4.replace_lane(f32x4.replace_lane(f32x4.replace_lane(f32x4.splat(
            scalarDot(a1 + (<usize>K4 << 2), b0 + (<usize>K4 << 2), K - K4)), 1,
            scalarDot(a1 + (<usize>K4 << 2), b1 + (<usize>K4 << 2), K - K4)), 2,
            scalarDot(a1 + (<usize>K4 << 2), b2 + (<usize>K4 << 2), K - K4)), 3,
            scalarDot(a1 + (<usize>K4 << 2), b3 + (<usize>K4 << 2), K - K4));
          r0 = f32x4.add(r0, t0);
          r1 = f32x4.add(r1, t1);
        }
        const cp = c + <usize>i * rowC + (<usize>j << 2);
        finish(cp, r0, bias, j, 4, alpha, beta);
        if (two) finish(cp + rowC, r1, bias, j, 4, alpha, beta);
      }
    }
    for (; j < N; j++) {
      const bj = b + <usize>j * rowA;
      for (let i = 0; i < M; i++) {
        storeOne(c + <usize>i * rowC + (<usize>j << 2), scalarDot(a + <usize>i * rowA, bj, K), bias, j, alpha, beta);
      }
    }
    return;
  }
  // transB = 0: B [K,N]
  const N8 = N & ~7;
  for (let j = 0; j < N8; j += 8) {
    // an 8-column strip of B (K rows) against every pair of A rows: the strip stays in cache
    for (let i = 0; i < M; i += 2) {
      const two = i + 1 < M;
      const a0 = a + <usize>i * rowA, a1 = two ? a0 + rowA : a0;
      let c00 = f32x4.splat(0), c01 = f32x4.splat(0), c10 = f32x4.splat(0), c11 = f32x4.splat(0);
      let pb = b + (<usize>j << 2);
      for (let k = 0; k < K; k++) {
        const b0 = v128.load(pb), b1 = v128.load(pb, 16);
        const o = <usize>k << 2;
        const av0 = v128.load32_splat(a0 + o), av1 = v128.load32_splat(a1 + o);
        c00 = madd(av0, b0, c00); c01 = madd(av0, b1, c01);
        c10 = madd(av1, b0, c10); c11 = madd(av1, b1, c11);
        pb += rowC;
      }
      const cp = c + <usize>i * rowC + (<usize>j << 2);
      finish(cp, c00, bias, j, 4, alpha, beta);
      finish(cp + 16, c01, bias, j + 4, 4, alpha, beta);
      if (two) {
        finish(cp + rowC, c10, bias, j, 4, alpha, beta);
        finish(cp + rowC + 16, c11, bias, j + 4, 4, alpha, beta);
      }
    }
  }
  for (let j = N8; j < N; j++) {
    for (let i = 0; i < M; i++) {
      const ai = a + <usize>i * rowA;
      let s0: f32 = 0;
      for (let k = 0; k < K; k++) s0 += load<f32>(ai + (<usize>k << 2)) * load<f32>(b + (<usize>(k * N + j) << 2));
      storeOne(c + <usize>i * rowC + (<usize>j << 2), s0, bias, j, alpha, beta);
    }
  }
}

// ---- half-precision B (frozen base weights stored as f16 or bf16, 2 bytes each) ----
// The same products with op(B) read from u16 storage and widened to f32 as it is read (compute stays f32):
// packBHalf fills the same f32 panels as packB, so the packed kernel above runs unchanged; matmulFewRowsHalf is
// matmulFewRows widening B block by block. `bf16` = 1: bfloat16 (the high half of an f32); 0: IEEE binary16. Stored
// halves are finite (the backend refuses to store anything else), so f16's infinities and NaNs need no case.

/** 2^112: an f16's exponent and mantissa bits moved into an f32's place, times this, are its value (normal
 *  and subnormal alike). */
const F16_SCALE: f32 = 5.192296858534828e33;

/** four halves (sign-extended to i32 lanes) -> four f32. f16: the sign-extended bits shifted left by 13 put the
 *  sign in bit 31 and exponent and mantissa in their f32 places (the mask clears the sign copies in bits 28-30),
 *  then one multiply by 2^112 rebiases the exponent (subnormal halves included). */
// @ts-ignore: decorator
@inline function widen4(x: v128, bf16: i32): v128 {
  if (bf16) return i32x4.shl(x, 16);
  return f32x4.mul(v128.and(i32x4.shl(x, 13), i32x4.splat(0x8fffe000)), f32x4.splat(F16_SCALE));
}

/** the f32 value of one stored half */
// @ts-ignore: decorator
@inline function widen1(h: u32, bf16: i32): f32 {
  if (bf16) return reinterpret<f32>(h << 16);
  const v = reinterpret<f32>((h & 0x7fff) << 13) * F16_SCALE;
  return h & 0x8000 ? -v : v;
}

// @ts-ignore: decorator
@inline function load4h(p: usize, bf16: i32): v128 {
  return widen4(v128.load16x4_s(p), bf16);
}

/** dst[i] = the f32 value of the half src[i], for i < n (embedding rows, reads back to the host). */
export function widenHalf(src: usize, dst: usize, n: i32, bf16: i32): void {
  let i = 0;
  for (; i + 4 <= n; i += 4) v128.store(dst + (<usize>i << 2), load4h(src + (<usize>i << 1), bf16));
  for (; i < n; i++) store<f32>(dst + (<usize>i << 2), widen1(load<u16>(src + (<usize>i << 1)), bf16));
}

/** packB with B stored as halves: bp[p][k][jj] = op(B)[k, 8p + jj] in f32, 0 past column N. */
export function packBHalf(b: usize, bp: usize, N: i32, K: i32, transB: i32, bf16: i32): void {
  const panels = (N + NR - 1) / NR;
  for (let p = 0; p < panels; p++) {
    const base = bp + (<usize>(p * K * NR) << 2);
    const j0 = p * NR;
    const cols = min(NR, N - j0);
    if (transB) {
      // B stored [N,K]: 4 halves of 4 rows at a time, widened, then a 4x4 transpose per half panel
      for (let h = 0; h < 2; h++) {
        const c0 = j0 + h * 4, hc = min(4, max(0, cols - h * 4));
        const dst = base + (<usize>h << 4);
        let k = 0;
        if (hc == 4) {
          const rowBytes = <usize>K << 1;
          const r0 = b + <usize>c0 * rowBytes, r1 = r0 + rowBytes, r2 = r1 + rowBytes, r3 = r2 + rowBytes;
          for (; k + 4 <= K; k += 4) {
            const o = <usize>k << 1;
            transpose4Store(dst + (<usize>k << 5), 32, load4h(r0 + o, bf16), load4h(r1 + o, bf16), load4h(r2 + o, bf16), load4h(r3 + o, bf16));
          }
        }
        for (; k < K; k++) {
          const at = dst + (<usize>k << 5);
          for (let jj = 0; jj < 4; jj++) store<f32>(at + (<usize>jj << 2), jj < hc ? widen1(load<u16>(b + (<usize>((c0 + jj) * K + k) << 1)), bf16) : 0);
        }
      }
    } else if (cols == NR) {
      // B stored [K,N]: 8 consecutive halves of row k
      for (let k = 0; k < K; k++) {
        const src = b + (<usize>(k * N + j0) << 1), at = base + (<usize>k << 5);
        v128.store(at, load4h(src, bf16));
        v128.store(at, load4h(src + 8, bf16), 16);
      }
    } else {
      for (let k = 0; k < K; k++) {
        const at = base + (<usize>k << 5);
        for (let jj = 0; jj < NR; jj++) store<f32>(at + (<usize>jj << 2), jj < cols ? widen1(load<u16>(b + (<usize>(k * N + j0 + jj) << 1)), bf16) : 0);
      }
    }
  }
}

/** matmulFewRows with B stored as halves (A row-major f32, C f32). Each block of B (4 rows when transB, an
 *  8-column strip otherwise) is widened once into `tmp` (4·K floats, or 8·K) and then read as f32 by every pair
 *  of A rows, so the conversion costs one pass over B whatever M is. */
export function matmulFewRowsHalf(
  a: usize, b: usize, c: usize, bias: usize, M: i32, N: i32, K: i32, transB: i32, alpha: f32, beta: f32, bf16: i32, tmp: usize,
): void {
  const rowA = <usize>K << 2, rowC = <usize>N << 2;
  if (transB) {
    const K4 = K & ~3;
    let j = 0;
    for (; j + 4 <= N; j += 4) {
      widenHalf(b + (<usize>(j * K) << 1), tmp, 4 * K, bf16);
      const b0 = tmp, b1 = b0 + rowA, b2 = b1 + rowA, b3 = b2 + rowA;
      for (let i = 0; i < M; i += 2) {
        const two = i + 1 < M;
        const a0 = a + <usize>i * rowA, a1 = two ? a0 + rowA : a0;
        let x00 = f32x4.splat(0), x01 = f32x4.splat(0), x02 = f32x4.splat(0), x03 = f32x4.splat(0);
        let x10 = f32x4.splat(0), x11 = f32x4.splat(0), x12 = f32x4.splat(0), x13 = f32x4.splat(0);
        for (let k = 0; k < K4; k += 4) {
          const o = <usize>k << 2;
          const av0 = v128.load(a0 + o), av1 = v128.load(a1 + o);
          const bv0 = v128.load(b0 + o), bv1 = v128.load(b1 + o), bv2 = v128.load(b2 + o), bv3 = v128.load(b3 + o);
          x00 = madd(av0, bv0, x00); x01 = madd(av0, bv1, x01); x02 = madd(av0, bv2, x02); x03 = madd(av0, bv3, x03);
          x10 = madd(av1, bv0, x10); x11 = madd(av1, bv1, x11); x12 = madd(av1, bv2, x12); x13 = madd(av1, bv3, x13);
        }
        let r0 = reduce4(x00, x01, x02, x03), r1 = reduce4(x10, x11, x12, x13);
        if (K4 < K) {
          const t = <usize>K4 << 2, n = K - K4;
          const t0 = f32x4.replace_lane(f32x4.replace_lane(f32x4.replace_lane(f32x4.splat(
            scalarDot(a0 + t, b0 + t, n)), 1, scalarDot(a0 + t, b1 + t, n)), 2, scalarDot(a0 + t, b2 + t, n)), 3, scalarDot(a0 + t, b3 + t, n));
          const t1 = f32x4.replace_lane(f32x4.replace_lane(f32x4.replace_lane(f32x4.splat(
            scalarDot(a1 + t, b0 + t, n)), 1, scalarDot(a1 + t, b1 + t, n)), 2, scalarDot(a1 + t, b2 + t, n)), 3, scalarDot(a1 + t, b3 + t, n));
          r0 = f32x4.add(r0, t0);
          r1 = f32x4.add(r1, t1);
        }
        const cp = c + <usize>i * rowC + (<usize>j << 2);
        finish(cp, r0, bias, j, 4, alpha, beta);
        if (two) finish(cp + rowC, r1, bias, j, 4, alpha, beta);
      }
    }
    for (; j < N; j++) {
      widenHalf(b + (<usize>(j * K) << 1), tmp, K, bf16);
      for (let i = 0; i < M; i++) storeOne(c + <usize>i * rowC + (<usize>j << 2), scalarDot(a + <usize>i * rowA, tmp, K), bias, j, alpha, beta);
    }
    return;
  }
  // transB = 0: B [K,N] halves; an 8-column strip is widened into tmp [K][8]
  const rowBh = <usize>N << 1;
  const N8 = N & ~7;
  for (let j = 0; j < N8; j += 8) {
    let src = b + (<usize>j << 1);
    for (let k = 0; k < K; k++) {
      const at = tmp + (<usize>k << 5);
      v128.store(at, load4h(src, bf16));
      v128.store(at, load4h(src + 8, bf16), 16);
      src += rowBh;
    }
    for (let i = 0; i < M; i += 2) {
      const two = i + 1 < M;
      const a0 = a + <usize>i * rowA, a1 = two ? a0 + rowA : a0;
      let c00 = f32x4.splat(0), c01 = f32x4.splat(0), c10 = f32x4.splat(0), c11 = f32x4.splat(0);
      let pb = tmp;
      for (let k = 0; k < K; k++) {
        const b0 = v128.load(pb), b1 = v128.load(pb, 16);
        const o = <usize>k << 2;
        const av0 = v128.load32_splat(a0 + o), av1 = v128.load32_splat(a1 + o);
        c00 = madd(av0, b0, c00); c01 = madd(av0, b1, c01);
        c10 = madd(av1, b0, c10); c11 = madd(av1, b1, c11);
        pb += 32;
      }
      const cp = c + <usize>i * rowC + (<usize>j << 2);
      finish(cp, c00, bias, j, 4, alpha, beta);
      finish(cp + 16, c01, bias, j + 4, 4, alpha, beta);
      if (two) {
        finish(cp + rowC, c10, bias, j, 4, alpha, beta);
        finish(cp + rowC + 16, c11, bias, j + 4, 4, alpha, beta);
      }
    }
  }
  for (let j = N8; j < N; j++) {
    for (let i = 0; i < M; i++) {
      const ai = a + <usize>i * rowA;
      let s0: f32 = 0;
      for (let k = 0; k < K; k++) s0 += load<f32>(ai + (<usize>k << 2)) * widen1(load<u16>(b + (<usize>(k * N + j) << 1)), bf16);
      storeOne(c + <usize>i * rowC + (<usize>j << 2), s0, bias, j, alpha, beta);
    }
  }
}
