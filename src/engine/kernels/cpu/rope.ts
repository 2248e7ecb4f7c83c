// CPU rotary position embedding (kernel `rope`), Hugging Face "rotate_half" convention, in place.
// x[R, nHeads, Dh], pos[R] (i32). With half = Dh/2 and i < half:
//   invFreq[i] = theta^(-2i/Dh), angle = pos[r] * invFreq[i]
//   x'[i]        = x[i] cos(angle) - x[i+half] sin(angle)
//   x'[i+half]   = x[i+half] cos(angle) + x[i] sin(angle)
// An explicit invFreq[half] (RoPE scaling, e.g. Llama 3) replaces theta^(-2i/Dh) when given.
// inverse=1 rotates by -angle: that is the transpose of the rotation, i.e. the backward pass (dx = R^T dy).
// cos/sin per (position, i) are cached across calls in a table (positions < TABLE_POSITIONS) while the
// frequencies stay the same, so steady-state calls do no trigonometry.

import { scratchF64 } from './scratch.ts';

/** positions covered by the cached cos/sin table; larger positions are computed directly */
export const TABLE_POSITIONS = 8192;

export interface AngleTable {
  invFreq: Float64Array;
  /** cos/sin[pos * half + i] for pos < filled */
  cos: Float64Array;
  sin: Float64Array;
  filled: number;
}
let table: AngleTable | null = null;

/** The cached table for these frequencies, filled up to at least `positions` rows (at most TABLE_POSITIONS).
 *  Growing the table replaces its cos/sin arrays (callers that copy them can compare identities). */
export function ropeAngles(invFreq: Float64Array, half: number, positions: number): AngleTable {
  let same = table !== null && table.invFreq.length === half;
  for (let i = 0; same && i < half; i++) same = table!.invFreq[i] === invFreq[i];
  if (!same || !table) {
    table = { invFreq: invFreq.slice(0, half), cos: new Float64Array(0), sin: new Float64Array(0), filled: 0 };
  }
  const want = Math.min(TABLE_POSITIONS, positions);
  if (want > table.filled) {
    const size = Math.min(TABLE_POSITIONS, Math.max(want, 2 * table.filled));
    const cos = new Float64Array(size * half),
      sin = new Float64Array(size * half);
    cos.set(table.cos.subarray(0, table.filled * half));
    sin.set(table.sin.subarray(0, table.filled * half));
    for (let p = table.filled; p < size; p++) {
      for (let i = 0; i < half; i++) {
        cos[p * half + i] = Math.cos(p * invFreq[i]);
        sin[p * half + i] = Math.sin(p * invFreq[i]);
      }
    }
    table.cos = cos;
    table.sin = sin;
    table.filled = size;
  }
  return table;
}

/** invFreq[i] = theta^(-2i/Dh), or the given frequencies (a scratch array of Dh/2, valid until the next call). */
export function ropeInverseFrequencies(Dh: number, theta: number, given: Float32Array | null): Float64Array {
  if (Dh % 2 !== 0) throw new Error(`rope: head dim Dh=${Dh} must be even`);
  const half = Dh / 2;
  const invFreq = scratchF64('rope.invFreq', half);
  for (let i = 0; i < half; i++) invFreq[i] = given ? given[i] : Math.pow(theta, (-2 * i) / Dh);
  return invFreq;
}

/** The largest position in pos[0..R); throws on a negative one. */
export function maxPosition(pos: Int32Array, R: number): number {
  let maxPos = 0;
  for (let r = 0; r < R; r++) {
    if (pos[r] < 0) throw new Error(`rope: pos[${r}] = ${pos[r]} is negative`);
    maxPos = Math.max(maxPos, pos[r]);
  }
  return maxPos;
}

export function rope(
  x: Float32Array,
  pos: Int32Array,
  R: number,
  nHeads: number,
  Dh: number,
  theta: number,
  inverse: 0 | 1,
  givenInvFreq: Float32Array | null = null,
): void {
  const half = Dh / 2;
  const invFreq = ropeInverseFrequencies(Dh, theta, givenInvFreq);
  const angles = ropeAngles(invFreq, half, maxPosition(pos, R) + 1);
  const cos = scratchF64('rope.cos', half);
  const sin = scratchF64('rope.sin', half);
  const sign = inverse ? -1 : 1;
  for (let r = 0; r < R; r++) {
    const p = pos[r];
    for (let i = 0; i < half; i++) {
      if (p < angles.filled) {
        cos[i] = angles.cos[p * half + i];
        sin[i] = sign * angles.sin[p * half + i];
      } else {
        cos[i] = Math.cos(p * invFreq[i]);
        sin[i] = sign * Math.sin(p * invFreq[i]);
      }
    }
    for (let h = 0; h < nHeads; h++) {
      const base = (r * nHeads + h) * Dh;
      for (let i = 0; i < half; i++) {
        const x1 = x[base + i],
          x2 = x[base + i + half];
        x[base + i] = x1 * cos[i] - x2 * sin[i];
        x[base + i + half] = x2 * cos[i] + x1 * sin[i];
      }
    }
  }
}
