// Every catalog kernel on the WebGPU backend (with the kernels a hardware adapter gets by default) against the CPU
// backend, the readable reference, on small odd shapes that do not divide the 4x4 matmul block, the 32-wide tile
// or the 256-column logprob slice. Error measure: max |webgpu - cpu| / max |cpu| per output tensor.
// Tolerances: 1e-5 for f32 kernels (the CPU sums in another order, partly in float64), RoPE with theta included
// at positions up to 40000 (exact integer angle reduction and our own sin/cos); 1e-4 where an exp/log chain is
// involved (attention, logprob and their backwards) and for RoPE with an explicit f32 invFreq tensor (the
// angle is formed in f32 there: ~6e-5 rad at position 1000).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostArray } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WebGpuBackend } from '../../../src/engine/backends/webgpu.ts';
import { encodeF16 } from '../../../src/engine/io/half-float.ts';
import { groupRowsById } from '../../../src/engine/model/batch.ts';
import { Rng } from '../../../src/util/rng.ts';
import { compareKernel, relMaxErr, type TensorInput } from '../../helpers/kernel-compare.ts';
import { getTestDevice, testBackend } from '../../helpers/webgpu.ts';

const TOL = 1e-5;
const TOL_EXP = 1e-4;

const rng = new Rng(7);
function randn(n: number, scale = 1): Float32Array {
  return Float32Array.from({ length: n }, () => rng.normal() * scale);
}
function f32(shape: number[], scale = 1): TensorInput {
  return {
    shape,
    data: randn(
      shape.reduce((a, b) => a * b, 1),
      scale,
    ),
  };
}
function i32(values: number[]): TensorInput {
  return { shape: [values.length], data: Int32Array.from(values), dtype: 'i32' };
}
function nan(shape: number[]): TensorInput {
  return { shape, data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(NaN) };
}

let gpu: WebGpuBackend;
const cpu = new CpuBackend();

async function check<K extends Parameters<typeof compareKernel>[2]>(
  kernel: K,
  inputs: Record<string, TensorInput>,
  p: Parameters<typeof compareKernel<K>>[4],
  outputs: string[],
  tol = TOL,
): Promise<Record<string, HostArray>> {
  const r = await compareKernel(cpu, gpu, kernel, inputs, p, outputs);
  for (const name of outputs) expect(r.err[name], `${kernel} output ${name}`).toBeLessThan(tol);
  return r.test;
}

