// WGSL pieces of the vocabulary-chunked log-softmax (kernels `logprob`, `logprobBackward`). The host walks the
// vocabulary in chunks of n columns: the matmul kernel writes that chunk's logits z [R, n] to scratch, then
//   sliceStats:  one thread per (row r, slice of SLICE columns): m = max z, s = sum e^(z-m), t = sum e^(z-m)(z-m)
//   mergeStats:  one thread per row merges the chunk's slices into its running (m, s, t) and picks the target's
//                logit; after the last chunk it writes lse = m + log s, entropy = log s - t/s and
//                logp = z[target] - lse (0 when target < 0).
//   dlogits:     in place on the chunk, one thread per (r, c):  with log p = z - lse[r], p = e^(log p),
//                dl = coef[r] (onehot - p) - entCoef[r] p (log p + entropy[r])   (no coef term when target < 0)
// Keeping t relative to the running max avoids the cancellation of lse - E[z] when logits are large.
// stats layout: [R, 4] = (m, s, t, picked logit); partials: [R, slices, 3].
import { cached, entry1d, header, type WgslProgram } from './common.ts';

export const LOGPROB_SLICE = 256;

function buildSliceStatsProgram(wg: number): WgslProgram {
  const params = { R: 'u32', n: 'u32', slices: 'u32' } as const;
  const bindings = [
    { name: 'z', elem: 'f32', access: 'read' },
    { name: 'partial', elem: 'f32', access: 'read_write' },
  ] as const;
  const code = `${header(params, bindings)}

${entry1d(wg)}
  if (gid >= P.R * P.slices) { return; }
  let r = gid / P.slices;
  let sl = gid - r * P.slices;
  let lo = r * P.n + sl * ${LOGPROB_SLICE}u;
  let hi = r * P.n + min(P.n, (sl + 1u) * ${LOGPROB_SLICE}u);
  var m = -3.0e38;
  for (var i = lo; i < hi; i = i + 1u) { m = max(m, z[i]); }
  var s = 0.0;
  var t = 0.0;
  for (var i = lo; i < hi; i = i + 1u) { let d = z[i] - m; let e = exp(d); s = s + e; t = t + e * d; }
  partial[gid * 3u] = m;
  partial[gid * 3u + 1u] = s;
  partial[gid * 3u + 2u] = t;
}
`;
  return { key: `logprobSliceStats:wg${wg}`, code, bindings, params, wg };
}

function buildMergeStatsProgram(wg: number): WgslProgram {
  const params = { R: 'u32', n: 'u32', slices: 'u32', v0: 'u32', first: 'u32', last: 'u32' } as const;
  const bindings = [
    { name: 'z', elem: 'f32', access: 'read' },
    { name: 'partial', elem: 'f32', access: 'read' },
    { name: 'targets', elem: 'i32', access: 'read' },
    { name: 'stats', elem: 'f32', access: 'read_write' },
    { name: 'logp', elem: 'f32', access: 'read_write' },
    { name: 'entropy', elem: 'f32', access: 'read_write' },
    { name: 'lse', elem: 'f32', access: 'read_write' },
  ] as const;
  const code = `${header(params, bindings)}

${entry1d(wg)}
  if (gid >= P.R) { return; }
  var m = -3.0e38;
  var s = 0.0;
  var t = 0.0;
  var picked = 0.0;
  if (P.first == 0u) {
    m = stats[gid * 4u]; s = stats[gid * 4u + 1u]; t = stats[gid * 4u + 2u]; picked = stats[gid * 4u + 3u];
  }
  for (var sl = 0u; sl < P.slices; sl = sl + 1u) {
    let at = (gid * P.slices + sl) * 3u;
    let m2 = partial[at];
    let s2 = partial[at + 1u];
    let t2 = partial[at + 2u];
    let mNew = max(m, m2);
    let a1 = exp(m - mNew);
    let a2 = exp(m2 - mNew);
    t = a1 * (t + s * (m - mNew)) + a2 * (t2 + s2 * (m2 - mNew));
    s = a1 * s + a2 * s2;
    m = mNew;
  }
  let tg = targets[gid] - i32(P.v0);
  if (tg >= 0 && tg < i32(P.n)) { picked = z[gid * P.n + u32(tg)]; }
  stats[gid * 4u] = m; stats[gid * 4u + 1u] = s; stats[gid * 4u + 2u] = t; stats[gid * 4u + 3u] = picked;
  if (P.last == 1u) {
    let l = m + log(s);
    lse[gid] = l;
    entropy[gid] = log(s) - t / s;
    logp[gid] = select(picked - l, 0.0, targets[gid] < 0);
  }
}
`;
  return { key: `logprobMergeStats:wg${wg}`, code, bindings, params, wg };
}

function buildDlogitsProgram(wg: number): WgslProgram {
  const params = { R: 'u32', n: 'u32', v0: 'u32' } as const;
  const bindings = [
    { name: 'z', elem: 'f32', access: 'read_write' },
    { name: 'targets', elem: 'i32', access: 'read' },
    { name: 'lse', elem: 'f32', access: 'read' },
    { name: 'entropy', elem: 'f32', access: 'read' },
    { name: 'coef', elem: 'f32', access: 'read' },
    { name: 'entCoef', elem: 'f32', access: 'read' },
  ] as const;
  const code = `${header(params, bindings)}

${entry1d(wg)}
  if (gid >= P.R * P.n) { return; }
  let r = gid / P.n;
  let col = gid - r * P.n;
  let logP = z[gid] - lse[r];
  let p = exp(logP);
  let cr = select(coef[r], 0.0, targets[r] < 0); // a padding row's logp is the constant 0: no coef term
  var dl = -p * (cr + entCoef[r] * (logP + entropy[r]));
  if (targets[r] >= 0 && targets[r] - i32(P.v0) == i32(col)) { dl = dl + cr; }
  z[gid] = dl;
}
`;
  return { key: `logprobDlogits:wg${wg}`, code, bindings, params, wg };
}

export const sliceStatsProgram = cached(buildSliceStatsProgram);

export const mergeStatsProgram = cached(buildMergeStatsProgram);

export const dlogitsProgram = cached(buildDlogitsProgram);
