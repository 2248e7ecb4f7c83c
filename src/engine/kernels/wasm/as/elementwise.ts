// AssemblyScript (WebAssembly SIMD): the per-element and per-row kernels that the model calls once per layer —
// RMSNorm and its backward, SwiGLU (also on packed [gate | up] rows) and its backward, axpby, AdamW — four lanes at a time with a scalar tail —
// and the row copies of the embedding lookup (gatherRows) and of the fused layer's q, k, v split (qkvRope).
// Same math as the TypeScript references in kernels/cpu/ (rmsnorm.ts, swiglu.ts, elementwise.ts, adamw.ts), in f32.
// Pointers are byte offsets into the imported memory; 0 means "not given" for optional tensors.

import { expv, hsum, madd } from './simd';

// @ts-ignore: decorator
@inline function at(p: usize, i: i32): usize {
  return p + (<usize>i << 2);
}

/** y[R,D] = x * rstd * w;  rstd[R] = 1 / sqrt(mean(x²) + eps) */
export function rmsnorm(x: usize, w: usize, y: usize, rstd: usize, R: i32, D: i32, eps: f32): void {
  for (let r = 0; r < R; r++) {
    const xr = x + (<usize>(r * D) << 2), yr = y + (<usize>(r * D) << 2);
    let acc = f32x4.splat(0);
    let d = 0;
    for (; d + 4 <= D; d += 4) { const v = v128.load(at(xr, d)); acc = madd(v, v, acc); }
    let ss = hsum(acc);
    for (; d < D; d++) { const v = load<f32>(at(xr, d)); ss += v * v; }
    const s: f32 = 1 / Mathf.sqrt(ss / <f32>D + eps);
    store<f32>(at(rstd, r), s);
    const sv = f32x4.splat(s);
    d = 0;
    for (; d + 4 <= D; d += 4) v128.store(at(yr, d), f32x4.mul(f32x4.mul(v128.load(at(xr, d)), sv), v128.load(at(w, d))));
    for (; d < D; d++) store<f32>(at(yr, d), load<f32>(at(xr, d)) * s * load<f32>(at(w, d)));
  }
}

/** dx = rstd * dy * w - rstd³/D * x * Σ(dy w x)  (added to dx when accumulate);  dw += dy * x * rstd (dw != 0) */
export function rmsnormBackward(
  x: usize, w: usize, rstd: usize, dy: usize, dx: usize, dw: usize, R: i32, D: i32, accumulate: i32,
): void {
  for (let r = 0; r < R; r++) {
    const off = <usize>(r * D) << 2;
    const xr = x + off, dyr = dy + off, dxr = dx + off;
    const s = load<f32>(at(rstd, r));
    let acc = f32x4.splat(0);
    let d = 0;
    for (; d + 4 <= D; d += 4) acc = madd(f32x4.mul(v128.load(at(dyr, d)), v128.load(at(w, d))), v128.load(at(xr, d)), acc);
    let dot = hsum(acc);
    for (; d < D; d++) dot += load<f32>(at(dyr, d)) * load<f32>(at(w, d)) * load<f32>(at(xr, d));
    const c: f32 = (s * s * s * dot) / <f32>D;
    const sv = f32x4.splat(s), cv = f32x4.splat(c);
    d = 0;
    for (; d + 4 <= D; d += 4) {
      const dyv = v128.load(at(dyr, d)), xv = v128.load(at(xr, d));
      let g = f32x4.sub(f32x4.mul(f32x4.mul(sv, dyv), v128.load(at(w, d))), f32x4.mul(cv, xv));
      if (accumulate) g = f32x4.add(g, v128.load(at(dxr, d)));
      v128.store(at(dxr, d), g);
      if (dw) v128.store(at(dw, d), madd(f32x4.mul(dyv, xv), sv, v128.load(at(dw, d))));
    }
    for (; d < D; d++) {
      const dyv = load<f32>(at(dyr, d)), xv = load<f32>(at(xr, d));
      let g = s * dyv * load<f32>(at(w, d)) - c * xv;
      if (accumulate) g += load<f32>(at(dxr, d));
      store<f32>(at(dxr, d), g);
      if (dw) store<f32>(at(dw, d), load<f32>(at(dw, d)) + dyv * xv * s);
    }
  }
}

/** h[n] = silu(g) * u = g * u / (1 + exp(-g)) */
export function swiglu(g: usize, u: usize, h: usize, n: i32): void {
  const one = f32x4.splat(1);
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const gv = v128.load(at(g, i));
    const sig = f32x4.div(one, f32x4.add(one, expv(f32x4.neg(gv))));
    v128.store(at(h, i), f32x4.mul(f32x4.mul(gv, sig), v128.load(at(u, i))));
  }
  for (; i < n; i++) {
    const gv = load<f32>(at(g, i));
    store<f32>(at(h, i), (gv / (1 + Mathf.exp(-gv))) * load<f32>(at(u, i)));
  }
}

