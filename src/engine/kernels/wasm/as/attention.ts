// AssemblyScript (WebAssembly SIMD): causal GQA attention and its backward, same semantics as the TypeScript
// reference kernels/cpu/attention.ts (read that file for the math). Keys are taken four at a time: four dot
// products over the head dimension (4 lanes each, scalar tail for any Dh) are reduced into one vector of four
// scores, exponentials run on four lanes (expv), and one pass over Dh adds four value rows. A scalar path handles
// the last (count mod 4) keys. The query heads of a GQA group read the same keys and values: they run two at a time,
// each key and value row loaded once for both (a group of odd size ends with one head alone). Each head's forward
// takes the same operations in the same order either way; the backward adds both heads' terms to a key's dk, dv at
// once.
// Shapes: q, o, dout, dq [B,T,H,Dh]; k, v [B,S,Hkv,Dh] (backward: S = T); keyStart [B] i32; lse [B,H,T];
// scores: scratch of 2S floats. Pointers are byte offsets into the imported memory.

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

/** The second head's result of the *2 helpers below (WebAssembly functions return one value). */
let second: v128 = f32x4.splat(0);

/** dot4 for two queries x, z against the same four rows: returns x's, leaves z's in `second` (each the same
 *  operations in the same order as dot4) */
// @ts-ignore: decorator
@inline function dot4x2(x: usize, z: usize, y: usize, stride: usize, n: i32): v128 {
  let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
  let b0 = f32x4.splat(0), b1 = f32x4.splat(0), b2 = f32x4.splat(0), b3 = f32x4.splat(0);
  const y1 = y + stride, y2 = y1 + stride, y3 = y2 + stride;
  let d = 0;
  for (; d + 4 <= n; d += 4) {
    const off = <usize>d << 2;
    const xv = v128.load(x + off), zv = v128.load(z + off);
    const r0 = v128.load(y + off), r1 = v128.load(y1 + off), r2 = v128.load(y2 + off), r3 = v128.load(y3 + off);
    a0 = madd(xv, r0, a0); a1 = madd(xv, r1, a1); a2 = madd(xv, r2, a2); a3 = madd(xv, r3, a3);
    b0 = madd(zv, r0, b0); b1 = madd(zv, r1, b1); b2 = madd(zv, r2, b2); b3 = madd(zv, r3, b3);
  }
  let r = reduce4(a0, a1, a2, a3);
  let t = reduce4(b0, b1, b2, b3);
  if (d < n) {
    let t0: f32 = 0, t1: f32 = 0, t2: f32 = 0, t3: f32 = 0;
    let u0: f32 = 0, u1: f32 = 0, u2: f32 = 0, u3: f32 = 0;
    for (; d < n; d++) {
      const off = <usize>d << 2;
      const xs = load<f32>(x + off), zs = load<f32>(z + off);
      const r0 = load<f32>(y + off), r1 = load<f32>(y1 + off), r2 = load<f32>(y2 + off), r3 = load<f32>(y3 + off);
      t0 += xs * r0; t1 += xs * r1; t2 += xs * r2; t3 += xs * r3;
      u0 += zs * r0; u1 += zs * r1; u2 += zs * r2; u3 += zs * r3;
    }
    r = f32x4.add(r, f32x4.replace_lane(f32x4.replace_lane(f32x4.replace_lane(f32x4.splat(t0), 1, t1), 2, t2), 3, t3));
    t = f32x4.add(t, f32x4.replace_lane(f32x4.replace_lane(f32x4.replace_lane(f32x4.splat(u0), 1, u1), 2, u2), 3, u3));
  }
  second = t;
  return r;
}

