// Per-kernel GPU times from timestamp queries (backends/webgpu/profiler.ts; off unless asked): with profiling on,
// every dispatch is timed in its own pass and counted under its kernel class, results are unchanged, and without
// it nothing is timed. The engine's device asks for timestamp-query where the adapter offers it; without it
// profiling is refused with an error naming the feature.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../../../src/engine/backends/cpu.ts';
import { compareKernel } from '../../../helpers/kernel-compare.ts';
import { getTestDevice, testBackend } from '../../../helpers/webgpu.ts';

const data = (n: number, s: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * s));

describe('kernel timestamps', () => {
  it('times each dispatch per kernel class, results unchanged; off by default', async () => {
    const dawn = await getTestDevice();
    const gpu = testBackend(dawn);
    expect(await gpu.kernelTimes()).toBeNull();
    if (!dawn.device.features.has('timestamp-query')) {
      expect(() => gpu.profileKernels()).toThrow(/timestamp-query/);
      return;
    }
    gpu.profileKernels();
    const [M, N, K] = [9, 13, 21];
    const inputs = {
      a: { shape: [M, K], data: data(M * K, 0.3) },
      b: { shape: [N, K], data: data(N * K, 0.7) },
      c: { shape: [M, N], data: new Float32Array(M * N) },
    };
    for (let i = 0; i < 3; i++) {
      const r = await compareKernel(
        new CpuBackend(),
        gpu,
        'matmul',
        inputs,
        { M, N, K, transA: 0, transB: 1, alpha: 1, beta: 0 },
        ['c'],
      );
      expect(r.err.c).toBeLessThan(1e-5);
    }
    const x = gpu.alloc([64, 32], 'f32', 'x');
    gpu.upload(x, data(64 * 32, 0.1));
    const w = gpu.alloc([32], 'f32', 'w');
    gpu.upload(w, new Float32Array(32).fill(1));
    const y = gpu.alloc([64, 32], 'f32', 'y');
    const rstd = gpu.alloc([64], 'f32', 'rstd');
    gpu.run('rmsnorm', { t: { x, w, y, rstd }, p: { R: 64, D: 32, eps: 1e-6 } });
    const times = (await gpu.kernelTimes())!;
    const matmul = Object.entries(times).filter(([k]) => k.startsWith('matmul'));
    expect(matmul.reduce((s, [, t]) => s + t.dispatches, 0)).toBe(3);
    const rmsnorm = Object.entries(times).filter(([k]) => k.startsWith('rmsnorm'));
    expect(rmsnorm.reduce((s, [, t]) => s + t.dispatches, 0)).toBe(1);
    for (const t of Object.values(times)) expect(t.ms).toBeGreaterThanOrEqual(0);
    gpu.destroy();
  });
});
