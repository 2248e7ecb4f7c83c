// The tiled matmul's padded layout (kernels/wgsl/matmul-tiled.ts `pad` / `vec`: staged rows one element longer, vec4
// staging loads where the operands are aligned to 4) against its CPU twin, the catalog's matmul on the CPU backend:
// both tile sizes, the four transposition layouts with aligned shapes (vec4 loads, f32 and f16 operands, edges
// inside a tile and a K slice of 8 after two of 16), odd shapes that fall back to scalar loads into padded tiles,
// alpha, beta and bias, and the unpadded layout still selectable. Forced on (tiledMatmul): off on SwiftShader by
// default. Tolerance 1e-5 of max |C| as for the other f32 matmul kernels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WebGpuBackend } from '../../src/engine/backends/webgpu.ts';
import { encodeF16 } from '../../src/engine/io/half-float.ts';
import { Rng } from '../../src/util/rng.ts';
import { compareKernel, type TensorInput } from '../helpers/kernel-compare.ts';
import { getTestDevice } from '../helpers/webgpu.ts';

const TOL = 1e-5;
const rng = new Rng(29);
const numel = (shape: number[]) => shape.reduce((a, b) => a * b, 1);
const randn = (n: number) => Float32Array.from({ length: n }, () => rng.normal());
const f32 = (shape: number[]): TensorInput => ({ shape, data: randn(numel(shape)) });
const half = (shape: number[]): TensorInput => ({ shape, data: encodeF16(randn(numel(shape))), dtype: 'f16' });
const nan = (shape: number[]): TensorInput => ({ shape, data: new Float32Array(numel(shape)).fill(NaN) });

let gpu: WebGpuBackend;
const cpu = new CpuBackend();
const count = (infix: string) =>
  Object.entries(gpu.dispatchesByProgram())
    .filter(([k]) => k.startsWith('matmulTiled') && k.split(':')[0].endsWith(infix))
    .reduce((s, [, n]) => s + n, 0);

async function matmul(
  M: number,
  N: number,
  K: number,
  transA: 0 | 1,
  transB: 0 | 1,
  opts: { bHalf?: boolean; aHalf?: boolean; bias?: boolean; beta?: number; alpha?: number } = {},
): Promise<void> {
  const beta = opts.beta ?? 0;
  const inputs: Record<string, TensorInput> = {
    a: (opts.aHalf ? half : f32)(transA ? [K, M] : [M, K]),
    b: (opts.bHalf ? half : f32)(transB ? [N, K] : [K, N]),
    c: beta === 0 ? nan([M, N]) : f32([M, N]),
  };
  if (opts.bias) inputs.bias = f32([N]);
  const p = { M, N, K, transA, transB, alpha: opts.alpha ?? 1, beta };
  const r = await compareKernel(cpu, gpu, 'matmul', inputs, p, ['c']);
  expect(r.err.c, `matmul ${JSON.stringify({ ...p, ...opts })}`).toBeLessThan(TOL);
}

describe('tiled matmul with padded tiles and vec4 loads vs the CPU twin', () => {
  beforeAll(async () => {
    const dev = await getTestDevice();
    gpu = WebGpuBackend.create(dev.device, { gpuInfo: dev.description, tiledMatmul: 4 });
  });
  afterAll(() => gpu?.destroy());

  it(
    'aligned shapes take vec4 loads in every layout (f32 and f16), odd shapes scalar loads, both tiles',
    { timeout: 120_000 },
    async () => {
      expect(gpu.tuning.paddedTiles).toBe(true);
      const [vec0, pad0] = [count('Vec'), count('Pad')];
      gpu.tuning.tiled = 4;
      for (const [ta, tb] of [
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
      ] as const)
        await matmul(36, 68, 40, ta, tb, { alpha: 0.5, beta: 1, bias: true });
      await matmul(20, 36, 24, 0, 1, { bHalf: true });
      await matmul(36, 20, 24, 1, 0, { aHalf: true, bHalf: true });
      expect(count('Vec') - vec0).toBe(6);
      await matmul(37, 45, 29, 0, 1, { beta: 1 });
      await matmul(37, 45, 29, 1, 0, { bias: true });
      // aligned K but an odd N in a layout whose stored rows run along n: scalar loads
      await matmul(40, 45, 32, 0, 0);
      expect(count('Pad') - pad0).toBe(3);
      gpu.tuning.tiled = 2;
      await matmul(36, 52, 40, 1, 1);
      await matmul(33, 17, 19, 0, 1);
      expect(count('Vec') - vec0).toBe(7);
      expect(count('Pad') - pad0).toBe(4);
      gpu.tuning.tiled = 4;
    },
  );

  it('the unpadded scalar-load layout stays selectable (paddedTiles false)', async () => {
    gpu.tuning.paddedTiles = false;
    const before = count('4');
    await matmul(36, 68, 40, 0, 1);
    expect(count('4') - before).toBe(1);
    gpu.tuning.paddedTiles = true;
  });
});