/** axpy4 into two outputs y (weights w) and z (weights w2) from the same four rows, each as axpy4 does it */
// @ts-ignore: decorator
@inline function axpy4x2(w: v128, w2: v128, x: usize, stride: usize, y: usize, z: usize, n: i32): void {
  const w0 = f32x4.splat(f32x4.extract_lane(w, 0)), w1 = f32x4.splat(f32x4.extract_lane(w, 1));
  const w2s = f32x4.splat(f32x4.extract_lane(w, 2)), w3 = f32x4.splat(f32x4.extract_lane(w, 3));
  const v0 = f32x4.splat(f32x4.extract_lane(w2, 0)), v1 = f32x4.splat(f32x4.extract_lane(w2, 1));
  const v2 = f32x4.splat(f32x4.extract_lane(w2, 2)), v3 = f32x4.splat(f32x4.extract_lane(w2, 3));
  const x1 = x + stride, x2 = x1 + stride, x3 = x2 + stride;
  let d = 0;
  for (; d + 4 <= n; d += 4) {
    const off = <usize>d << 2;
    const r0 = v128.load(x + off), r1 = v128.load(x1 + off), r2 = v128.load(x2 + off), r3 = v128.load(x3 + off);
    let acc = v128.load(y + off);
    acc = madd(w0, r0, acc); acc = madd(w1, r1, acc); acc = madd(w2s, r2, acc); acc = madd(w3, r3, acc);
    v128.store(y + off, acc);
    let acc2 = v128.load(z + off);
    acc2 = madd(v0, r0, acc2); acc2 = madd(v1, r1, acc2); acc2 = madd(v2, r2, acc2); acc2 = madd(v3, r3, acc2);
    v128.store(z + off, acc2);
  }
  for (; d < n; d++) {
    const off = <usize>d << 2;
    const r0 = load<f32>(x + off), r1 = load<f32>(x1 + off), r2 = load<f32>(x2 + off), r3 = load<f32>(x3 + off);
    store<f32>(y + off, load<f32>(y + off)
      + f32x4.extract_lane(w, 0) * r0 + f32x4.extract_lane(w, 1) * r1
      + f32x4.extract_lane(w, 2) * r2 + f32x4.extract_lane(w, 3) * r3);
    store<f32>(z + off, load<f32>(z + off)
      + f32x4.extract_lane(w2, 0) * r0 + f32x4.extract_lane(w2, 1) * r1
      + f32x4.extract_lane(w2, 2) * r2 + f32x4.extract_lane(w2, 3) * r3);
  }
}

/** y[0..n) += a * x[0..n) + c * z[0..n) */
// @ts-ignore: decorator
@inline function axpy2(a: f32, x: usize, c: f32, z: usize, y: usize, n: i32): void {
  const av = f32x4.splat(a), cv = f32x4.splat(c);
  let d = 0;
  for (; d + 4 <= n; d += 4) {
    const at = y + (<usize>d << 2), off = <usize>d << 2;
    v128.store(at, madd(cv, v128.load(z + off), madd(av, v128.load(x + off), v128.load(at))));
  }
  for (; d < n; d++) {
    const at = y + (<usize>d << 2), off = <usize>d << 2;
    store<f32>(at, load<f32>(at) + a * load<f32>(x + off) + c * load<f32>(z + off));
  }
}

