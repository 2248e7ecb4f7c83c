// The tiled matmul with workgroup memory (kernels/wgsl/matmul-tiled.ts; M, N >= 16) against its CPU twin, the
// catalog's matmul on the CPU backend: both tile sizes, the four transposition layouts, alpha, beta (and beta = 0
// over NaN), bias, f16 weights and bias, edges that do not divide the tile or the K slice, and a piece of a
// larger matrix (offsets, leading dimensions) through lmHead, with each tile size forced
// (4 is the hardware default). Tolerance 1e-5 of max |C| as for the other f32 matmul kernels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostArray } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WebGpuBackend } from '../../../src/engine/backends/webgpu.ts';
import { encodeF16 } from '../../../src/engine/io/half-float.ts';
import { Rng } from '../../../src/util/rng.ts';
import { compareKernel, type TensorInput } from '../../helpers/kernel-compare.ts';
import { getTestDevice, testBackend } from '../../helpers/webgpu.ts';

const TOL = 1e-5;
const rng = new Rng(11);
const randn = (n: number) => Float32Array.from({ length: n }, () => rng.normal());
const f32 = (shape: number[]): TensorInput => ({ shape, data: randn(shape.reduce((a, b) => a * b, 1)) });
const half = (shape: number[]): TensorInput => ({
  shape,
  data: encodeF16(randn(shape.reduce((a, b) => a * b, 1))),
  dtype: 'f16',
});
const nan = (shape: number[]): TensorInput => ({
  shape,
  data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(NaN),
});

let gpu: WebGpuBackend;
const cpu = new CpuBackend();

async function check<K extends Parameters<typeof compareKernel>[2]>(
  kernel: K,
  inputs: Record<string, TensorInput>,
  p: Parameters<typeof compareKernel<K>>[4],
  outputs: string[],
): Promise<Record<string, HostArray>> {
  const r = await compareKernel(cpu, gpu, kernel, inputs, p, outputs);
  for (const name of outputs) expect(r.err[name], `${kernel} output ${name} ${JSON.stringify(p)}`).toBeLessThan(TOL);
  return r.test;
}

const tiledDispatches = () =>
  Object.entries(gpu.dispatchesByProgram())
    .filter(([k]) => k.startsWith('matmulTiled'))
    .reduce((s, [, n]) => s + n, 0);

describe('tiled matmul (workgroup memory) vs the CPU twin', () => {
  beforeAll(async () => {
    const dev = await getTestDevice();
    gpu = testBackend(dev, { tiledMatmul: 4 });
  });
  afterAll(() => gpu?.destroy());

  // (each layout is its own pipeline, compiled by SwiftShader in about a second: tile 64 runs two of them)
  for (const [t, layouts] of [
    [
      2,
      [
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
      ],
    ],
    [
      4,
      [
        [0, 1],
        [1, 0],
      ],
    ],
  ] as const) {
    it(`tile ${16 * t}: layouts ${layouts.map((l) => l.join('')).join(', ')}, odd edges, alpha, beta, bias, beta = 0 over NaN`, async () => {
      gpu.tuning.tiled = t;
      const before = tiledDispatches();
      for (const [M, N, K] of [
        [16, 16, 1],
        [37, 45, 29],
      ]) {
        for (const [transA, transB] of layouts) {
          {
            const a = f32(transA ? [K, M] : [M, K]),
              b = f32(transB ? [N, K] : [K, N]);
            await check(
              'matmul',
              { a, b, c: f32([M, N]), bias: f32([N]) },
              { M, N, K, transA, transB, alpha: 0.7, beta: -0.3 },
              ['c'],
            );
            await check('matmul', { a, b, c: nan([M, N]) }, { M, N, K, transA, transB, alpha: 1, beta: 0 }, ['c']);
          }
        }
      }
      expect(tiledDispatches() - before).toBe(2 * layouts.length * 2);
    });
  }

  it('f16 operands and bias (unpacked, f32 accumulation), and the LM head over many rows', async () => {
    gpu.tuning.tiled = 4;
    const before = tiledDispatches();
    const [M, N, K] = [33, 40, 24];
    await check(
      'matmul',
      { a: f32([M, K]), b: half([N, K]), c: nan([M, N]), bias: half([N]) },
      { M, N, K, transA: 0, transB: 1, alpha: 1, beta: 0 },
      ['c'],
    );
    const [R, D, V] = [20, 40, 90];
    await check('lmHead', { h: f32([R, D]), w: half([V, D]), logits: nan([R, V]) }, { R, D, V }, ['logits']);
    expect(tiledDispatches() - before).toBeGreaterThanOrEqual(2);
  });

  it('split-K for rank-sized products with a long K (LoRA gradients): partial sums per K range, then one reduce with alpha, bias, beta', async () => {
    gpu.tuning.tiled = 4;
    const count = (prefix: string) =>
      Object.entries(gpu.dispatchesByProgram())
        .filter(([k]) => k.startsWith(prefix))
        .reduce((s, [, n]) => s + n, 0);
    const [split0, reduce0] = [count('matmulTiled2Split'), count('matmulSplitReduce')];
    // dA = dYᵀ·X: M = rank 8, N = 40, K = 600 rows; dB-shaped: M = 40, N = 8 (transB = 0); with bias and beta
    await check(
      'matmul',
      { a: f32([600, 8]), b: f32([600, 40]), c: f32([8, 40]) },
      { M: 8, N: 40, K: 600, transA: 1, transB: 0, alpha: 0.5, beta: 1 },
      ['c'],
    );
    await check(
      'matmul',
      { a: f32([40, 600]), b: f32([600, 8]), c: nan([40, 8]), bias: f32([8]) },
      { M: 40, N: 8, K: 600, transA: 0, transB: 0, alpha: 1, beta: 0 },
      ['c'],
    );
    expect(count('matmulTiled2Split') - split0).toBe(2);
    expect(count('matmulSplitReduce') - reduce0).toBe(2);
  });

  it('below 16 rows or columns the other kernels run', async () => {
    gpu.tuning.tiled = 4;
    const before = tiledDispatches();
    await check(
      'matmul',
      { a: f32([15, 20]), b: f32([40, 20]), c: nan([15, 40]) },
      { M: 15, N: 40, K: 20, transA: 0, transB: 1, alpha: 1, beta: 0 },
      ['c'],
    );
    await check(
      'matmul',
      { a: f32([40, 20]), b: f32([8, 20]), c: nan([40, 8]) },
      { M: 40, N: 8, K: 20, transA: 0, transB: 1, alpha: 1, beta: 0 },
      ['c'],
    );
    expect(tiledDispatches()).toBe(before);
  });
});
