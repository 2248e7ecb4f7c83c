// CPU rotary position embedding (kernel `rope`), Hugging Face "rotate_half" convention, in place.
// x[R, nHeads, Dh], pos[R] (i32). With half = Dh/2 and i < half:
//   invFreq[i] = theta^(-2i/Dh), angle = pos[r] * invFreq[i]
//   x'[i]        = x[i] cos(angle) - x[i+half] sin(angle)
//   x'[i+half]   = x[i+half] cos(angle) + x[i] sin(angle)
// An explicit invFreq[half] (RoPE scaling, e.g. Llama 3) replaces theta^(-2i/Dh) when given.
// inverse=1 rotates by -angle: that is the transpose of the rotation, i.e. the backward pass (dx = R^T dy).

import { scratchF64 } from './scratch.ts';

export function rope(
  x: Float32Array, pos: Int32Array, R: number, nHeads: number, Dh: number, theta: number, inverse: 0 | 1,
  givenInvFreq: Float32Array | null = null,
): void {
  if (Dh % 2 !== 0) throw new Error(`rope: head dim Dh=${Dh} must be even`);
  const half = Dh / 2;
  const cos = scratchF64('rope.cos', half);
  const sin = scratchF64('rope.sin', half);
  const invFreq = scratchF64('rope.invFreq', half);
  for (let i = 0; i < half; i++) invFreq[i] = givenInvFreq ? givenInvFreq[i] : Math.pow(theta, (-2 * i) / Dh);
  const sign = inverse ? -1 : 1;
  for (let r = 0; r < R; r++) {
    const p = pos[r];
    for (let i = 0; i < half; i++) {
      const angle = p * invFreq[i];
      cos[i] = Math.cos(angle);
      sin[i] = sign * Math.sin(angle);
    }
    for (let h = 0; h < nHeads; h++) {
      const base = (r * nHeads + h) * Dh;
      for (let i = 0; i < half; i++) {
        const x1 = x[base + i], x2 = x[base + i + half];
        x[base + i] = x1 * cos[i] - x2 * sin[i];
        x[base + i + half] = x2 * cos[i] + x1 * sin[i];
      }
    }
  }
}
