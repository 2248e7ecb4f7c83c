// expF32 (src/engine/kernels/cpu/exp-f32.ts), the sampler's exponential, against Math.fround(Math.exp(x)): equal
// bit for bit on a stride through every f32 in [-104, 0] (scripts/golden/exp-f32-all.ts walks all of them), on
// the edges of fdlibm's cases and of the f32 range, and on NaN, -Infinity and far below the range.
import { describe, expect, it } from 'vitest';
import { expF32 } from '../../../src/engine/kernels/cpu/exp-f32.ts';

const bits = new Uint32Array(1);
const asF32 = new Float32Array(bits.buffer);

describe('expF32', () => {
  it('equals Math.fround(Math.exp(x)) on a stride through the f32 values in [-104, 0]', () => {
    let checked = 0;
    const wrong: number[] = [];
    // negative f32 bit patterns from -0 (0x80000000) to -104 (0xc2d00000); an odd stride visits every exponent
    for (let b = 0x80000000; b <= 0xc2d00000; b += 4099) {
      bits[0] = b;
      const x = asF32[0];
      if (!Object.is(expF32(x), Math.fround(Math.exp(x)))) wrong.push(x);
      checked++;
    }
    expect(checked).toBeGreaterThan(250_000);
    expect(wrong).toEqual([]);
  });

  it('agrees at the edges of the reduction, of the f32 range and beyond', () => {
    const ln2 = Math.LN2;
    const edges = [0, -0, -1e-30, -(2 ** -28), -(2 ** -27), -ln2 / 2, -1.5 * ln2, -1, -2, -10, -87.3, -103.2];
    edges.push(-103.28, -103.97, -103.9720770839918, -104, -1e-45);
    for (const e of edges) {
      for (const x of [Math.fround(e), Math.fround(e) - 2 ** -20, Math.fround(e) + 2 ** -20]) {
        if (x > 0) continue;
        const y = Math.fround(x);
        expect(Object.is(expF32(y), Math.fround(Math.exp(y))), `x = ${y}`).toBe(true);
      }
    }
    expect(expF32(-Infinity)).toBe(0);
    expect(expF32(-1e30)).toBe(0);
    expect(expF32(-745.2)).toBe(0);
    expect(Number.isNaN(expF32(NaN))).toBe(true);
    expect(expF32(0.5)).toBe(Math.fround(Math.exp(0.5)));
  });
});
