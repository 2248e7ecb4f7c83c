// CPU LM head + log-softmax over the vocabulary, in chunks (kernels `logprob`, `logprobBackward`, `lmHead`).
// Shapes: h [R,D] final hidden states; w [V,D] LM head (or tied embedding); target [R] (i32, < 0 = padding);
//         logp, entropy, lse, coef, entCoef [R]; dh [R,D]; dw [V,D].
// The [R,V] logits are never materialised: the vocabulary is walked in chunks of Vc rows of W; each chunk's
// logits [R,Vc] come from the matmul kernel, and per row an online log-sum-exp keeps
//   m = running max, s = Σ exp(l - m), t = Σ exp(l - m) * l      (rescaled by exp(m_old - m_new) as m grows)
// so at the end lse = m + log s and entropy H = -Σ p log p = lse - t / s.
// Backward of L = Σ_r coef[r]·logp[r] + entCoef[r]·entropy[r], with p_v = exp(l_v - lse):
//   dl_v = coef·(onehot_v - p_v) - entCoef·p_v·(log p_v + H)     (no onehot term when target < 0)
//   dh = Σ_chunks dl @ W_chunk  (overwritten);  dw_chunk += dl^T @ h  (accumulated, only when dw is given).

import { matmul } from './matmul.ts';
import { scratchF32, scratchF64 } from './scratch.ts';

/** The matmul both kernels multiply with (the WASM backend passes its SIMD one; same signature as ./matmul.ts). */
export type MatmulFn = typeof matmul;

/** Vocabulary rows per chunk (the parameter Vc of both kernels; tests pass small ones) : keep the [R, Vc] logits block near 256k floats (1 MiB). */
export function chunkSize(R: number, V: number): number {
  return Math.max(16, Math.min(V, Math.floor(262144 / Math.max(R, 1))));
}

/** Throws when a target id is >= V (ids < 0 are padding). */
export function checkTargets(target: Int32Array, R: number, V: number, kernel: string): void {
  for (let r = 0; r < R; r++) {
    if (target[r] >= V) throw new Error(`${kernel}: target[${r}] = ${target[r]} is outside the vocabulary [0, ${V})`);
  }
}

/** logp[r] = logits[r, target[r]] - lse[r] (0 when target[r] < 0); entropy[r], lse[r] for every row. */
export function logprob(
  h: Float32Array,
  w: Float32Array,
  target: Int32Array,
  logp: Float32Array,
  entropy: Float32Array,
  lse: Float32Array,
  R: number,
  D: number,
  V: number,
  Vc = chunkSize(R, V),
  mm: MatmulFn = matmul,
  logits: Float32Array = scratchF32('logprob.logits', R * Vc),
): void {
  checkTargets(target, R, V, 'logprob');
  const m = scratchF64('logprob.m', R).fill(-Infinity, 0, R);
  const s = scratchF64('logprob.s', R).fill(0, 0, R);
  const t = scratchF64('logprob.t', R).fill(0, 0, R);
  const picked = scratchF64('logprob.picked', R).fill(0, 0, R);
  for (let v0 = 0; v0 < V; v0 += Vc) {
    const n = Math.min(Vc, V - v0);
    // logits[R, n] = h[R,D] @ w[v0 : v0+n, :]^T
    mm(h, w.subarray(v0 * D, (v0 + n) * D), logits, null, R, n, D, 0, 1, 1, 0);
    for (let r = 0; r < R; r++) {
      const row = r * n;
      let cmax = m[r];
      for (let c = 0; c < n; c++) if (logits[row + c] > cmax) cmax = logits[row + c];
      const rescale = Math.exp(m[r] - cmax); // 0 on the first chunk (m = -Inf)
      let sr = s[r] * rescale,
        tr = t[r] * rescale;
      for (let c = 0; c < n; c++) {
        const l = logits[row + c];
        const e = Math.exp(l - cmax);
        sr += e;
        tr += e * l;
      }
      m[r] = cmax;
      s[r] = sr;
      t[r] = tr;
      const tg = target[r] - v0;
      if (tg >= 0 && tg < n) picked[r] = logits[row + tg];
    }
  }
  for (let r = 0; r < R; r++) {
    const l = m[r] + Math.log(s[r]);
    lse[r] = l;
    entropy[r] = l - t[r] / s[r];
    logp[r] = target[r] < 0 ? 0 : picked[r] - l;
  }
}

/** dh overwritten; dw (optional) accumulated. lse and entropy are the forward's outputs. */
export function logprobBackward(
  h: Float32Array,
  w: Float32Array,
  target: Int32Array,
  lse: Float32Array,
  entropy: Float32Array,
  coef: Float32Array,
  entCoef: Float32Array,
  dh: Float32Array,
  dw: Float32Array | null,
  R: number,
  D: number,
  V: number,
  Vc = chunkSize(R, V),
  mm: MatmulFn = matmul,
  dl: Float32Array = scratchF32('logprobBackward.dlogits', R * Vc),
): void {
  checkTargets(target, R, V, 'logprobBackward');
  for (let v0 = 0; v0 < V; v0 += Vc) {
    const n = Math.min(Vc, V - v0);
    const wChunk = w.subarray(v0 * D, (v0 + n) * D);
    mm(h, wChunk, dl, null, R, n, D, 0, 1, 1, 0); // logits, overwritten below by their gradient
    for (let r = 0; r < R; r++) {
      const row = r * n;
      const l0 = lse[r],
        H = entropy[r],
        er = entCoef[r];
      const cr = target[r] < 0 ? 0 : coef[r]; // a padding row's logp is the constant 0
      for (let c = 0; c < n; c++) {
        const logP = dl[row + c] - l0;
        const p = Math.exp(logP);
        dl[row + c] = -p * (cr + er * (logP + H));
      }
      const tg = target[r] - v0;
      if (tg >= 0 && tg < n) dl[row + tg] += cr;
    }
    // dh[R,D] (+)= dl[R,n] @ wChunk[n,D]
    mm(dl, wChunk, dh, null, R, D, n, 0, 0, 1, v0 === 0 ? 0 : 1);
    // dw[v0:v0+n, D] += dl^T[n,R] @ h[R,D]
    if (dw !== null) mm(dl, h, dw.subarray(v0 * D, (v0 + n) * D), null, n, D, R, 1, 0, 1, 1);
  }
  if (V === 0) dh.fill(0, 0, R * D);
}

/** logits[R,V] = h[R,D] @ w[V,D]^T, for the few rows that are sampled from. */
export function lmHead(h: Float32Array, w: Float32Array, logits: Float32Array, R: number, D: number, V: number): void {
  matmul(h, w, logits, null, R, V, D, 0, 1, 1, 0);
}
