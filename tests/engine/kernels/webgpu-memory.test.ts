// WebGPU backend memory: tensors split over several buffers when larger than the binding limit (tested with an
// artificially low limit of 2 KiB, so a [300, 13] f32 weight becomes 8 buffers), every kernel that meets such
// tensors (matmul in each layout, lmHead, logprob*, embedding*, adamw, axpby, sumSquares) against the CPU
// reference, vocabulary chunking with a tiny scratch budget, the allocation ledger, and the error messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostArray } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WebGpuBackend } from '../../../src/engine/backends/webgpu.ts';
import { decodeF16, encodeF16 } from '../../../src/engine/io/half-float.ts';
import { groupRowsById } from '../../../src/engine/model/batch.ts';
import { Rng } from '../../../src/util/rng.ts';
import { compareKernel, type TensorInput } from '../../helpers/kernel-compare.ts';
import { getTestDevice } from '../../helpers/webgpu.ts';

const TOL = 1e-5;
const TOL_EXP = 1e-4;
const LIMIT = 2048;

const rng = new Rng(11);
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

let device: GPUDevice;
let split: WebGpuBackend;
const cpu = new CpuBackend();

async function check<K extends Parameters<typeof compareKernel>[2]>(
  kernel: K,
  inputs: Record<string, TensorInput>,
  p: Parameters<typeof compareKernel<K>>[4],
  outputs: string[],
  tol = TOL,
  backend: WebGpuBackend = split,
): Promise<Record<string, HostArray>> {
  const r = await compareKernel(cpu, backend, kernel, inputs, p, outputs);
  for (const name of outputs) expect(r.err[name], `${kernel} output ${name}`).toBeLessThan(tol);
  return r.test;
}

