// The WASM log-prob backward flushes logit gradients below 1e-30 to zero: tokens a model all but rules out
// (p ~ 1e-38 and less) would otherwise leave subnormal floats in the chunk's gradient, and the matmul that reads
// them (dh += dl W) ran 60x slower on x64 (measured: a LoRA backward on SmolLM2-135M's shape, 4 layers, 2 x 128
// tokens, 43 s -> 0.7 s). The flushed terms are below f32's resolution of any gradient entry: dh still matches the
// CPU reference.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../../src/engine/backends/wasm.ts';
import type { Backend, Tensor } from '../../../src/engine/backend.ts';

const MIN_NORMAL = 1.1754943508222875e-38;

function put(be: Backend, shape: number[], data: Float32Array | Int32Array, dtype: 'f32' | 'i32' = 'f32'): Tensor {
  const t = be.alloc(shape, dtype);
  be.upload(t, data);
  return t;
}

describe('WASM dlogitsChunk: no subnormal gradients', () => {
  it('writes 0 where the gradient would be subnormal, the formula elsewhere', async () => {
    const be = await WasmBackend.create({ threads: 1 });
    const rt = be.runtime;
    const n = 11; // 8 SIMD lanes + a scalar tail
    const logits = Float32Array.from({ length: n }, (_, i) => [0, -3, -20, -80, -86, -88, -100, -2, -84, -90, -1][i]);
    const dl = put(be, [1, n], logits);
    const target = put(be, [1], Int32Array.from([0]), 'i32');
    const lse = put(be, [1], Float32Array.from([0.5]));
    const entropy = put(be, [1], Float32Array.from([1.5]));
    const coef = put(be, [1], Float32Array.from([0.01]));
    const entCoef = put(be, [1], Float32Array.from([0]));
    // a tensor's view sits in the runtime's memory: its byte offset is the kernel's pointer
    const ptr = (t: Tensor) => (t.dtype === 'i32' ? be.i32(t) : be.f32(t)).byteOffset;
    rt.exports.dlogitsChunk(ptr(dl), 1, n, 0, ptr(target), ptr(lse), ptr(entropy), ptr(coef), ptr(entCoef));
    const got = be.f32(dl);
    for (let i = 0; i < n; i++) {
      const g = got[i];
      expect(g === 0 || Math.abs(g) >= MIN_NORMAL, `element ${i} = ${g} is subnormal`).toBe(true);
      const want = -Math.exp(logits[i] - 0.5) * 0.01 + (i === 0 ? 0.01 : 0);
      if (Math.abs(want) >= 1e-29) expect(Math.abs(g - want)).toBeLessThanOrEqual(1e-5 * Math.abs(want));
      else expect(Math.abs(g)).toBeLessThan(1e-29);
    }
    be.destroy();
  });

  it('logprobBackward with extreme logits matches the CPU reference', async () => {
    const R = 6,
      D = 16,
      V = 300;
    const h = Float32Array.from({ length: R * D }, (_, i) => Math.sin(i) * 4);
    const w = Float32Array.from({ length: V * D }, (_, i) => Math.cos(i * 1.7) * 6); // logits spread over hundreds
    const run = async (be: Backend) => {
      const o = { logp: be.alloc([R]), entropy: be.alloc([R]), lse: be.alloc([R]) };
      const args = {
        h: put(be, [R, D], h),
        w: put(be, [V, D], w),
        target: put(
          be,
          [R],
          Int32Array.from({ length: R }, (_, r) => r * 37),
          'i32',
        ),
      };
      be.run('logprob', { t: { ...args, ...o }, p: { R, D, V } });
      const dh = be.alloc([R, D]);
      be.run('logprobBackward', {
        t: {
          ...args,
          lse: o.lse,
          entropy: o.entropy,
          coef: put(be, [R], new Float32Array(R).fill(0.01)),
          entCoef: put(be, [R], new Float32Array(R).fill(0.001)),
          dh,
        },
        p: { R, D, V },
      });
      return (await be.download(dh)) as Float32Array;
    };
    const wasm = await WasmBackend.create({ threads: 1 });
    const got = await run(wasm);
    const want = await run(new CpuBackend());
    let scale = 0,
      d = 0;
    for (let i = 0; i < want.length; i++) {
      scale = Math.max(scale, Math.abs(want[i]));
      d = Math.max(d, Math.abs(got[i] - want[i]));
    }
    expect(d).toBeLessThanOrEqual(4e-5 * scale + 1e-7);
    wasm.destroy();
  });
});
