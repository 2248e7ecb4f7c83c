// Float64 reference implementations of the kernel catalog, written the plain way (no blocking, no chunking, full
// softmax), for the kernel tests: CPU kernels and WASM kernels are checked against these, and backward kernels
// against central finite differences of these forwards. Arrays are plain number[] / Float64Array.

import { Rng } from '../../../src/util/rng.ts';

export type Vec = ArrayLike<number>;

export function randn(rng: Rng, n: number, scale = 1): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.normal() * scale;
  return out;
}

/** max |a - b| / max(|b|max, floor): one tolerance per tensor, relative to the reference's magnitude. */
export function relErr(a: Vec, b: Vec, floor = 1e-6): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let maxDiff = 0,
    maxRef = floor;
  for (let i = 0; i < a.length; i++) {
    maxDiff = Math.max(maxDiff, Math.abs(a[i] - b[i]));
    maxRef = Math.max(maxRef, Math.abs(b[i]));
  }
  return Number.isNaN(maxDiff) || (a.length === 0 && b.length !== 0) ? Infinity : maxDiff / maxRef;
}

/** Central finite differences of a scalar f64 function of x: grad[i] = (f(x+e_i h) - f(x-e_i h)) / 2h. */
export function numericGrad(f: (x: Float64Array) => number, x0: Vec, h = 1e-5): Float64Array {
  const x = Float64Array.from(x0);
  const g = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const keep = x[i];
    x[i] = keep + h;
    const up = f(x);
    x[i] = keep - h;
    const down = f(x);
    x[i] = keep;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

export function dot(a: Vec, b: Vec): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** op(A)[i,k] with A stored [M,K] or (transA) [K,M]; same for B. Returns C[M,N]. */
export function refMatmul(
  a: Vec,
  b: Vec,
  c0: Vec | null,
  bias: Vec | null,
  M: number,
  N: number,
  K: number,
  transA: number,
  transB: number,
  alpha: number,
  beta: number,
): Float64Array {
  const c = new Float64Array(M * N);
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) {
        const av = transA ? a[k * M + i] : a[i * K + k];
        const bv = transB ? b[j * K + k] : b[k * N + j];
        s += av * bv;
      }
      c[i * N + j] = alpha * s + (beta !== 0 && c0 ? beta * c0[i * N + j] : 0) + (bias ? bias[j] : 0);
    }
  }
  return c;
}

export function refRmsnorm(x: Vec, w: Vec, R: number, D: number, eps: number): { y: Float64Array; rstd: Float64Array } {
  const y = new Float64Array(R * D),
    rstd = new Float64Array(R);
  for (let r = 0; r < R; r++) {
    let ss = 0;
    for (let d = 0; d < D; d++) ss += x[r * D + d] ** 2;
    rstd[r] = 1 / Math.sqrt(ss / D + eps);
    for (let d = 0; d < D; d++) y[r * D + d] = x[r * D + d] * rstd[r] * w[d];
  }
  return { y, rstd };
}

/** HF rotate_half RoPE: cat(x1, x2) -> cat(x1 cos - x2 sin, x2 cos + x1 sin), angle = pos * theta^(-2i/Dh). */
export function refRope(
  x: Vec,
  pos: Vec,
  R: number,
  nHeads: number,
  Dh: number,
  theta: number,
  inverse: number,
): Float64Array {
  const out = Float64Array.from(x);
  const half = Dh / 2;
  for (let r = 0; r < R; r++) {
    for (let h = 0; h < nHeads; h++) {
      const base = (r * nHeads + h) * Dh;
      for (let i = 0; i < half; i++) {
        const angle = ((inverse ? -1 : 1) * pos[r]) / theta ** ((2 * i) / Dh);
        const x1 = x[base + i],
          x2 = x[base + i + half];
        out[base + i] = x1 * Math.cos(angle) - x2 * Math.sin(angle);
        out[base + i + half] = x2 * Math.cos(angle) + x1 * Math.sin(angle);
      }
    }
  }
  return out;
}

/** Masked softmax attention, full score matrix; o = 0 and lse = 0 for a query that sees no key. */
export function refAttention(
  q: Vec,
  k: Vec,
  v: Vec,
  keyStart: Vec,
  B: number,
  T: number,
  S: number,
  past: number,
  H: number,
  Hkv: number,
  Dh: number,
): { o: Float64Array; lse: Float64Array } {
  const o = new Float64Array(B * T * H * Dh),
    lse = new Float64Array(B * H * T);
  const scale = 1 / Math.sqrt(Dh);
  for (let b = 0; b < B; b++)
    for (let h = 0; h < H; h++)
      for (let i = 0; i < T; i++) {
        const kvh = Math.floor(h / (H / Hkv));
        const visible: number[] = [];
        for (let j = 0; j < S; j++) if (j >= keyStart[b] && j <= past + i) visible.push(j);
        if (visible.length === 0) continue;
        const scores = visible.map((j) => {
          let s = 0;
          for (let d = 0; d < Dh; d++) s += q[((b * T + i) * H + h) * Dh + d] * k[((b * S + j) * Hkv + kvh) * Dh + d];
          return s * scale;
        });
        const m = Math.max(...scores);
        const z = scores.reduce((acc, s) => acc + Math.exp(s - m), 0);
        lse[(b * H + h) * T + i] = m + Math.log(z);
        visible.forEach((j, n) => {
          const p = Math.exp(scores[n] - m) / z;
          for (let d = 0; d < Dh; d++) o[((b * T + i) * H + h) * Dh + d] += p * v[((b * S + j) * Hkv + kvh) * Dh + d];
        });
      }
  return { o, lse };
}

export function silu(x: number): number {
  return x / (1 + Math.exp(-x));
}

/** Full logits, full log-softmax: logp of the target (0 for target < 0), entropy, lse per row. */
export function refLogprob(
  h: Vec,
  w: Vec,
  target: Vec,
  R: number,
  D: number,
  V: number,
): { logp: Float64Array; entropy: Float64Array; lse: Float64Array } {
  const logp = new Float64Array(R),
    entropy = new Float64Array(R),
    lse = new Float64Array(R);
  const logits = refMatmul(h, w, null, null, R, V, D, 0, 1, 1, 0);
  for (let r = 0; r < R; r++) {
    const row = Array.from(logits.subarray(r * V, (r + 1) * V));
    const m = Math.max(...row);
    const l = m + Math.log(row.reduce((acc, x) => acc + Math.exp(x - m), 0));
    lse[r] = l;
    entropy[r] = -row.reduce((acc, x) => acc + Math.exp(x - l) * (x - l), 0);
    logp[r] = target[r] < 0 ? 0 : row[target[r]] - l;
  }
  return { logp, entropy, lse };
}
