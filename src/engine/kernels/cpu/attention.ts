// CPU causal grouped-query attention over a KV cache (kernels `attention`, `attentionBackward`).
// Shapes: q, o, dout, dq [B,T,H,Dh];  k, v [B,S,Hkv,Dh] (S = cache capacity; backward: S = T);
//         keyStart [B] (i32);  lse [B,H,T].
// Query i of sequence b sits at cache row past+i and sees key rows j with keyStart[b] <= j <= past+i
// (keyStart masks left padding). Query head h reads kv head floor(h / (H/Hkv)) (HF repeat_kv order).
//   s_j = scale * q·k_j (scale = 1/sqrt(Dh));  lse = log Σ_j exp(s_j);  o = Σ_j exp(s_j - lse) v_j
// A query with no visible key (keyStart[b] > past+i: a padding position) gets o = 0 and lse = 0, and its
// backward contributes nothing.
// The backward is the flash-attention recompute: p_j = exp(s_j - lse) from the saved lse, Δ = dout·o,
//   dv_j += p_j dout;  ds_j = p_j (dout·v_j - Δ);  dq = scale Σ_j ds_j k_j;  dk_j += scale ds_j q.

import { scratchF64 } from './scratch.ts';

export function attention(
  q: Float32Array,
  k: Float32Array,
  v: Float32Array,
  keyStart: Int32Array,
  o: Float32Array,
  lse: Float32Array,
  B: number,
  T: number,
  S: number,
  past: number,
  H: number,
  Hkv: number,
  Dh: number,
): void {
  checkHeads(H, Hkv);
  if (past + T > S) throw new Error(`attention: past (${past}) + T (${T}) exceeds the cache length S = ${S}`);
  const group = H / Hkv;
  const scale = 1 / Math.sqrt(Dh);
  const p = scratchF64('attention.p', past + T);
  const acc = scratchF64('attention.acc', Dh);
  for (let b = 0; b < B; b++) {
    const j0 = Math.max(0, keyStart[b]);
    for (let h = 0; h < H; h++) {
      const kvh = Math.floor(h / group);
      for (let i = 0; i < T; i++) {
        const qOff = ((b * T + i) * H + h) * Dh;
        const jEnd = past + i; // last visible key row (inclusive)
        const lseIdx = (b * H + h) * T + i;
        if (j0 > jEnd) {
          o.fill(0, qOff, qOff + Dh);
          lse[lseIdx] = 0;
          continue;
        }
        // scores and their max
        let max = -Infinity;
        for (let j = j0; j <= jEnd; j++) {
          const kOff = ((b * S + j) * Hkv + kvh) * Dh;
          let s = 0;
          for (let d = 0; d < Dh; d++) s += q[qOff + d] * k[kOff + d];
          s *= scale;
          p[j] = s;
          if (s > max) max = s;
        }
        // softmax-weighted sum of values
        let sum = 0;
        acc.fill(0, 0, Dh);
        for (let j = j0; j <= jEnd; j++) {
          const e = Math.exp(p[j] - max);
          sum += e;
          const vOff = ((b * S + j) * Hkv + kvh) * Dh;
          for (let d = 0; d < Dh; d++) acc[d] += e * v[vOff + d];
        }
        const inv = 1 / sum;
        for (let d = 0; d < Dh; d++) o[qOff + d] = acc[d] * inv;
        lse[lseIdx] = max + Math.log(sum);
      }
    }
  }
}

/** Backward of attention (query i at key row past + i; dk, dv [B, S, Hkv, Dh]). dq, dk, dv are overwritten. */
export function attentionBackward(
  q: Float32Array,
  k: Float32Array,
  v: Float32Array,
  keyStart: Int32Array,
  o: Float32Array,
  lse: Float32Array,
  dout: Float32Array,
  dq: Float32Array,
  dk: Float32Array,
  dv: Float32Array,
  B: number,
  T: number,
  S: number,
  past: number,
  H: number,
  Hkv: number,
  Dh: number,
): void {
  checkHeads(H, Hkv);
  const group = H / Hkv;
  const scale = 1 / Math.sqrt(Dh);
  const dqAcc = scratchF64('attentionBackward.dq', Dh);
  dk.fill(0, 0, B * S * Hkv * Dh);
  dv.fill(0, 0, B * S * Hkv * Dh);
  for (let b = 0; b < B; b++) {
    const j0 = Math.max(0, keyStart[b]);
    for (let h = 0; h < H; h++) {
      const kvh = Math.floor(h / group);
      for (let i = 0; i < T; i++) {
        const qOff = ((b * T + i) * H + h) * Dh;
        dqAcc.fill(0, 0, Dh);
        if (j0 <= past + i) {
          const l = lse[(b * H + h) * T + i];
          let delta = 0; // Δ = dout·o
          for (let d = 0; d < Dh; d++) delta += dout[qOff + d] * o[qOff + d];
          for (let j = j0; j <= past + i; j++) {
            const kvOff = ((b * S + j) * Hkv + kvh) * Dh;
            let s = 0,
              dp = 0;
            for (let d = 0; d < Dh; d++) {
              s += q[qOff + d] * k[kvOff + d];
              dp += dout[qOff + d] * v[kvOff + d];
            }
            const pj = Math.exp(s * scale - l);
            const ds = pj * (dp - delta) * scale;
            for (let d = 0; d < Dh; d++) {
              dv[kvOff + d] += pj * dout[qOff + d];
              dk[kvOff + d] += ds * q[qOff + d];
              dqAcc[d] += ds * k[kvOff + d];
            }
          }
        }
        for (let d = 0; d < Dh; d++) dq[qOff + d] = dqAcc[d];
      }
    }
  }
}

function checkHeads(H: number, Hkv: number): void {
  if (Hkv <= 0 || H % Hkv !== 0) throw new Error(`attention: H = ${H} must be a multiple of Hkv = ${Hkv}`);
}