/** One query row against keys [j0, jEnd): o = softmax(q k^T scale) v, lse. */
// @ts-ignore: decorator
@inline function attendOne(
  qp: usize, op: usize, lp: usize, kBase: usize, vBase: usize, keyStride: usize, j0: i32, jEnd: i32, scale: f32,
  Dh: i32, scores: usize,
): void {
  const rowBytes = <usize>Dh << 2;
  memory.fill(op, 0, rowBytes);
  if (j0 >= jEnd) {
    store<f32>(lp, 0);
    return;
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
  normalize(op, lp, mx, sum, Dh);
}

/** o /= sum; lse = max + log(sum) */
// @ts-ignore: decorator
@inline function normalize(op: usize, lp: usize, mx: f32, sum: f32, Dh: i32): void {
  const inv = f32x4.splat(1 / sum);
  let d = 0;
  for (; d + 4 <= Dh; d += 4) v128.store(op + (<usize>d << 2), f32x4.mul(v128.load(op + (<usize>d << 2)), inv));
  for (; d < Dh; d++) store<f32>(op + (<usize>d << 2), load<f32>(op + (<usize>d << 2)) / sum);
  store<f32>(lp, mx + Mathf.log(sum));
}

/** attendOne for two query rows (two heads of a GQA group) over the same keys: each key and value row is loaded
 *  once for both; scores of the second at scores + 4S. */
// @ts-ignore: decorator
@inline function attendTwo(
  qp: usize, qp2: usize, op: usize, op2: usize, lp: usize, lp2: usize, kBase: usize, vBase: usize, keyStride: usize,
  j0: i32, jEnd: i32, scale: f32, Dh: i32, scores: usize, scores2: usize,
): void {
  const rowBytes = <usize>Dh << 2;
  memory.fill(op, 0, rowBytes);
  memory.fill(op2, 0, rowBytes);
  if (j0 >= jEnd) {
    store<f32>(lp, 0);
    store<f32>(lp2, 0);
    return;
  }
  let mv = f32x4.splat(-Infinity), mv2 = f32x4.splat(-Infinity);
  let j = j0;
  for (; j + 4 <= jEnd; j += 4) {
    const s = f32x4.mul(dot4x2(qp, qp2, kBase + <usize>j * keyStride, keyStride, Dh), f32x4.splat(scale));
    const s2 = f32x4.mul(second, f32x4.splat(scale));
    v128.store(scores + (<usize>j << 2), s);
    v128.store(scores2 + (<usize>j << 2), s2);
    mv = f32x4.max(mv, s);
    mv2 = f32x4.max(mv2, s2);
  }
  let mx = hmax(mv), mx2 = hmax(mv2);
  for (; j < jEnd; j++) {
    const kp = kBase + <usize>j * keyStride;
    const s = dot(qp, kp, Dh) * scale, s2 = dot(qp2, kp, Dh) * scale;
    store<f32>(scores + (<usize>j << 2), s);
    store<f32>(scores2 + (<usize>j << 2), s2);
    mx = max(mx, s);
    mx2 = max(mx2, s2);
  }
  let sv = f32x4.splat(0), sv2 = f32x4.splat(0);
  const mxv = f32x4.splat(mx), mxv2 = f32x4.splat(mx2);
  j = j0;
  for (; j + 4 <= jEnd; j += 4) {
    const e = expv(f32x4.sub(v128.load(scores + (<usize>j << 2)), mxv));
    const e2 = expv(f32x4.sub(v128.load(scores2 + (<usize>j << 2)), mxv2));
    sv = f32x4.add(sv, e);
    sv2 = f32x4.add(sv2, e2);
    axpy4x2(e, e2, vBase + <usize>j * keyStride, keyStride, op, op2, Dh);
  }
  let sum = hsum(sv), sum2 = hsum(sv2);
  for (; j < jEnd; j++) {
    const vp = vBase + <usize>j * keyStride;
    const e = Mathf.exp(load<f32>(scores + (<usize>j << 2)) - mx);
    const e2 = Mathf.exp(load<f32>(scores2 + (<usize>j << 2)) - mx2);
    sum += e;
    sum2 += e2;
    axpy(e, vp, op, Dh);
    axpy(e2, vp, op2, Dh);
  }
  normalize(op, lp, mx, sum, Dh);
  normalize(op2, lp2, mx2, sum2, Dh);
}

export function attention(
  q: usize, k: usize, v: usize, keyStart: usize, o: usize, lse: usize, scores: usize,
  B: i32, T: i32, S: i32, past: i32, H: i32, Hkv: i32, Dh: i32,
): void {
  const group = H / Hkv;
  const scale: f32 = 1 / Mathf.sqrt(<f32>Dh);
  const rowBytes = <usize>Dh << 2;
  const keyStride = <usize>Hkv * rowBytes; // from key row j to j+1
  const scores2 = scores + (<usize>S << 2);
  for (let b = 0; b < B; b++) {
    const j0 = max(0, load<i32>(keyStart + (<usize>b << 2)));
    for (let kvh = 0; kvh < Hkv; kvh++) {
      const kBase = k + <usize>(b * S * Hkv + kvh) * rowBytes; // key row 0 of this sequence and kv head
      const vBase = v + <usize>(b * S * Hkv + kvh) * rowBytes;
      for (let i = 0; i < T; i++) {
        const jEnd = past + i + 1; // exclusive
        const row = q + <usize>((b * T + i) * H) * rowBytes; // head 0 of query i
        const orow = o + <usize>((b * T + i) * H) * rowBytes;
        let h = kvh * group;
        const hEnd = h + group;
        for (; h + 2 <= hEnd; h += 2) {
          const lp = lse + (<usize>((b * H + h) * T + i) << 2);
          attendTwo(
            row + <usize>h * rowBytes, row + <usize>(h + 1) * rowBytes, orow + <usize>h * rowBytes,
            orow + <usize>(h + 1) * rowBytes, lp, lp + (<usize>T << 2), kBase, vBase, keyStride, j0, jEnd, scale, Dh,
            scores, scores2,
          );
        }
        if (h < hEnd) {
          const lp = lse + (<usize>((b * H + h) * T + i) << 2);
          attendOne(row + <usize>h * rowBytes, orow + <usize>h * rowBytes, lp, kBase, vBase, keyStride, j0, jEnd, scale, Dh, scores);
        }
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
    for (let kvh = 0; kvh < Hkv; kvh++) {
      const base = <usize>(b * S * Hkv + kvh) * rowBytes; // key row 0 of this sequence and kv head
      for (let t = 0; t < T; t++) {
        const i = past + t; // the query's own key row
        let h = kvh * group;
        const hEnd = h + group;
        for (; h + 2 <= hEnd; h += 2) {
          const row = <usize>((b * T + t) * H + h) * rowBytes;
          const row2 = row + rowBytes;
          memory.fill(dq + row, 0, 2 * rowBytes);
          if (j0 > i) continue;
          const lp = lse + (<usize>((b * H + h) * T + t) << 2);
          backTwo(
            q + row, q + row2, o + row, o + row2, dout + row, dout + row2, dq + row, dq + row2, load<f32>(lp),
            load<f32>(lp + (<usize>T << 2)), k, v, dk, dv, base, keyStride, j0, i, scale, Dh,
          );
        }
        if (h < hEnd) {
          const row = <usize>((b * T + t) * H + h) * rowBytes;
          memory.fill(dq + row, 0, rowBytes);
          if (j0 > i) continue;
          const l = load<f32>(lse + (<usize>((b * H + h) * T + t) << 2));
          backOne(q + row, o + row, dout + row, dq + row, l, k, v, dk, dv, base, keyStride, j0, i, scale, Dh);
        }
      }
    }
  }
}

/** One query row's terms of the backward over keys [j0, i]: dq of the row, dk and dv of each key added. */
// @ts-ignore: decorator
@inline function backOne(
  qp: usize, op: usize, dop: usize, dqp: usize, l: f32, k: usize, v: usize, dk: usize, dv: usize, base: usize,
  keyStride: usize, j0: i32, i: i32, scale: f32, Dh: i32,
): void {
  const delta = dot(dop, op, Dh);
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

/** backOne for two query rows (two heads of a GQA group): each key and value row is loaded once for both, and each
 *  key's dk, dv take both rows' terms in one pass. */
// @ts-ignore: decorator
@inline function backTwo(
  qp: usize, qp2: usize, op: usize, op2: usize, dop: usize, dop2: usize, dqp: usize, dqp2: usize, l: f32, l2: f32,
  k: usize, v: usize, dk: usize, dv: usize, base: usize, keyStride: usize, j0: i32, i: i32, scale: f32, Dh: i32,
): void {
  const delta = dot(dop, op, Dh), delta2 = dot(dop2, op2, Dh);
  const sc = f32x4.splat(scale);
  let j = j0;
  for (; j + 4 <= i + 1; j += 4) {
    const kv = base + <usize>j * keyStride;
    const s = dot4x2(qp, qp2, k + kv, keyStride, Dh);
    const s2 = second;
    const dp = dot4x2(dop, dop2, v + kv, keyStride, Dh);
    const dp2 = second;
    const p = expv(f32x4.sub(f32x4.mul(s, sc), f32x4.splat(l)));
    const p2 = expv(f32x4.sub(f32x4.mul(s2, sc), f32x4.splat(l2)));
    const ds = f32x4.mul(f32x4.mul(p, f32x4.sub(dp, f32x4.splat(delta))), sc);
    const ds2 = f32x4.mul(f32x4.mul(p2, f32x4.sub(dp2, f32x4.splat(delta2))), sc);
    axpy2(f32x4.extract_lane(p, 0), dop, f32x4.extract_lane(p2, 0), dop2, dv + kv, Dh);
    axpy2(f32x4.extract_lane(p, 1), dop, f32x4.extract_lane(p2, 1), dop2, dv + kv + keyStride, Dh);
    axpy2(f32x4.extract_lane(p, 2), dop, f32x4.extract_lane(p2, 2), dop2, dv + kv + 2 * keyStride, Dh);
    axpy2(f32x4.extract_lane(p, 3), dop, f32x4.extract_lane(p2, 3), dop2, dv + kv + 3 * keyStride, Dh);
    axpy2(f32x4.extract_lane(ds, 0), qp, f32x4.extract_lane(ds2, 0), qp2, dk + kv, Dh);
    axpy2(f32x4.extract_lane(ds, 1), qp, f32x4.extract_lane(ds2, 1), qp2, dk + kv + keyStride, Dh);
    axpy2(f32x4.extract_lane(ds, 2), qp, f32x4.extract_lane(ds2, 2), qp2, dk + kv + 2 * keyStride, Dh);
    axpy2(f32x4.extract_lane(ds, 3), qp, f32x4.extract_lane(ds2, 3), qp2, dk + kv + 3 * keyStride, Dh);
    axpy4x2(ds, ds2, k + kv, keyStride, dqp, dqp2, Dh);
  }
  for (; j <= i; j++) {
    const kv = base + <usize>j * keyStride;
    const p = Mathf.exp(dot(qp, k + kv, Dh) * scale - l);
    const p2 = Mathf.exp(dot(qp2, k + kv, Dh) * scale - l2);
    const ds = p * (dot(dop, v + kv, Dh) - delta) * scale;
    const ds2 = p2 * (dot(dop2, v + kv, Dh) - delta2) * scale;
    axpy2(p, dop, p2, dop2, dv + kv, Dh);
    axpy2(ds, qp, ds2, qp2, dk + kv, Dh);
    axpy(ds, k + kv, dqp, Dh);
    axpy(ds2, k + kv, dqp2, Dh);
  }
}
