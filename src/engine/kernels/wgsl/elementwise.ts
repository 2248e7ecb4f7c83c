// WGSL elementwise kernels, one thread per element (wg threads per workgroup, a template parameter; the grid
// folds into y past 65535 groups):
//   swiglu          h = silu(g) * u                         g, u, h [R,F]
//   swigluBackward  dg = dh * u * silu'(g),  du = dh * silu(g)   with silu'(g) = s (1 + g (1 - s)), s = sigmoid(g)
//   axpby           y = a x + b y   (b = 0 ignores y's old contents)
//   adamw           AdamW with decoupled weight decay; bias corrections bc1 = 1 - beta1^t, bc2 = 1 - beta2^t
//                   are computed on the host in float64 and passed in
//   copyRows        dst[b, dstRow0 + t, :] = src[b, t, :]     src [B,T,W], dst [B,Sdst,W] (f32, or f16: copyRowsHalf)
// A tensor split over several buffers is run one chunk at a time by the host (same index within each chunk).
import {
  cached,
  entry1d,
  header,
  type BindingSpec,
  type ElemType,
  type ParamSpec,
  type WgslProgram,
} from './common.ts';
import { CLAMP_COUNTER, halfPackCode } from './half-pack.ts';

function program(
  key: string,
  params: ParamSpec,
  bindings: WgslProgram['bindings'],
  body: string,
  wg: number,
  /** WGSL after the header (declarations and helpers the body uses) */
  prelude = '',
): WgslProgram {
  const code = `${header(params, bindings)}
${prelude}

fn sigmoid(x: f32) -> f32 { return 1.0 / (1.0 + exp(-x)); }

${entry1d(wg)}
  if (gid >= P.n) { return; }
${body}
}
`;
  return { key: `${key}:wg${wg}`, code, bindings, params, wg };
}

function buildSwigluProgram(wg: number): WgslProgram {
  return program(
    'swiglu',
    { n: 'u32' },
    [
      { name: 'g', elem: 'f32', access: 'read' },
      { name: 'u', elem: 'f32', access: 'read' },
      { name: 'h', elem: 'f32', access: 'read_write' },
    ],
    `  let x = g[gid];
  h[gid] = x * sigmoid(x) * u[gid];`,
    wg,
  );
}

function buildSwigluBackwardProgram(wg: number): WgslProgram {
  return program(
    'swigluBackward',
    { n: 'u32' },
    [
      { name: 'g', elem: 'f32', access: 'read' },
      { name: 'u', elem: 'f32', access: 'read' },
      { name: 'dh', elem: 'f32', access: 'read' },
      { name: 'dg', elem: 'f32', access: 'read_write' },
      { name: 'du', elem: 'f32', access: 'read_write' },
    ],
    `  let x = g[gid];
  let s = sigmoid(x);
  let d = dh[gid];
  dg[gid] = d * u[gid] * s * (1.0 + x * (1.0 - s));
  du[gid] = d * x * s;`,
    wg,
  );
}

/** x may be stored f16 (copying a half-precision base weight into an f32 tensor). */
function buildAxpbyProgram(x: ElemType, wg: number): WgslProgram {
  return program(
    `axpby:${x}`,
    { n: 'u32', a: 'f32', b: 'f32' },
    [
      { name: 'x', elem: x, access: 'read' },
      { name: 'y', elem: 'f32', access: 'read_write' },
    ],
    `  var out = P.a * ld_x(gid);
  if (P.b != 0.0) { out = out + P.b * y[gid]; }
  y[gid] = out;`,
    wg,
  );
}

export const adamwParams = {
  n: 'u32',
  lr: 'f32',
  beta1: 'f32',
  beta2: 'f32',
  eps: 'f32',
  weightDecay: 'f32',
  bc1: 'f32',
  bc2: 'f32',
  gradScale: 'f32',
} as const satisfies ParamSpec;

function buildAdamwProgram(wg: number): WgslProgram {
  return program(
    'adamw',
    adamwParams,
    [
      { name: 'p', elem: 'f32', access: 'read_write' },
      { name: 'g', elem: 'f32', access: 'read' },
      { name: 'm', elem: 'f32', access: 'read_write' },
      { name: 'v', elem: 'f32', access: 'read_write' },
    ],
    `  let gi = g[gid] * P.gradScale;
  let mi = P.beta1 * m[gid] + (1.0 - P.beta1) * gi;
  let vi = P.beta2 * v[gid] + (1.0 - P.beta2) * gi * gi;
  m[gid] = mi;
  v[gid] = vi;
  let pi = p[gid];
  p[gid] = pi - P.lr * (mi / P.bc1 / (sqrt(vi / P.bc2) + P.eps) + P.weightDecay * pi);`,
    wg,
  );
}

function buildCopyRowsProgram(wg: number): WgslProgram {
  // n = B*T*W source elements
  return program(
    'copyRows',
    { n: 'u32', TW: 'u32', W: 'u32', Sdst: 'u32', dstRow0: 'u32' },
    [
      { name: 'src', elem: 'f32', access: 'read' },
      { name: 'dst', elem: 'f32', access: 'read_write' },
    ],
    `  let b = gid / P.TW;
  let rest = gid - b * P.TW;
  dst[(b * P.Sdst + P.dstRow0) * P.W + rest] = src[gid];`,
    wg,
  );
}

/** copyRows into an f16 destination (stored as packed pairs): one thread per pair of elements, each pair rounded
 *  to halves (clamped to ±65,504 and counted: half-pack.ts) and written as one word (W, T·W and dstRow0·W even, so
 *  pairs never straddle a row). */
function buildCopyRowsHalfProgram(wg: number): WgslProgram {
  // n = B*T*W/2 source pairs
  const bindings: BindingSpec[] = [
    { name: 'src', elem: 'f32', access: 'read' },
    { name: 'dst', elem: 'u32', access: 'read_write' },
    CLAMP_COUNTER,
  ];
  return program(
    'copyRowsHalf',
    { n: 'u32', TW: 'u32', W: 'u32', Sdst: 'u32', dstRow0: 'u32' },
    bindings,
    `  let e = gid * 2u;
  let b = e / P.TW;
  let rest = e - b * P.TW;
  dst[((b * P.Sdst + P.dstRow0) * P.W + rest) / 2u] = packHalf(src[e], src[e + 1u]);`,
    wg,
    halfPackCode(bindings.length),
  );
}

export const copyRowsHalfProgram = cached(buildCopyRowsHalfProgram);

export const swigluProgram = cached(buildSwigluProgram);

export const swigluBackwardProgram = cached(buildSwigluBackwardProgram);

export const axpbyProgram = cached(buildAxpbyProgram);

export const adamwProgram = cached(buildAdamwProgram);

export const copyRowsProgram = cached(buildCopyRowsProgram);
