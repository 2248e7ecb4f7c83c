// WGSL rotary position embedding (kernel `rope`), Hugging Face rotate_half convention, in place on
// x[R, nHeads, Dh] at integer positions pos[R]. One thread per (row, head, pair i < Dh/2):
//   angle = pos * invFreq[i]   (negated when inverse = 1: the backward pass)
//   x'[i] = x[i] cos - x[i+half] sin;   x'[i+half] = x[i+half] cos + x[i] sin
// WGSL's sin/cos are only specified on [-pi, pi] and an f32 angle of ~1000 rad is already off by ~6e-5, so
// there are two variants:
//   'fixed'  (invFreq = theta^(-2i/Dh), the default): the host gives invFreq / 2pi as a 64-bit binary fraction
//            (two u32 words, from float64); the thread forms pos * that fraction modulo 1 exactly in integer
//            arithmetic, so the reduced angle is good to ~2e-7 rad at any position.
//   'tensor' (an explicit f32 invFreq tensor, e.g. Llama 3 scaling): angle = f32(pos) * invFreq in f32, then
//            reduced modulo 2pi with a two-part 2pi (Cody-Waite).
// sin and cos are our own polynomials (see sincos), not the loosely specified built-ins.
import { cached, entry1d, header, type BindingSpec, type WgslProgram } from './common.ts';

export type RopeFrequencies = 'fixed' | 'tensor';

/** invFreq[i] / 2pi as [hi, lo] u32 words of a 64-bit fraction, for i < half (the 'fixed' variant's table). */
export function ropeTurnTable(theta: number, Dh: number): Uint32Array {
  const half = Dh / 2;
  const out = new Uint32Array(2 * half);
  for (let i = 0; i < half; i++) {
    const scaled = (Math.pow(theta, (-2 * i) / Dh) / (2 * Math.PI)) * 2 ** 32; // < 2^30
    const hi = Math.floor(scaled);
    out[2 * i] = hi;
    out[2 * i + 1] = Math.min(2 ** 32 - 1, Math.floor((scaled - hi) * 2 ** 32));
  }
  return out;
}

/** sincos() and mulhi(), shared by the RoPE kernels. */
export const ROPE_HELPERS = `/** (sin a, cos a) for |a| <= ~pi: quadrant reduction, then Taylor polynomials on |r| <= pi/4 (error < 1e-8;
 *  the built-in sin/cos are only required to be good to 2^-11, and SwiftShader's are off by ~2e-4). */
fn sincos(a: f32) -> vec2<f32> {
  let q = round(a * 0.6366197723675814);
  let r = (a - q * 1.5703125) - q * 4.83826794896558e-4;
  let r2 = r * r;
  let s = r * (1.0 + r2 * (-0.16666666666666666 + r2 * (0.008333333333333333 + r2 * (-1.984126984126984e-4 + r2 * 2.7557319223985893e-6))));
  let c = 1.0 + r2 * (-0.5 + r2 * (0.041666666666666664 + r2 * (-0.001388888888888889 + r2 * (2.48015873015873e-5 + r2 * -2.755731922398589e-7))));
  switch (i32(q) & 3) {
    case 0: { return vec2<f32>(s, c); }
    case 1: { return vec2<f32>(c, -s); }
    case 2: { return vec2<f32>(-s, -c); }
    default: { return vec2<f32>(-c, s); }
  }
}

/** high 32 bits of the 64-bit product a * b */
fn mulhi(a: u32, b: u32) -> u32 {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p01 = a0 * b1;
  let p10 = a1 * b0;
  let mid = ((a0 * b0) >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
}`;

/** WGSL statements that set `reduced` (the angle of pair `i` at row `r`'s position, reduced to about [-pi, pi]);
 *  they read `pos`, and `turns` ('fixed') or `invFreq` ('tensor'). */
export function ropeAngle(freq: RopeFrequencies): string {
  return freq === 'fixed'
    ? `
  // (|pos| * F) mod 2^64, top word = the fraction of a turn; read as i32 it lies in [-1/2, 1/2) turn
  let p = u32(abs(pos[r]));
  let top = p * turns[2u * i] + mulhi(p, turns[2u * i + 1u]);
  var reduced = f32(bitcast<i32>(top)) * 1.4629180792671596e-9;   // 2 pi / 2^32
  if (pos[r] < 0) { reduced = -reduced; }`
    : `
  let angle = f32(pos[r]) * invFreq[i];
  let k = round(angle * 0.15915494309189535);
  let reduced = (angle - k * 6.28125) - k * 0.0019353071795864769;`;
}

function buildRopeProgram(freq: RopeFrequencies, wg: number): WgslProgram {
  const params = { n: 'u32', nHeads: 'u32', half: 'u32', Dh: 'u32', sign: 'f32' } as const;
  const bindings: BindingSpec[] = [
    { name: 'x', elem: 'f32', access: 'read_write' },
    { name: 'pos', elem: 'i32', access: 'read' },
    freq === 'fixed'
      ? { name: 'turns', elem: 'u32', access: 'read' }
      : { name: 'invFreq', elem: 'f32', access: 'read' },
  ];
  const code = `${header(params, bindings)}

${ROPE_HELPERS}
${entry1d(wg)}
  if (gid >= P.n) { return; }
  let i = gid % P.half;
  let rh = gid / P.half;           // row * nHeads + head
  let r = rh / P.nHeads;${ropeAngle(freq)}
  let sc = sincos(reduced);
  let c = sc.y;
  let s = P.sign * sc.x;
  let base = rh * P.Dh;
  let x1 = x[base + i];
  let x2 = x[base + i + P.half];
  x[base + i] = x1 * c - x2 * s;
  x[base + i + P.half] = x2 * c + x1 * s;
}
`;
  return { key: `rope:${freq}:wg${wg}`, code, bindings, params, wg };
}

export const ropeProgram = cached(buildRopeProgram);
