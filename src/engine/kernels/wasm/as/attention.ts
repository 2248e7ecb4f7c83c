// AssemblyScript (WebAssembly SIMD): causal GQA attention and its backward, same semantics as the TypeScript
// reference kernels/cpu/attention.ts (read that file for the math). Keys are taken four at a time: four dot
// products over the head dimension (4 lanes each, scalar tail for any Dh) are reduced into one vector of four
// scores, exponentials run on four lanes (expv), and one pass over Dh adds four value rows. A scalar path handles
// the last (count mod 4) keys.
// Shapes: q, o, dout, dq [B,T,H,Dh]; k, v [B,S,Hkv,Dh] (backward: S = T); keyStart [B] i32; lse [B,H,T];
// scores: scratch of S floats. Pointers are byte offsets into the imported memory.

import { expv, hmax, hsum, madd, reduce4 } from './simd';

// @ts-ignore: decorator
@inline function dot(x: usize, y: usize, n: i32): f32 {
  let acc = f32x4.splat(0);
  let d = 0;
  for (; d + 4 <= n; d += 4) acc = madd(v128.load(x + (<usize>d << 2)), v128.load(y + (<usize>d << 2)), acc);
  let s = hsum(acc);
  for (; d < n; d++) s += load<f32>(x + (<usize>d << 2)) * load<f32>(y + (<usize>d << 2));
  return s;
}

