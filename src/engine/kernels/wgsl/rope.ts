// WGSL rotary position embedding (kernel `rope`), Hugging Face rotate_half convention, in place on
// x[R, nHeads, Dh] at integer positions pos[R]. One thread per (row, head, pair i < Dh/2):
//   angle = pos * invFreq[i],  invFreq[i] = theta^(-2i/Dh)   (negated when inverse = 1: the backward pass)
// invFreq [Dh/2] is computed on the host in float64 and rounded once to f32, as Hugging Face does.
//   x'[i] = x[i] cos - x[i+half] sin;   x'[i+half] = x[i+half] cos + x[i] sin
// WGSL's sin/cos are only specified on [-pi, pi], so the angle is reduced modulo 2 pi first (Cody-Waite,
// 2 pi split in a head and a tail so the reduction itself adds no visible error).
import { entry1d, header, type WgslProgram } from './common.ts';

export const ROPE_WG = 64;

export function ropeProgram(): WgslProgram {
  const params = { n: 'u32', nHeads: 'u32', half: 'u32', Dh: 'u32', sign: 'f32' } as const;
  const bindings = [
    { name: 'x', elem: 'f32', access: 'read_write' },
    { name: 'pos', elem: 'i32', access: 'read' },
    { name: 'invFreq', elem: 'f32', access: 'read' },
  ] as const;
  const code = `${header(params, bindings)}

${entry1d(ROPE_WG)}
  if (gid >= P.n) { return; }
  let i = gid % P.half;
  let rh = gid / P.half;           // row * nHeads + head
  let r = rh / P.nHeads;
  let angle = f32(pos[r]) * invFreq[i];
  let turns = round(angle * 0.15915494309189535);
  let reduced = (angle - turns * 6.28125) - turns * 0.0019353071795864769;
  let c = cos(reduced);
  let s = P.sign * sin(reduced);
  let base = rh * P.Dh;
  let x1 = x[base + i];
  let x2 = x[base + i + P.half];
  x[base + i] = x1 * c - x2 * s;
  x[base + i + P.half] = x2 * c + x1 * s;
}
`;
  return { key: 'rope', code, bindings, params };
}
