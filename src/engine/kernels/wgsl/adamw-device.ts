// WGSL of the catalog's `adamwClipped`: AdamW on a flat run of parameters whose clip factor comes from the
// device, not the host: normSq[0] = Σ g² (written by sumSquares earlier in the same submit). Every thread forms
// norm = sqrt(normSq[0]); a non-finite Σ g² (bits of an Inf or NaN exponent: a bit test, which no fast-math
// rewriting can drop) leaves p, m, v untouched; otherwise gradScale = clip / (norm + 1e-6) when norm > clip > 0,
// else 1 (the host passes clip = 0 for "no clipping"). The update itself is `adamw`'s (elementwise.ts).
import { cached, entry1d, header, type ParamSpec, type WgslProgram } from './common.ts';

export const adamwClippedParams = {
  n: 'u32',
  lr: 'f32',
  beta1: 'f32',
  beta2: 'f32',
  eps: 'f32',
  weightDecay: 'f32',
  bc1: 'f32',
  bc2: 'f32',
  clip: 'f32',
} as const satisfies ParamSpec;

function buildAdamwClippedProgram(wg: number): WgslProgram {
  const bindings = [
    { name: 'p', elem: 'f32', access: 'read_write' },
    { name: 'g', elem: 'f32', access: 'read' },
    { name: 'm', elem: 'f32', access: 'read_write' },
    { name: 'v', elem: 'f32', access: 'read_write' },
    { name: 'normSq', elem: 'f32', access: 'read' },
  ] as const;
  const code = `${header(adamwClippedParams, bindings)}

${entry1d(wg)}
  if (gid >= P.n) { return; }
  let sq = normSq[0];
  if ((bitcast<u32>(sq) & 0x7f800000u) == 0x7f800000u) { return; }
  let norm = sqrt(sq);
  var scale = 1.0;
  if (P.clip > 0.0 && norm > P.clip) { scale = P.clip / (norm + 1e-6); }
  let gi = g[gid] * scale;
  let mi = P.beta1 * m[gid] + (1.0 - P.beta1) * gi;
  let vi = P.beta2 * v[gid] + (1.0 - P.beta2) * gi * gi;
  m[gid] = mi;
  v[gid] = vi;
  let pi = p[gid];
  p[gid] = pi - P.lr * (mi / P.bc1 / (sqrt(vi / P.bc2) + P.eps) + P.weightDecay * pi);
}
`;
  return { key: `adamwClipped:wg${wg}`, code, bindings, params: adamwClippedParams, wg };
}

export const adamwClippedProgram = cached(buildAdamwClippedProgram);