/** [x·y0, x·y1, x·y2, x·y3] where y_t = y + t*stride (bytes) */
// @ts-ignore: decorator
@inline function dot4(x: usize, y: usize, stride: usize, n: i32): v128 {
  let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
  const y1 = y + stride, y2 = y1 + stride, y3 = y2 + stride;
  let d = 0;
  for (; d + 4 <= n; d += 4) {
    const off = <usize>d << 2;
    const xv = v128.load(x + off);
    a0 = madd(xv, v128.load(y + off), a0);
    a1 = madd(xv, v128.load(y1 + off), a1);
    a2 = madd(xv, v128.load(y2 + off), a2);
    a3 = madd(xv, v128.load(y3 + off), a3);
  }
  let r = reduce4(a0, a1, a2, a3);
  if (d < n) {
    let t0: f32 = 0, t1: f32 = 0, t2: f32 = 0, t3: f32 = 0;
    for (; d < n; d++) {
      const off = <usize>d << 2;
      const xs = load<f32>(x + off);
      t0 += xs * load<f32>(y + off); t1 += xs * load<f32>(y1 + off);
      t2 += xs * load<f32>(y2 + off); t3 += xs * load<f32>(y3 + off);
    }
    let t = f32x4.splat(t0);
    t = f32x4.replace_lane(t, 1, t1);
    t = f32x4.replace_lane(t, 2, t2);
    t = f32x4.replace_lane(t, 3, t3);
    r = f32x4.add(r, t);
  }
  return r;
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

/** y[0..n) += Σ_t w[t] * x_t[0..n) over four rows x_t = x + t*stride (bytes) */
// @ts-ignore: decorator
@inline function axpy4(w: v128, x: usize, stride: usize, y: usize, n: i32): void {
  const w0 = f32x4.splat(f32x4.extract_lane(w, 0)), w1 = f32x4.splat(f32x4.extract_lane(w, 1));
  const w2 = f32x4.splat(f32x4.extract_lane(w, 2)), w3 = f32x4.splat(f32x4.extract_lane(w, 3));
  const x1 = x + stride, x2 = x1 + stride, x3 = x2 + stride;
  let d = 0;
  for (; d + 4 <= n; d += 4) {
    const off = <usize>d << 2;
    let acc = v128.load(y + off);
    acc = madd(w0, v128.load(x + off), acc);
    acc = madd(w1, v128.load(x1 + off), acc);
    acc = madd(w2, v128.load(x2 + off), acc);
    acc = madd(w3, v128.load(x3 + off), acc);
    v128.store(y + off, acc);
  }
  for (; d < n; d++) {
    const off = <usize>d << 2;
    store<f32>(y + off, load<f32>(y + off)
      + f32x4.extract_lane(w, 0) * load<f32>(x + off) + f32x4.extract_lane(w, 1) * load<f32>(x1 + off)
      + f32x4.extract_lane(w, 2) * load<f32>(x2 + off) + f32x4.extract_lane(w, 3) * load<f32>(x3 + off));
  }
}

export function attention(
  q: usize, k: usize, v: usize, keyStart: usize, o: usize, lse: usize, scores: usize,
  B: i32, T: i32, S: i32, past: i32, H: i32, Hkv: i32, Dh: i32,
): void {
  const group = H / Hkv;
  const scale: f32 = 1 / Mathf.sqrt(<f32>Dh);
  const rowBytes = <usize>Dh << 2;
  const keyStride = <usize>Hkv * rowBytes; // from key row j to j+1
  for (let b = 0; b < B; b++) {
    const j0 = max(0, load<i32>(keyStart + (<usize>b << 2)));
    for (let h = 0; h < H; h++) {
      const kvh = h / group;
      const kBase = k + <usize>(b * S * Hkv + kvh) * rowBytes; // key row 0 of this sequence and kv head
      const vBase = v + <usize>(b * S * Hkv + kvh) * rowBytes;
      for (let i = 0; i < T; i++) {
        const qp = q + <usize>((b * T + i) * H + h) * rowBytes;
        const op = o + <usize>((b * T + i) * H + h) * rowBytes;
        const lp = lse + (<usize>((b * H + h) * T + i) << 2);
        memory.fill(op, 0, rowBytes);
        const jEnd = past + i + 1; // exclusive
        if (j0 >= jEnd) {
          store<f32>(lp, 0);
          continue;
        }
        // scores, four keys at a time, and their max
        let mv = f32x4.splat(-Infinity);
        let j = j0;
        for (; j + 4 <= jEnd; j += 4) {
          const s = f32x4.mul(dot4(qp, kBase + <usize>j * keyStride, keyStride, Dh), f32x4.splat(scale));
          v128.store(scores + (<usize>j << 2), s);
          mv = f32x4.max(mv, s);
        }
        let mx = hmax(mv);
        for (; j < jEnd; j++) {
          const s = dot(qp, kBase + <usize>j * keyStride, Dh) * scale;
          store<f32>(scores + (<usize>j << 2), s);
          mx = max(mx, s);
        }
        // weights e_j = exp(s_j - max), their sum, and o = Σ e_j v_j
        let sv = f32x4.splat(0);
        const mxv = f32x4.splat(mx);
        j = j0;
        for (; j + 4 <= jEnd; j += 4) {
          const e = expv(f32x4.sub(v128.load(scores + (<usize>j << 2)), mxv));
          sv = f32x4.add(sv, e);
          axpy4(e, vBase + <usize>j * keyStride, keyStride, op, Dh);
        }
        let sum = hsum(sv);
        for (; j < jEnd; j++) {
          const e = Mathf.exp(load<f32>(scores + (<usize>j << 2)) - mx);
          sum += e;
          axpy(e, vBase + <usize>j * keyStride, op, Dh);
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

/** Backward of attention (query i at key row past + i; dk, dv [B, S]); dq, dk, dv overwritten. */
export function attentionBackward(
  q: usize, k: usize, v: usize, keyStart: usize, o: usize, lse: usize, dout: usize, dq: usize, dk: usize, dv: usize,
  B: i32, T: i32, S: i32, past: i32, H: i32, Hkv: i32, Dh: i32,
): void {
  const group = H / Hkv;
  const scale: f32 = 1 / Mathf.sqrt(<f32>Dh);
  const rowBytes = <usize>Dh << 2;
  const keyStride = <usize>Hkv * rowBytes;
  const kvBytes = <usize>(B * S * Hkv) * rowBytes;
  memory.fill(dk, 0, kvBytes);
  memory.fill(dv, 0, kvBytes);
  for (let b = 0; b < B; b++) {
    const j0 = max(0, load<i32>(keyStart + (<usize>b << 2)));
    for (let h = 0; h < H; h++) {
      const kvh = h / group;
      const base = <usize>(b * S * Hkv + kvh) * rowBytes; // key row 0 of this sequence and kv head
      for (let t = 0; t < T; t++) {
        const i = past + t; // the query's own key row
        const row = <usize>((b * T + t) * H + h) * rowBytes;
        const qp = q + row, dop = dout + row, dqp = dq + row;
        memory.fill(dqp, 0, rowBytes);
        if (j0 > i) continue;
        const l = load<f32>(lse + (<usize>((b * H + h) * T + t) << 2));
        const delta = dot(dop, o + row, Dh);
        let j = j0;
        for (; j + 4 <= i + 1; j += 4) {
          const kv = base + <usize>j * keyStride;
          const s = dot4(qp, k + kv, keyStride, Dh);
          const dp = dot4(dop, v + kv, keyStride, Dh);
          const p = expv(f32x4.sub(f32x4.mul(s, f32x4.splat(scale)), f32x4.splat(l)));
          const ds = f32x4.mul(f32x4.mul(p, f32x4.sub(dp, f32x4.splat(delta))), f32x4.splat(scale));
          axpy(f32x4.extract_lane(p, 0), dop, dv + kv, Dh);
          axpy(f32x4.extract_lane(p, 1), dop, dv + kv + keyStride, Dh);
          axpy(f32x4.extract_lane(p, 2), dop, dv + kv + 2 * keyStride, Dh);
          axpy(f32x4.extract_lane(p, 3), dop, dv + kv + 3 * keyStride, Dh);
          axpy(f32x4.extract_lane(ds, 0), qp, dk + kv, Dh);
          axpy(f32x4.extract_lane(ds, 1), qp, dk + kv + keyStride, Dh);
          axpy(f32x4.extract_lane(ds, 2), qp, dk + kv + 2 * keyStride, Dh);
          axpy(f32x4.extract_lane(ds, 3), qp, dk + kv + 3 * keyStride, Dh);
          axpy4(ds, k + kv, keyStride, dqp, Dh);
        }
        for (; j <= i; j++) {
          const kv = base + <usize>j * keyStride;
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