describe('WebGPU memory: split tensors, ledger, errors', () => {
  beforeAll(async () => {
    device = (await getTestDevice()).device;
    split = WebGpuBackend.create(device, { maxStorageBufferBindingSize: LIMIT });
  });
  afterAll(() => split?.destroy());

  it('splits a tensor above the binding limit into whole-row buffers and round-trips partial uploads', async () => {
    const t = split.alloc([300, 13], 'f32', 'big');
    expect(split.bufferCount(t)).toBe(Math.ceil(300 / Math.floor(LIMIT / (13 * 4))));
    const data = randn(300 * 13);
    split.upload(t, data.subarray(0, 1001));
    split.upload(t, data.subarray(1001), 1001);
    expect(await split.download(t)).toEqual(data);
    split.free(t);
    // f16: rows of 13 halves; each buffer must hold an even number of halves
    const h = split.alloc([161, 13], 'f16', 'half'); // 78 rows (1014 halves) per buffer, not 79 (1027)
    expect(split.bufferCount(h)).toBe(3);
    const values = randn(161 * 13);
    split.upload(h, values);
    expect(await split.download(h)).toEqual(decodeF16(encodeF16(values)));
    split.free(h);
  });

  it('matmul with a split operand in every role (A rows, A^T, B^T rows = N, B rows = K, C rows)', async () => {
    const [M, N, K] = [30, 7, 20]; // [30, 20] f32 = 2400 B and [20, 30] = 2400 B: split; small ones are not
    await check(
      'matmul',
      { a: f32([M, K]), b: f32([K, N]), c: f32([M, N]) },
      { M, N, K, transA: 0, transB: 0, alpha: 1, beta: 0.5 },
      ['c'],
    );
    await check(
      'matmul',
      { a: f32([K, M]), b: f32([K, N]), c: f32([M, N]) },
      { M, N, K, transA: 1, transB: 0, alpha: 1, beta: 0 },
      ['c'],
    );
    const [M2, N2, K2] = [5, 60, 11]; // B^T [60, 11] = 2640 B
    await check(
      'matmul',
      { a: f32([M2, K2]), b: f32([N2, K2]), c: f32([M2, N2]), bias: f32([N2]) },
      { M: M2, N: N2, K: K2, transA: 0, transB: 1, alpha: 0.5, beta: 1 },
      ['c'],
    );
    const [M3, N3, K3] = [6, 5, 120]; // B [120, 5] = 2400 B split along K: partial products accumulate
    await check(
      'matmul',
      { a: f32([M3, K3]), b: f32([K3, N3]), c: f32([M3, N3]), bias: f32([N3]) },
      { M: M3, N: N3, K: K3, transA: 0, transB: 0, alpha: 1, beta: -1 },
      ['c'],
    );
    const [M4, N4, K4] = [70, 9, 3]; // C [70, 9] = 2520 B split by rows
    await check(
      'matmul',
      { a: f32([M4, K4]), b: f32([N4, K4]), c: f32([M4, N4]) },
      { M: M4, N: N4, K: K4, transA: 0, transB: 1, alpha: 1, beta: 0 },
      ['c'],
    );
  });

  it('lmHead, logprob and logprobBackward over a split LM head (f32 and f16) and a split dw', async () => {
    const [R, D, V] = [5, 13, 300];
    const h = f32([R, D]),
      target = i32([0, 299, -1, 150, 19]);
    for (const w of [
      f32([V, D], 2),
      { shape: [V, D], data: encodeF16(randn(V * D, 2)), dtype: 'f16' } as TensorInput,
    ]) {
      await check('lmHead', { h, w, logits: f32([R, V]) }, { R, D, V }, ['logits']);
      const fwd = await check(
        'logprob',
        { h, w, target, logp: f32([R]), entropy: f32([R]), lse: f32([R]) },
        { R, D, V },
        ['logp', 'entropy', 'lse'],
        TOL_EXP,
      );
      const grads = w.dtype === 'f16' ? ['dh'] : ['dh', 'dw'];
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
          dh: f32([R, D]),
          ...(w.dtype === 'f16' ? {} : { dw: f32([V, D]) }),
        },
        { R, D, V },
        grads,
        TOL_EXP,
      );
    }
  });

  it('logprob walks the vocabulary in several chunks when the scratch budget is small', async () => {
    const small = WebGpuBackend.create(device, { scratchBytes: 4096 }); // 6 rows -> 170 vocabulary rows per chunk
    const [R, D, V] = [6, 9, 700];
    const h = f32([R, D]),
      w = f32([V, D], 2),
      target = i32([3, 699, 170, 171, -1, 340]);
    const fwd = await check(
      'logprob',
      { h, w, target, logp: f32([R]), entropy: f32([R]), lse: f32([R]) },
      { R, D, V },
      ['logp', 'entropy', 'lse'],
      TOL_EXP,
      small,
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
        entCoef: f32([R], 0.1),
        dh: f32([R, D]),
        dw: f32([V, D]),
      },
      { R, D, V },
      ['dh', 'dw'],
      TOL_EXP,
      small,
    );
    expect(small.ledger().liveBytes).toBe(0); // scratch space was given back
    small.destroy();
  });

  it('embedding and embeddingBackward over a split table', async () => {
    const [V, D] = [90, 7]; // 2520 B: buffers of 73 and 17 rows
    const ids = [0, 89, 73, 72, 36, 73, 0];
    await check('embedding', { ids: i32(ids), table: f32([V, D]), out: f32([ids.length, D]) }, { R: ids.length, D }, [
      'out',
    ]);
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

  it('adamw, axpby and sumSquares chunk by chunk over split flat tensors (n short of the end)', async () => {
    const size = 3000,
      n = 2900;
    await check(
      'adamw',
      { p: f32([size]), g: f32([size]), m: f32([size]), v: { shape: [size], data: randn(size).map((x) => x * x) } },
      { n, lr: 1e-3, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1, step: 7, gradScale: 0.8 },
      ['p', 'm', 'v'],
    );
    await check('axpby', { x: f32([size]), y: f32([size]) }, { n, a: 2, b: -1 }, ['y']);
    await check('sumSquares', { x: f32([size]), out: f32([1]) }, { n, accumulate: 1 }, ['out']);
  });

  it('kernels that need one buffer say so for a split tensor', () => {
    const x = split.alloc([40, 13], 'f32', 'x');
    const w = split.alloc([13], 'f32', 'w');
    const y = split.alloc([40, 13], 'f32', 'y');
    const rstd = split.alloc([40], 'f32', 'rstd');
    expect(() => split.run('rmsnorm', { t: { x, w, y, rstd }, p: { R: 40, D: 13, eps: 1e-6 } })).toThrow(
      /rmsnorm: tensor 'x' \(x\) is split over 2 buffers/,
    );
    for (const t of [x, w, y, rstd]) split.free(t);
  });

  it('keeps a ledger of live and peak bytes and refuses allocations over the budget, naming the bytes', async () => {
    const gpu = WebGpuBackend.create(device, { maxTotalBytes: 4096 });
    expect(gpu.ledger()).toEqual({ liveBytes: 0, peakBytes: 0, liveTensors: 0 });
    const a = gpu.alloc([3, 5], 'f32', 'a'); // 60 bytes, charged as one 256-byte buffer
    const b = gpu.alloc([600], 'f32', 'b'); // 2400 bytes -> 2560
    expect(gpu.ledger()).toEqual({ liveBytes: 2816, peakBytes: 2816, liveTensors: 2 });
    gpu.free(b);
    expect(gpu.ledger()).toEqual({ liveBytes: 256, peakBytes: 2816, liveTensors: 1 });
    expect(() => gpu.alloc([2000], 'f32', 'huge')).toThrow(
      /'huge' \[2000\] f32: needs 8192 bytes but only 3840 bytes are available/,
    );
    expect(gpu.ledger().liveTensors).toBe(1);
    // a reused buffer comes back zeroed
    gpu.upload(
      a,
      Float32Array.from({ length: 15 }, (_, i) => i + 1),
    );
    gpu.free(a);
    const c = gpu.alloc([3, 5], 'f32', 'c');
    expect(await gpu.download(c)).toEqual(new Float32Array(15));
    gpu.destroy();
    // one row wider than the binding limit cannot be split
    expect(() => split.alloc([2, 600], 'f32', 'wide')).toThrow(
      /'wide' \[2, 600\] f32: one row needs 2400 bytes but maxStorageBufferBindingSize is 2048 bytes/,
    );
  });

  it('a full uniform ring submits the batch and keeps going (20 dispatches through a 4-slot ring)', async () => {
    const gpu = WebGpuBackend.create(device, { uniformRingBytes: 1024 });
    const x = gpu.alloc([37], 'f32', 'x'),
      y = gpu.alloc([37], 'f32', 'y');
    const xs = randn(37),
      ys = randn(37);
    gpu.upload(x, xs);
    gpu.upload(y, ys);
    for (let i = 0; i < 20; i++) gpu.run('axpby', { t: { x, y }, p: { n: 37, a: 1, b: 1 } });
    const got = await gpu.download(y);
    const want = ys.map((v, i) => v + 20 * xs[i]);
    for (let i = 0; i < 37; i++) expect(got[i]).toBeCloseTo(want[i], 4);
    gpu.destroy();
  });

  it('reports misuse clearly: wrong host array type, too-small tensors, use after free', () => {
    const t = split.alloc([4], 'f32', 'vec');
    expect(() => split.upload(t, new Int32Array(4))).toThrow(
      /upload 'vec' \(f32\): expected a Float32Array, got Int32Array/,
    );
    expect(() => split.upload(t, new Float32Array(5))).toThrow(/elements \[0, 5\) outside the tensor's 4/);
    const out = split.alloc([1], 'f32', 'out');
    expect(() => split.run('sumSquares', { t: { x: t, out }, p: { n: 9, accumulate: 0 } })).toThrow(
      /tensor 'x' \(vec\) has 4 elements but 9 are needed/,
    );
    split.free(t);
    expect(() => split.run('sumSquares', { t: { x: t, out }, p: { n: 4, accumulate: 0 } })).toThrow(
      /is not live on this backend/,
    );
    expect(() => split.free(t)).toThrow(/double free/);
    split.free(out);
  });
});