/** swiglu over gu[R, 2F] = [gate | up] per row: h[r, f] = silu(gu[r, f]) * gu[r, F + f], h[R, F]. Each row runs
 *  swiglu's own code (bit for bit swiglu on the two halves when F is a multiple of 4; otherwise each row's last
 *  F % 4 elements take swiglu's scalar tail). */
export function swigluPacked(gu: usize, h: usize, R: i32, F: i32): void {
  for (let r = 0; r < R; r++) {
    const g = gu + (<usize>(2 * r * F) << 2);
    swiglu(g, g + (<usize>F << 2), h + (<usize>(r * F) << 2), F);
  }
}

/** du = dh * silu(g);  dg = dh * u * σ(g) * (1 + g (1 - σ(g))) */
export function swigluBackward(g: usize, u: usize, dh: usize, dg: usize, du: usize, n: i32): void {
  const one = f32x4.splat(1);
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const gv = v128.load(at(g, i)), d = v128.load(at(dh, i));
    const sig = f32x4.div(one, f32x4.add(one, expv(f32x4.neg(gv))));
    v128.store(at(du, i), f32x4.mul(f32x4.mul(d, gv), sig));
    const slope = madd(gv, f32x4.sub(one, sig), one); // 1 + g (1 - σ)
    v128.store(at(dg, i), f32x4.mul(f32x4.mul(f32x4.mul(d, v128.load(at(u, i))), sig), slope));
  }
  for (; i < n; i++) {
    const gv = load<f32>(at(g, i)), d = load<f32>(at(dh, i));
    const sig: f32 = 1 / (1 + Mathf.exp(-gv));
    store<f32>(at(du, i), d * gv * sig);
    store<f32>(at(dg, i), d * load<f32>(at(u, i)) * sig * (1 + gv * (1 - sig)));
  }
}

/** y = a x + b y  (b = 0 overwrites y) */
export function axpby(x: usize, y: usize, n: i32, a: f32, b: f32): void {
  const av = f32x4.splat(a), bv = f32x4.splat(b);
  let i = 0;
  if (b == 0) {
    for (; i + 4 <= n; i += 4) v128.store(at(y, i), f32x4.mul(av, v128.load(at(x, i))));
    for (; i < n; i++) store<f32>(at(y, i), a * load<f32>(at(x, i)));
    return;
  }
  for (; i + 4 <= n; i += 4) v128.store(at(y, i), madd(av, v128.load(at(x, i)), f32x4.mul(bv, v128.load(at(y, i)))));
  for (; i < n; i++) store<f32>(at(y, i), a * load<f32>(at(x, i)) + b * load<f32>(at(y, i)));
}

/** AdamW step. From the caller (computed in f64 there, so 1 - 0.999 is not rounded twice):
 *  oneMinusBeta1/2 = 1 - beta1/2, bc1 = 1 - beta1^step, bc2 = 1 - beta2^step. */
export function adamw(
  p: usize, g: usize, m: usize, v: usize, n: i32, lr: f32, beta1: f32, beta2: f32, oneMinusBeta1: f32,
  oneMinusBeta2: f32, eps: f32, weightDecay: f32, bc1: f32, bc2: f32, gradScale: f32,
): void {
  const b1 = f32x4.splat(beta1), b2 = f32x4.splat(beta2), c1 = f32x4.splat(oneMinusBeta1), c2 = f32x4.splat(oneMinusBeta2);
  const gs = f32x4.splat(gradScale), ib1 = f32x4.splat(1 / bc1), ib2 = f32x4.splat(1 / bc2);
  const epsv = f32x4.splat(eps), lrv = f32x4.splat(lr), wd = f32x4.splat(weightDecay);
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const gi = f32x4.mul(v128.load(at(g, i)), gs);
    const mi = f32x4.add(f32x4.mul(b1, v128.load(at(m, i))), f32x4.mul(c1, gi));
    const vi = f32x4.add(f32x4.mul(b2, v128.load(at(v, i))), f32x4.mul(c2, f32x4.mul(gi, gi)));
    v128.store(at(m, i), mi);
    v128.store(at(v, i), vi);
    const pi = v128.load(at(p, i));
    const upd = f32x4.add(f32x4.div(f32x4.mul(mi, ib1), f32x4.add(f32x4.sqrt(f32x4.mul(vi, ib2)), epsv)), f32x4.mul(wd, pi));
    v128.store(at(p, i), f32x4.sub(pi, f32x4.mul(lrv, upd)));
  }
  for (; i < n; i++) {
    const gi = load<f32>(at(g, i)) * gradScale;
    const mi = beta1 * load<f32>(at(m, i)) + oneMinusBeta1 * gi;
    const vi = beta2 * load<f32>(at(v, i)) + oneMinusBeta2 * gi * gi;
    store<f32>(at(m, i), mi);
    store<f32>(at(v, i), vi);
    const pi = load<f32>(at(p, i));
    store<f32>(at(p, i), pi - lr * (mi / bc1 / (Mathf.sqrt(vi / bc2) + eps) + weightDecay * pi));
  }
}