describe('WebGPU kernels vs the CPU reference', () => {
  beforeAll(async () => {
    const dev = await getTestDevice();
    gpu = testBackend(dev);
  });
  afterAll(() => gpu?.destroy());

  it('matmul: all four transpose layouts, alpha, beta, bias, and beta = 0 over NaN', async () => {
    for (const [M, N, K] of [
      [5, 7, 9],
      [33, 37, 3],
      [1, 70, 19],
    ]) {
      for (const transA of [0, 1] as const) {
        for (const transB of [0, 1] as const) {
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
  });

  it('matmul vec4 variant (multiples of 4) in all four layouts and with f16 operands, against the CPU and the scalar kernel', async () => {
    // the general kernels alone (the tiled and decode kernels would take these shapes by default)
    const saved = { ...gpu.tuning };
    Object.assign(gpu.tuning, { tiled: 0, fewRows: false, matvec: false });
    const before = gpu.dispatchesByProgram();
    for (const [M, N, K] of [
      [8, 12, 16],
      [37, 44, 20],
      [4, 40, 36],
    ]) {
      for (const transA of [0, 1] as const) {
        for (const transB of [0, 1] as const) {
          const a = f32(transA ? [K, M] : [M, K]),
            b = f32(transB ? [N, K] : [K, N]),
            c = f32([M, N]),
            bias = f32([N]);
          const p = { M, N, K, transA, transB, alpha: 0.5, beta: 2 };
          const fast = await check('matmul', { a, b, c, bias }, p, ['c']);
          gpu.tuning.vec4 = false;
          const scalar = await check('matmul', { a, b, c, bias }, p, ['c']);
          gpu.tuning.vec4 = true;
          expect(relMaxErr(fast.c, scalar.c)).toBeLessThan(TOL);
        }
      }
    }
    // f16 operands through the vec4 kernel (halves read four at a time)
    for (const [transA, transB] of [
      [0, 1],
      [1, 0],
    ] as const) {
      const [M, N, K] = [8, 12, 20];
      const half = (shape: number[]): TensorInput => ({
        shape,
        data: encodeF16(randn(shape[0] * shape[1])),
        dtype: 'f16',
      });
      await check(
        'matmul',
        { a: half(transA ? [K, M] : [M, K]), b: half(transB ? [N, K] : [K, N]), c: f32([M, N]), bias: half([1, N]) },
        { M, N, K, transA, transB, alpha: 1, beta: 0 },
        ['c'],
      );
    }
    const after = gpu.dispatchesByProgram();
    for (const key of [
      'matmulVec4:00:f32:f32:f32',
      'matmulVec4:01:f32:f32:f32',
      'matmulVec4:10:f32:f32:f32',
      'matmulVec4:11:f32:f32:f32',
      'matmulVec4:01:f16:f16:f16',
      'matmulVec4:10:f16:f16:f16',
    ]) {
      expect(after[key] ?? 0, key).toBeGreaterThan(before[key] ?? 0);
    }
    Object.assign(gpu.tuning, saved);
  });

  it('few-rows matmul (decode shapes, M <= 8, transB = 1)', async () => {
    expect(gpu.tuning.fewRows).toBe(true); // a hardware default, which the test backend has on every adapter
    const saved = gpu.tuning.fewRows;
    gpu.tuning.fewRows = true;
    const before = gpu.dispatchesByProgram()['matmulFewRows:0:f32:f32:f32'] ?? 0;
    for (const [M, N, K, transA] of [
      [1, 37, 45, 0],
      [3, 20, 64, 1],
      [8, 9, 33, 0],
    ] as const) {
      await check(
        'matmul',
        { a: f32(transA ? [K, M] : [M, K]), b: f32([N, K]), c: f32([M, N]), bias: f32([N]) },
        { M, N, K, transA, transB: 1, alpha: 0.5, beta: 1 },
        ['c'],
      );
    }
    const [M, N, K] = [2, 21, 40];
    await check(
      'matmul',
      { a: f32([M, K]), b: { shape: [N, K], data: encodeF16(randn(N * K)), dtype: 'f16' }, c: nan([M, N]) },
      { M, N, K, transA: 0, transB: 1, alpha: 1, beta: 0 },
      ['c'],
    );
    // the LM head of a decode step goes through it as well
    const [R, D, V] = [4, 40, 90];
    const fwd = await check(
      'logprob',
      { h: f32([R, D]), w: f32([V, D]), target: i32([1, 89, -1, 7]), logp: f32([R]), entropy: f32([R]), lse: f32([R]) },
      { R, D, V },
      ['logp', 'entropy', 'lse'],
      TOL_EXP,
    );
    expect(fwd.logp[2]).toBe(0);
    expect(gpu.dispatchesByProgram()['matmulFewRows:0:f32:f32:f32'] ?? 0).toBeGreaterThan(before);
    gpu.tuning.fewRows = saved;
  });

  it('matrix-vector kernel (decode shapes, M <= 8, aligned to 4; 8, 4 and 2 columns per workgroup by K; subgroupAdd and workgroup-memory reductions; f16 weights)', async () => {
    expect(gpu.tuning.matvec).toBe(true); // a hardware default, which the test backend has on every adapter
    const saved = { ...gpu.tuning };
    gpu.tuning.matvec = true;
    gpu.tuning.fewRows = false;
    const count = (key: string) => gpu.dispatchesByProgram()[key] ?? 0;
    // the adapter's subgroups (when the device has the feature) and the workgroup-memory reduction
    const sg = gpu.tuning.subgroups;
    if (gpu.device.features.has('subgroups')) expect(sg).not.toBeNull();
    const keys = sg
      ? ['matvec:8:f32:f32', `matvec:8:f32:f32:sg${sg[0]}-${sg[1]}`, `matvec:2:f32:f32:sg${sg[0]}-${sg[1]}`]
      : ['matvec:8:f32:f32'];
    const before0 = keys.map(count);
    for (const reduction of sg ? [sg, null] : [null]) {
      gpu.tuning.subgroups = reduction;
      for (const [M, N, K] of [
        [1, 37, 44],
        [8, 21, 516],
        [5, 9, 2052],
      ] as const) {
        await check(
          'matmul',
          { a: f32([M, K]), b: f32([N, K]), c: f32([M, N]), bias: f32([N]) },
          { M, N, K, transA: 0, transB: 1, alpha: 0.5, beta: 1 },
          ['c'],
        );
      }
    }
    keys.forEach((k, i) => expect(count(k), k).toBeGreaterThan(before0[i]));
    gpu.tuning.subgroups = null;
    const before = ['matvec:8:f32:f32', 'matvec:4:f32:f32', 'matvec:2:f32:f32', 'matvec:8:f16:f32'].map(count);
    for (const [M, N, K] of [
      [1, 37, 44],
      [8, 21, 516],
      [5, 9, 2052],
      [3, 70, 4],
    ] as const) {
      await check(
        'matmul',
        { a: f32([M, K]), b: f32([N, K]), c: f32([M, N]), bias: f32([N]) },
        { M, N, K, transA: 0, transB: 1, alpha: 0.5, beta: 1 },
        ['c'],
      );
    }
    await check(
      'matmul',
      { a: f32([1, 44]), b: f32([37, 44]), c: nan([1, 37]) },
      { M: 1, N: 37, K: 44, transA: 0, transB: 1, alpha: 1, beta: 0 },
      ['c'],
    );
    const [M, N, K] = [2, 21, 40];
    await check(
      'matmul',
      { a: f32([M, K]), b: { shape: [N, K], data: encodeF16(randn(N * K)), dtype: 'f16' }, c: nan([M, N]) },
      { M, N, K, transA: 0, transB: 1, alpha: 1, beta: 0 },
      ['c'],
    );
    // the LM head of a decode step goes through it as well
    const [R, D, V] = [4, 40, 90];
    await check(
      'logprob',
      { h: f32([R, D]), w: f32([V, D]), target: i32([1, 89, -1, 7]), logp: f32([R]), entropy: f32([R]), lse: f32([R]) },
      { R, D, V },
      ['logp', 'entropy', 'lse'],
      TOL_EXP,
    );
    const after = ['matvec:8:f32:f32', 'matvec:4:f32:f32', 'matvec:2:f32:f32', 'matvec:8:f16:f32'].map(count);
    after.forEach((n, i) => expect(n, `program ${i}`).toBeGreaterThan(before[i]));
    Object.assign(gpu.tuning, saved);
  });

  it('rmsnorm with one workgroup per row (few rows), f32 and f16 weights', async () => {
    expect(gpu.tuning.rowReduce).toBe(true); // a hardware default, which the test backend has on every adapter
    const saved = gpu.tuning.rowReduce;
    gpu.tuning.rowReduce = true;
    const before = gpu.dispatchesByProgram()['rmsnormRows:f32'] ?? 0;
    for (const [R, D] of [
      [1, 896],
      [5, 37],
      [3, 64],
    ]) {
      await check('rmsnorm', { x: f32([R, D]), w: f32([D]), y: nan([R, D]), rstd: nan([R]) }, { R, D, eps: 1e-6 }, [
        'y',
        'rstd',
      ]);
    }
    await check(
      'rmsnorm',
      {
        x: f32([2, 40]),
        w: { shape: [40], data: encodeF16(randn(40)), dtype: 'f16' },
        y: nan([2, 40]),
        rstd: nan([2]),
      },
      { R: 2, D: 40, eps: 1e-6 },
      ['y', 'rstd'],
    );
    expect(gpu.dispatchesByProgram()['rmsnormRows:f32'] ?? 0).toBeGreaterThan(before);
    expect(gpu.dispatchesByProgram()['rmsnormRows:f16'] ?? 0).toBeGreaterThan(0);
    gpu.tuning.rowReduce = saved;
  });

  it('the 1-D kernels with other workgroup sizes (a template parameter): 32 and 256 threads', async () => {
    for (const wg of [32, 256]) {
      gpu.tuning.wg = wg;
      const [R, F] = [3, 67];
      await check(
        'swigluBackward',
        { g: f32([R, F]), u: f32([R, F]), dh: f32([R, F]), dg: nan([R, F]), du: nan([R, F]) },
        { R, F },
        ['dg', 'du'],
      );
      await check('rmsnorm', { x: f32([R, F]), w: f32([F]), y: f32([R, F]), rstd: f32([R]) }, { R, D: F, eps: 1e-5 }, [
        'y',
        'rstd',
      ]);
      const [B, T, S, past, H, Hkv, Dh] = [2, 3, 8, 4, 4, 2, 8];
      await check(
        'attention',
        {
          q: f32([B, T, H, Dh]),
          k: f32([B, S, Hkv, Dh]),
          v: f32([B, S, Hkv, Dh]),
          keyStart: i32([0, 2]),
          o: f32([B, T, H, Dh]),
          lse: f32([B, H, T]),
        },
        { B, T, S, past, H, Hkv, Dh },
        ['o', 'lse'],
        TOL_EXP,
      );
      await check(
        'logprob',
        {
          h: f32([R, 9]),
          w: f32([300, 9]),
          target: i32([0, 299, 5]),
          logp: f32([R]),
          entropy: f32([R]),
          lse: f32([R]),
        },
        { R, D: 9, V: 300 },
        ['logp', 'entropy', 'lse'],
        TOL_EXP,
      );
      await check('sumSquares', { x: f32([3000]), out: f32([1]) }, { n: 3000, accumulate: 0 }, ['out']);
      expect(gpu.dispatchesByProgram()[`swigluBackward:wg${wg}`]).toBeGreaterThan(0);
    }
    gpu.tuning.wg = 64;
  });

  it('f16 weights in matmul (A, B, bias), lmHead and rmsnorm (unpacked to f32, f32 accumulation)', async () => {
    const [M, N, K] = [6, 11, 9];
    const half = (n: number): TensorInput => ({ shape: [N, K], data: encodeF16(randn(n)), dtype: 'f16' });
    await check(
      'matmul',
      { a: f32([M, K]), b: half(N * K), c: f32([M, N]) },
      { M, N, K, transA: 0, transB: 1, alpha: 1, beta: 0 },
      ['c'],
    );
    await check('lmHead', { h: f32([M, K]), w: half(N * K), logits: f32([M, N]) }, { R: M, D: K, V: N }, ['logits']);
    // f16 A (transposed) and f16 bias; f16 RMSNorm weight
    await check(
      'matmul',
      {
        a: { shape: [K, M], data: encodeF16(randn(M * K)), dtype: 'f16' },
        b: f32([K, N]),
        c: f32([M, N]),
        bias: { shape: [N], data: encodeF16(randn(N)), dtype: 'f16' },
      },
      { M, N, K, transA: 1, transB: 0, alpha: 1, beta: 1 },
      ['c'],
    );
    const [R, D] = [4, 9];
    const wHalf: TensorInput = { shape: [D], data: encodeF16(randn(D)), dtype: 'f16' };
    const x = f32([R, D]);
    const fwd = await check('rmsnorm', { x, w: wHalf, y: f32([R, D]), rstd: f32([R]) }, { R, D, eps: 1e-6 }, [
      'y',
      'rstd',
    ]);
    await check(
      'rmsnormBackward',
      { x, w: wHalf, rstd: { shape: [R], data: fwd.rstd }, dy: f32([R, D]), dx: f32([R, D]) },
      { R, D, accumulate: 0 },
      ['dx'],
    );
  });

  it('sumRows with beta 0 (over NaN) and beta 1', async () => {
    const [M, N] = [9, 70];
    await check('sumRows', { x: f32([M, N]), out: nan([N]) }, { M, N, beta: 0 }, ['out']);
    await check('sumRows', { x: f32([M, N]), out: f32([N]) }, { M, N, beta: 1 }, ['out']);
  });

  it('rmsnorm and rmsnormBackward (overwrite and accumulate, with and without dw)', async () => {
    const [R, D] = [7, 45];
    const x = f32([R, D]),
      w = f32([D]);
    const fwd = await check('rmsnorm', { x, w, y: f32([R, D]), rstd: f32([R]) }, { R, D, eps: 1e-5 }, ['y', 'rstd']);
    const rstd = { shape: [R], data: fwd.rstd };
    for (const accumulate of [0, 1] as const) {
      await check(
        'rmsnormBackward',
        { x, w, rstd, dy: f32([R, D]), dx: f32([R, D]), dw: f32([D]) },
        { R, D, accumulate },
        ['dx', 'dw'],
      );
    }
    await check('rmsnormBackward', { x, w, rstd, dy: f32([R, D]), dx: nan([R, D]) }, { R, D, accumulate: 0 }, ['dx']);
  });

  it('rope forward and inverse, theta and explicit invFreq, positions up to 40000', async () => {
    const [R, nHeads, Dh] = [6, 3, 10];
    const pos = i32([0, 1, 17, 250, 999, 40000]);
    for (const inverse of [0, 1] as const) {
      await check('rope', { x: f32([R, nHeads, Dh]), pos }, { R, nHeads, Dh, theta: 10000, inverse }, ['x']);
    }
    const invFreq: TensorInput = { shape: [Dh / 2], data: Float32Array.from([1, 0.3, 0.05, 0.01, 0.001]) };
    // the f32 angle of an explicit invFreq is as precise as Hugging Face's own (f32) computation: keep pos <= 1000
    const pos1000 = i32([0, 1, 17, 250, 999, 1000]);
    await check(
      'rope',
      { x: f32([R, nHeads, Dh]), pos: pos1000, invFreq },
      { R, nHeads, Dh, theta: 1, inverse: 0 },
      ['x'],
      TOL_EXP,
    );
  });

  it('attention: prefill after a cached past, GQA, left padding (a query with no key), Dh not a multiple of 4', async () => {
    for (const [Dh, Hkv] of [
      [6, 2],
      [8, 1],
      [8, 4],
    ]) {
      const [B, T, S, past, H] = [2, 5, 11, 3, 4];
      await check(
        'attention',
        {
          q: f32([B, T, H, Dh]),
          k: f32([B, S, Hkv, Dh]),
          v: f32([B, S, Hkv, Dh]),
          keyStart: i32([0, 5]),
          o: nan([B, T, H, Dh]),
          lse: nan([B, H, T]),
        },
        { B, T, S, past, H, Hkv, Dh },
        ['o', 'lse'],
        TOL_EXP,
      );
    }
    // single-token decode over a longer cache
    const [B, T, S, past, H, Hkv, Dh] = [3, 1, 40, 33, 4, 2, 8];
    await check(
      'attention',
      {
        q: f32([B, T, H, Dh]),
        k: f32([B, S, Hkv, Dh]),
        v: f32([B, S, Hkv, Dh]),
        keyStart: i32([0, 7, 30]),
        o: f32([B, T, H, Dh]),
        lse: f32([B, H, T]),
      },
      { B, T, S, past, H, Hkv, Dh },
      ['o', 'lse'],
      TOL_EXP,
    );
  });

  it('attention with the keys split over threads (decode and a short prefill), against the CPU', async () => {
    const before = gpu.dispatchesByProgram()['attentionPartial:8:wg64'] ?? 0;
    gpu.tuning.flashDecode = false; // on by default: decode queries would take flash-decoding instead
    for (const splitKeys of [4, 7]) {
      gpu.tuning.attentionSplitKeys = splitKeys;
      for (const [B, T, S, past, H, Hkv, Dh, starts] of [
        [3, 1, 40, 33, 4, 2, 8, [0, 7, 30]],
        [2, 3, 20, 9, 2, 1, 6, [0, 11]],
      ] as const) {
        await check(
          'attention',
          {
            q: f32([B, T, H, Dh]),
            k: f32([B, S, Hkv, Dh]),
            v: f32([B, S, Hkv, Dh]),
            keyStart: i32([...starts]),
            o: nan([B, T, H, Dh]),
            lse: nan([B, H, T]),
          },
          { B, T, S, past, H, Hkv, Dh },
          ['o', 'lse'],
          TOL_EXP,
        );
      }
    }
    gpu.tuning.attentionSplitKeys = 128;
    gpu.tuning.flashDecode = true;
    expect(gpu.dispatchesByProgram()['attentionPartial:8:wg64'] ?? 0).toBeGreaterThan(before);
  });

  it('attentionBackward (GQA, left padding) from the forward outputs', async () => {
    for (const [Dh, Hkv] of [
      [8, 2],
      [6, 3],
    ]) {
      const [B, T, H] = [2, 7, 6];
      const q = f32([B, T, H, Dh]),
        k = f32([B, T, Hkv, Dh]),
        v = f32([B, T, Hkv, Dh]),
        keyStart = i32([0, 3]);
      const fwd = await check(
        'attention',
        { q, k, v, keyStart, o: f32([B, T, H, Dh]), lse: f32([B, H, T]) },
        { B, T, S: T, past: 0, H, Hkv, Dh },
        ['o', 'lse'],
        TOL_EXP,
      );
      await check(
        'attentionBackward',
        {
          q,
          k,
          v,
          keyStart,
          o: { shape: [B, T, H, Dh], data: fwd.o },
          lse: { shape: [B, H, T], data: fwd.lse },
          dout: f32([B, T, H, Dh]),
          dq: nan([B, T, H, Dh]),
          dk: nan([B, T, Hkv, Dh]),
          dv: nan([B, T, Hkv, Dh]),
        },
        { B, T, S: T, past: 0, H, Hkv, Dh },
        ['dq', 'dk', 'dv'],
        TOL_EXP,
      );
    }
  });

  it('swiglu and swigluBackward (including large |g|)', async () => {
    const [R, F] = [3, 67];
    const g = f32([R, F], 4);
    await check('swiglu', { g, u: f32([R, F]), h: nan([R, F]) }, { R, F }, ['h']);
    await check('swigluBackward', { g, u: f32([R, F]), dh: f32([R, F]), dg: nan([R, F]), du: nan([R, F]) }, { R, F }, [
      'dg',
      'du',
    ]);
  });

  it('qkvRope (theta and explicit invFreq, into cache rows) and swigluPacked, the fused inference kernels', async () => {
    const [B, T, H, Hkv, Dh, Sdst, dstRow0] = [2, 3, 3, 1, 10, 6, 2];
    const W = (H + 2 * Hkv) * Dh;
    const pos = i32([0, 1, 17, 250, 999, 40000]);
    const base = {
      qkv: f32([B * T, W]),
      q: nan([B, T, H, Dh]),
      k: f32([B, Sdst, Hkv, Dh]),
      v: f32([B, Sdst, Hkv, Dh]),
    };
    await check('qkvRope', { ...base, pos }, { B, T, H, Hkv, Dh, Sdst, dstRow0, theta: 10000 }, ['q', 'k', 'v']);
    const invFreq: TensorInput = { shape: [Dh / 2], data: Float32Array.from([1, 0.3, 0.05, 0.01, 0.001]) };
    await check(
      'qkvRope',
      { ...base, pos: i32([0, 1, 17, 250, 999, 1000]), invFreq },
      { B, T, H, Hkv, Dh, Sdst, dstRow0, theta: 1 },
      ['q', 'k', 'v'],
      TOL_EXP,
    );
    const [R, F] = [3, 67];
    await check('swigluPacked', { gu: f32([R, 2 * F], 4), h: nan([R, F]) }, { R, F }, ['h']);
  });

  it('embedding and embeddingBackward (host-grouped rows, accumulated into dtable)', async () => {
    const [V, D] = [23, 13];
    const ids = [4, 0, 22, 4, 9, 4, 0];
    await check('embedding', { ids: i32(ids), table: f32([V, D]), out: nan([ids.length, D]) }, { R: ids.length, D }, [
      'out',
    ]);
    const f16Table: TensorInput = { shape: [V, D], data: encodeF16(randn(V * D)), dtype: 'f16' };
    await check('embedding', { ids: i32(ids), table: f16Table, out: f32([ids.length, D]) }, { R: ids.length, D }, [
      'out',
    ]);
    // CSR grouping of rows by token id, by the model's own function
    const { uniqueIds, rowStart, rowList } = groupRowsById(Int32Array.from(ids));
    await check(
      'embeddingBackward',
      {
        dout: f32([ids.length, D]),
        uniqueIds: i32([...uniqueIds]),
        rowStart: i32([...rowStart]),
        rowList: i32([...rowList]),
        dtable: f32([V, D]),
      },
      { U: uniqueIds.length, D },
      ['dtable'],
    );
  });

  it('logprob, logprobBackward (with dw, padding targets, entropy term) and lmHead over V = 601', async () => {
    const [R, D, V] = [6, 13, 601];
    const h = f32([R, D]),
      w = f32([V, D], 2),
      target = i32([5, 600, -1, 0, 256, 255]);
    const fwd = await check(
      'logprob',
      { h, w, target, logp: nan([R]), entropy: nan([R]), lse: nan([R]) },
      { R, D, V },
      ['logp', 'entropy', 'lse'],
      TOL_EXP,
    );
    expect(fwd.logp[2]).toBe(0);
    await check(
      'logprobBackward',
      {
        h,
        w,
        target,
        lse: { shape: [R], data: fwd.lse },
        entropy: { shape: [R], data: fwd.entropy },
        coef: f32([R]),
        entCoef: f32([R], 0.1),
        dh: nan([R, D]),
        dw: f32([V, D]),
      },
      { R, D, V },
      ['dh', 'dw'],
      TOL_EXP,
    );
    await check(
      'logprobBackward',
      {
        h,
        w,
        target,
        lse: { shape: [R], data: fwd.lse },
        entropy: { shape: [R], data: fwd.entropy },
        coef: f32([R]),
        entCoef: { shape: [R], data: new Float32Array(R) },
        dh: f32([R, D]),
      },
      { R, D, V },
      ['dh'],
      TOL_EXP,
    );
    await check('lmHead', { h, w, logits: nan([R, V]) }, { R, D, V }, ['logits']);
  });

  it('axpby (b = 0 over NaN), copyRows, sumSquares (set and accumulate), adamw', async () => {
    const n = 203;
    await check('axpby', { x: f32([n]), y: nan([n]) }, { n, a: 1.5, b: 0 }, ['y']);
    await check('axpby', { x: f32([n]), y: f32([n]) }, { n, a: -0.5, b: 0.9 }, ['y']);
    const [B, T, W, Sdst] = [2, 3, 10, 9];
    await check('copyRows', { src: f32([B, T, W]), dst: f32([B, Sdst, W]) }, { B, T, W, Sdst, dstRow0: 4 }, ['dst']);
    await check('sumSquares', { x: f32([5000]), out: nan([1]) }, { n: 5000, accumulate: 0 }, ['out']);
    await check('sumSquares', { x: f32([n]), out: f32([1]) }, { n, accumulate: 1 }, ['out']);
    const v = { shape: [n], data: randn(n).map((x) => x * x) };
    await check(
      'adamw',
      { p: f32([n]), g: f32([n]), m: f32([n]), v },
      {
        n,
        lr: 1e-2,
        beta1: 0.9,
        beta2: 0.999,
        eps: 1e-8,
        weightDecay: 0.01,
        step: 3,
        gradScale: 0.5,
      },
      ['p', 'm', 'v'],
    );
  });
});
