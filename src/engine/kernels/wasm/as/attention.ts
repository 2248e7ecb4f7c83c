// AssemblyScript (WebAssembly SIMD): causal GQA attention and its backward, same semantics as the TypeScript
// reference kernels/cpu/attention.ts (read that file for the math). Dot products and row updates over the head
// dimension Dh run 4 lanes at a time with a scalar tail, so any Dh works.
// Shapes: q, o, dout, dq [B,T,H,Dh]; k, v [B,S,Hkv,Dh] (backward: S = T); keyStart [B] i32; lse [B,H,T];
// scores: scratch of S floats. Pointers are byte offsets into the imported memory.

import { hsum, madd } from './simd';

// @ts-ignore: decorator
@inline function dot(x: usize, y: usize, n: i32): f32 {
  let acc = f32x4.splat(0);
  let d = 0;
  for (; d + 4 <= n; d += 4) acc = madd(v128.load(x + (<usize>d << 2)), v128.load(y + (<usize>d << 2)), acc);
  let s = hsum(acc);
  for (; d < n; d++) s += load<f32>(x + (<usize>d << 2)) * load<f32>(y + (<usize>d << 2));
  return s;
}

/** y[0..n) += alpha * x[0..n) */
// @ts-ignore: decorator
@inline function axpy(alpha: f32, x: usize, y: usize, n: i32): void {
  const a = f32x4.splat(alpha);
  let d = 0;
  for (; d + 4 <= n; d += 4) {
    const at = y + (<usize>d << 2);
    v128.store(at, madd(a, v128.load(x + (<usize>d << 2)), v128.load(at)));
  }
  for (; d < n; d++) {
    const at = y + (<usize>d << 2);
    store<f32>(at, load<f32>(at) + alpha * load<f32>(x + (<usize>d << 2)));
  }
}

export function attention(
  q: usize, k: usize, v: usize, keyStart: usize, o: usize, lse: usize, scores: usize,
  B: i32, T: i32, S: i32, past: i32, H: i32, Hkv: i32, Dh: i32,
): void {
  const group = H / Hkv;
  const scale: f32 = 1 / Mathf.sqrt(<f32>Dh);
  const rowBytes = <usize>Dh << 2;
  for (let b = 0; b < B; b++) {
    const j0 = max(0, load<i32>(keyStart + (<usize>b << 2)));
    for (let h = 0; h < H; h++) {
      const kvh = h / group;
      for (let i = 0; i < T; i++) {
        const qp = q + <usize>((b * T + i) * H + h) * rowBytes;
        const op = o + <usize>((b * T + i) * H + h) * rowBytes;
        const lp = lse + (<usize>((b * H + h) * T + i) << 2);
        memory.fill(op, 0, rowBytes);
        const jEnd = past + i;
        if (j0 > jEnd) {
          store<f32>(lp, 0);
          continue;
        }
        let mx: f32 = -Infinity;
        for (let j = j0; j <= jEnd; j++) {
          const s = dot(qp, k + <usize>((b * S + j) * Hkv + kvh) * rowBytes, Dh) * scale;
          store<f32>(scores + (<usize>j << 2), s);
          if (s > mx) mx = s;
        }
        let sum: f32 = 0;
        for (let j = j0; j <= jEnd; j++) {
          const e = Mathf.exp(load<f32>(scores + (<usize>j << 2)) - mx);
          sum += e;
          axpy(e, v + <usize>((b * S + j) * Hkv + kvh) * rowBytes, op, Dh);
        }
        const inv = f32x4.splat(1 / sum);
        let d = 0;
        for (; d + 4 <= Dh; d += 4) v128.store(op + (<usize>d << 2), f32x4.mul(v128.load(op + (<usize>d << 2)), inv));
        for (; d < Dh; d++) store<f32>(op + (<usize>d << 2), load<f32>(op + (<usize>d << 2)) / sum);
        store<f32>(lp, mx + Mathf.log(sum));
      }
    }
  }
}

/** Training backward (past = 0, S = T); dq, dk, dv overwritten. */
export function attentionBackward(
  q: usize, k: usize, v: usize, keyStart: usize, o: usize, lse: usize, dout: usize, dq: usize, dk: usize, dv: usize,
  B: i32, T: i32, H: i32, Hkv: i32, Dh: i32,
): void {
  const group = H / Hkv;
  const scale: f32 = 1 / Mathf.sqrt(<f32>Dh);
  const rowBytes = <usize>Dh << 2;
  const kvBytes = <usize>(B * T * Hkv) * rowBytes;
  memory.fill(dk, 0, kvBytes);
  memory.fill(dv, 0, kvBytes);
  for (let b = 0; b < B; b++) {
    const j0 = max(0, load<i32>(keyStart + (<usize>b << 2)));
    for (let h = 0; h < H; h++) {
      const kvh = h / group;
      for (let i = 0; i < T; i++) {
        const row = <usize>((b * T + i) * H + h) * rowBytes;
        const qp = q + row, dop = dout + row, dqp = dq + row;
        memory.fill(dqp, 0, rowBytes);
        if (j0 > i) continue;
        const l = load<f32>(lse + (<usize>((b * H + h) * T + i) << 2));
        const delta = dot(dop, o + row, Dh);
        for (let j = j0; j <= i; j++) {
          const kv = <usize>((b * T + j) * Hkv + kvh) * rowBytes;
          const s = dot(qp, k + kv, Dh);
          const dp = dot(dop, v + kv, Dh);
          const p = Mathf.exp(s * scale - l);
          const ds = p * (dp - delta) * scale;
          axpy(p, dop, dv + kv, Dh);
          axpy(ds, qp, dk + kv, Dh);
          axpy(ds, k + kv, dqp, Dh);
        }
      }
    }
  }
}