/** RoPE in place on x[R, nHeads, Dh] (rotate_half), with cos/sin read from tables [positions, Dh/2] (f32) at
 *  row pos[r]; inverse rotates by -angle. The caller guarantees pos[r] < the tables' positions. */
export function rope(x: usize, pos: usize, cosT: usize, sinT: usize, R: i32, nHeads: i32, Dh: i32, inverse: i32): void {
  const half = Dh >> 1;
  const sign = f32x4.splat(inverse ? -1 : 1);
  for (let r = 0; r < R; r++) {
    const p = load<i32>(at(pos, r));
    const c = cosT + (<usize>(p * half) << 2), s = sinT + (<usize>(p * half) << 2);
    for (let h = 0; h < nHeads; h++) {
      const lo = x + (<usize>((r * nHeads + h) * Dh) << 2), hi = lo + (<usize>half << 2);
      let i = 0;
      for (; i + 4 <= half; i += 4) {
        const cv = v128.load(at(c, i)), sv = f32x4.mul(v128.load(at(s, i)), sign);
        const x1 = v128.load(at(lo, i)), x2 = v128.load(at(hi, i));
        v128.store(at(lo, i), f32x4.sub(f32x4.mul(x1, cv), f32x4.mul(x2, sv)));
        v128.store(at(hi, i), madd(x1, sv, f32x4.mul(x2, cv)));
      }
      for (; i < half; i++) {
        const cv = load<f32>(at(c, i)), sv = load<f32>(at(s, i)) * (inverse ? -1 : 1);
        const x1 = load<f32>(at(lo, i)), x2 = load<f32>(at(hi, i));
        store<f32>(at(lo, i), x1 * cv - x2 * sv);
        store<f32>(at(hi, i), x2 * cv + x1 * sv);
      }
    }
  }
}

/** Σ x² over n floats, accumulated in f64 (two f64x2 lanes per f32x4). */
export function sumSquares(x: usize, n: i32): f64 {
  let a0 = f64x2.splat(0), a1 = f64x2.splat(0);
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const v = v128.load(at(x, i));
    const lo = f64x2.promote_low_f32x4(v), hi = f64x2.promote_low_f32x4(v128.shuffle<f32>(v, v, 2, 3, 0, 1));
    a0 = f64x2.add(a0, f64x2.mul(lo, lo));
    a1 = f64x2.add(a1, f64x2.mul(hi, hi));
  }
  const a = f64x2.add(a0, a1);
  let s = f64x2.extract_lane(a, 0) + f64x2.extract_lane(a, 1);
  for (; i < n; i++) { const v = <f64>load<f32>(at(x, i)); s += v * v; }
  return s;
}

/** out[r, :] = table[ids[r], :] for rows of D floats, a run of consecutive ids as one block copy (the decoder
 *  gathers whole KV-cache sequences this way). Returns the first r whose id lies outside [0, V) (rows before it
 *  are copied), or -1. */
export function gatherRows(ids: usize, table: usize, out: usize, R: i32, D: i32, V: i32): i32 {
  const rowBytes = <usize>D << 2;
  let r = 0;
  while (r < R) {
    const id = load<i32>(at(ids, r));
    if (<u32>id >= <u32>V) return r;
    let n = 1;
    while (r + n < R && id + n < V && load<i32>(at(ids, r + n)) == id + n) n++;
    memory.copy(out + <usize>r * rowBytes, table + <usize>id * rowBytes, <usize>n * rowBytes);
    r += n;
  }
  return -1;
}

/** The fused inference layer's qkvRope on f32 caches: rows r = b*T + i of qkv [B*T, (H + 2 Hkv) Dh] split into
 *  q [B*T, H*Dh] and the cache rows dstRow0 + i of k, v [B, Sdst, Hkv*Dh], then RoPE (rope's tables) on q and on
 *  each sequence's T new rows of k. */
export function qkvRope(
  qkv: usize, q: usize, k: usize, v: usize, pos: usize, cosT: usize, sinT: usize,
  B: i32, T: i32, H: i32, Hkv: i32, Dh: i32, Sdst: i32, dstRow0: i32,
): void {
  const qBytes = <usize>(H * Dh) << 2, kvBytes = <usize>(Hkv * Dh) << 2;
  const rowBytes = qBytes + 2 * kvBytes;
  for (let b = 0; b < B; b++) {
    for (let i = 0; i < T; i++) {
      const r = <usize>(b * T + i);
      const src = qkv + r * rowBytes;
      const dst = <usize>(b * Sdst + dstRow0 + i) * kvBytes;
      memory.copy(q + r * qBytes, src, qBytes);
      memory.copy(k + dst, src + qBytes, kvBytes);
      memory.copy(v + dst, src + qBytes + kvBytes, kvBytes);
    }
  }
  rope(q, pos, cosT, sinT, B * T, H, Dh, 0);
  for (let b = 0; b < B; b++) {
    rope(k + <usize>(b * Sdst + dstRow0) * kvBytes, pos + (<usize>(b * T) << 2), cosT, sinT, T, Hkv, Dh, 0);
  }
}
