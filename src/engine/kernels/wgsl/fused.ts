// WGSL of the fused inference kernels (catalog `qkvRope`, `swigluPacked`), used by the decoder when a layer's
// q, k, v weights and gate, up weights are concatenated (model/lora-merge.ts): one thread per element pair,
// the same arithmetic as the separate `rope`, `copyRows` and `swiglu` kernels, in one dispatch each.
//   qkvRope       one thread per (row, head slot of H + 2 Hkv, pair i < Dh/2): q and k slots are rotated as
//                 `rope` does (its angle reduction and sincos), q goes to q[R,H,Dh], k and v to their cache row
//   qkvRopeHalf   the same into a KV cache stored in halves: one thread per (row, head slot, element pair 2w, 2w+1),
//                 each element rotated with the same expression as qkvRope's, k and v written as one packed word
//                 (packHalf: clamped to ±65,504 and counted, half-pack.ts), so pairs never race
//   swigluPacked  h[r, f] = silu(gu[r, f]) * gu[r, F + f]
import { cached, entry1d, header, type BindingSpec, type WgslProgram } from './common.ts';
import { ROPE_HELPERS, ropeAngle, type RopeFrequencies } from './rope.ts';
import { CLAMP_COUNTER, halfPackCode } from './half-pack.ts';

/** The uniforms and bindings of qkvRope and qkvRopeHalf; their caches hold f32 values or packed f16 pairs (u32). */
function qkvRopeLayout(freq: RopeFrequencies, cacheElem: 'f32' | 'u32') {
  const params = {
    n: 'u32',
    H: 'u32',
    Hkv: 'u32',
    half: 'u32',
    Dh: 'u32',
    T: 'u32',
    Sdst: 'u32',
    dstRow0: 'u32',
  } as const;
  const bindings: BindingSpec[] = [
    { name: 'qkv', elem: 'f32', access: 'read' },
    { name: 'pos', elem: 'i32', access: 'read' },
    freq === 'fixed'
      ? { name: 'turns', elem: 'u32', access: 'read' }
      : { name: 'invFreq', elem: 'f32', access: 'read' },
    { name: 'q', elem: 'f32', access: 'read_write' },
    { name: 'kCache', elem: cacheElem, access: 'read_write' },
    { name: 'vCache', elem: cacheElem, access: 'read_write' },
  ];
  return { params, bindings };
}

function buildQkvRopeProgram(freq: RopeFrequencies, wg: number): WgslProgram {
  const { params, bindings } = qkvRopeLayout(freq, 'f32');
  const code = `${header(params, bindings)}

${ROPE_HELPERS}

${entry1d(wg)}
  if (gid >= P.n) { return; }
  let slots = P.H + 2u * P.Hkv;
  let i = gid % P.half;
  let rs = gid / P.half;            // row * slots + slot
  let slot = rs % slots;
  let r = rs / slots;
  let src = rs * P.Dh;
  let x1 = qkv[src + i];
  let x2 = qkv[src + i + P.half];
  // cache row of this token: sequence r / T, row dstRow0 + r % T
  let cacheRow = (r / P.T) * P.Sdst + P.dstRow0 + r % P.T;
  if (slot >= P.H + P.Hkv) {
    let dst = (cacheRow * P.Hkv + slot - P.H - P.Hkv) * P.Dh;
    vCache[dst + i] = x1;
    vCache[dst + i + P.half] = x2;
    return;
  }${ropeAngle(freq)}
  let sc = sincos(reduced);
  let c = sc.y;
  let s = 1.0 * sc.x;
  let y1 = x1 * c - x2 * s;
  let y2 = x2 * c + x1 * s;
  if (slot < P.H) {
    let dst = (r * P.H + slot) * P.Dh;
    q[dst + i] = y1;
    q[dst + i + P.half] = y2;
  } else {
    let dst = (cacheRow * P.Hkv + slot - P.H) * P.Dh;
    kCache[dst + i] = y1;
    kCache[dst + i + P.half] = y2;
  }
}
`;
  return { key: `qkvRope:${freq}:wg${wg}`, code, bindings, params, wg };
}

function buildQkvRopeHalfProgram(freq: RopeFrequencies, wg: number): WgslProgram {
  const layout = qkvRopeLayout(freq, 'u32');
  const { params } = layout;
  const bindings = [...layout.bindings, CLAMP_COUNTER];
  const code = `${header(params, bindings)}
${halfPackCode(bindings.length)}

${ROPE_HELPERS}

fn angleOf(r: u32, i: u32) -> f32 {${ropeAngle(freq)}
  return reduced;
}

/** element e < Dh of the slot row starting at qkv[src] (row r), rotated as qkvRope rotates it */
fn rotated(src: u32, r: u32, e: u32) -> f32 {
  let i = e % P.half;
  let x1 = qkv[src + i];
  let x2 = qkv[src + i + P.half];
  let sc = sincos(angleOf(r, i));
  let c = sc.y;
  let s = 1.0 * sc.x;
  if (e < P.half) { return x1 * c - x2 * s; }
  return x2 * c + x1 * s;
}

${entry1d(wg)}
  if (gid >= P.n) { return; }
  let slots = P.H + 2u * P.Hkv;
  let w = gid % P.half;             // element pair 2w, 2w + 1 of the slot (Dh / 2 = half pairs)
  let rs = gid / P.half;            // row * slots + slot
  let slot = rs % slots;
  let r = rs / slots;
  let src = rs * P.Dh;
  let e = 2u * w;
  let cacheRow = (r / P.T) * P.Sdst + P.dstRow0 + r % P.T;
  if (slot >= P.H + P.Hkv) {
    vCache[((cacheRow * P.Hkv + slot - P.H - P.Hkv) * P.Dh + e) / 2u] = packHalf(qkv[src + e], qkv[src + e + 1u]);
    return;
  }
  let y0 = rotated(src, r, e);
  let y1 = rotated(src, r, e + 1u);
  if (slot < P.H) {
    let dst = (r * P.H + slot) * P.Dh + e;
    q[dst] = y0;
    q[dst + 1u] = y1;
  } else {
    kCache[((cacheRow * P.Hkv + slot - P.H) * P.Dh + e) / 2u] = packHalf(y0, y1);
  }
}
`;
  return { key: `qkvRopeHalf:${freq}:wg${wg}`, code, bindings, params, wg };
}

function buildSwigluPackedProgram(wg: number): WgslProgram {
  // offGu, offH: element offsets of the rows' start in gu's and h's buffers (a split activation: row-spans.ts)
  const params = { n: 'u32', F: 'u32', offGu: 'u32', offH: 'u32' } as const;
  const bindings: BindingSpec[] = [
    { name: 'gu', elem: 'f32', access: 'read' },
    { name: 'h', elem: 'f32', access: 'read_write' },
  ];
  const code = `${header(params, bindings)}

fn sigmoid(x: f32) -> f32 { return 1.0 / (1.0 + exp(-x)); }

${entry1d(wg)}
  if (gid >= P.n) { return; }
  let at = P.offGu + (gid / P.F) * 2u * P.F + gid % P.F;
  let x = gu[at];
  h[P.offH + gid] = x * sigmoid(x) * gu[at + P.F];
}
`;
  return { key: `swigluPacked:wg${wg}`, code, bindings, params, wg };
}

export const qkvRopeProgram = cached(buildQkvRopeProgram);
export const qkvRopeHalfProgram = cached(buildQkvRopeHalfProgram);
export const swigluPackedProgram = cached(buildSwigluPackedProgram);
