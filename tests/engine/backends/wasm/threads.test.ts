// The two-thread WebAssembly backend (src/engine/backends/wasm/threads.ts): large matmuls shared in chunks of output
// rows (attention: of sequences) between the engine's thread and a helper worker_threads Worker over a shared
// memory. Chunks start at the kernels' row blocking, so results must be bit-identical to one thread: every check
// here compares Float32Arrays exactly (Object.is per element), with splitMinWork 0 so every call is split (the
// row-local elementwise kernels too), on shapes that divide no block, both with the chunks shared between the
// threads and with the helper running every chunk (helperOnly); the whole model on golden fixtures (plain SIMD
// here, relaxed SIMD in a child process).
// Also: the single-thread fallback (no SharedArrayBuffer, pinned to 1 thread, a helper that does not start) and
// the default threshold that keeps small matmuls on one thread.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WasmBackend } from '../../../../src/engine/backends/wasm.ts';
import { SPLIT_MIN_WORK, WasmRuntime } from '../../../../src/engine/backends/wasm/runtime.ts';
import { RowKernel } from '../../../../src/engine/backends/wasm/row-jobs.ts';
import { spawnNodeWasmHelper } from '../../../../src/cli/wasm-helper-node.ts';
import { Rng } from '../../../../src/util/rng.ts';
import { decodeBatch } from '../../../../src/engine/model/generate.ts';
import { loraWeightsOn } from '../../../helpers/engine/lora-weights.ts';
import { randomWeights, tinyConfig } from '../../../helpers/engine/model-random.ts';
import { firstDifference, goldenFixtures, modelRun } from '../../../helpers/engine/wasm-threads-model.ts';

const open: WasmBackend[] = [];
/** threads 2 with helperOnly: the helper thread runs every chunk (its path is then tested on every call) */
async function backend(threads: 1 | 2, splitMinWork = 0, helperOnly = false): Promise<WasmBackend> {
  const be = await WasmBackend.create({
    threads,
    spawnHelper: spawnNodeWasmHelper,
    cores: 2,
    splitMinWork,
    helperOnly,
  });
  open.push(be);
  return be;
}
afterAll(() => {
  for (const be of open) be.destroy();
});

function random(n: number, rng: Rng): Float32Array {
  return Float32Array.from({ length: n }, () => rng.normal());
}

/** C after one matmul on the backend's runtime, with C starting from `c0` (beta != 0 reads it). */
function runMatmul(
  rt: WasmRuntime,
  a: Float32Array,
  b: Float32Array,
  c0: Float32Array,
  bias: Float32Array | null,
  M: number,
  N: number,
  K: number,
  transA: 0 | 1,
  transB: 0 | 1,
  alpha: number,
  beta: number,
): Float32Array {
  rt.reserveMatmul(M, N, K);
  const pa = rt.heap.alloc(a.length * 4),
    pb = rt.heap.alloc(b.length * 4),
    pc = rt.heap.alloc(c0.length * 4);
  const pbias = bias ? rt.heap.alloc(bias.length * 4) : 0;
  rt.f32At(pa, a.length).set(a);
  rt.f32At(pb, b.length).set(b);
  rt.f32At(pc, c0.length).set(c0);
  if (bias) rt.f32At(pbias, bias.length).set(bias);
  rt.matmulAt(pa, pb, pc, pbias, M, N, K, transA, transB, alpha, beta);
  const out = rt.f32At(pc, c0.length).slice();
  for (const p of [pa, pb, pc, ...(bias ? [pbias] : [])]) rt.heap.release(p);
  return out;
}

describe('two-thread WASM matmul', () => {
  it('starts a helper thread over a shared memory and says so', async () => {
    const two = await backend(2);
    expect(two.threads).toBe(2);
    expect(two.description).toMatch(/2 threads/);
    expect(two.runtime.memory.buffer).toBeInstanceOf(SharedArrayBuffer);
    const one = await backend(1);
    expect(one.threads).toBe(1);
    expect(one.description).toMatch(/1 thread\)/);
    expect(one.runtime.memory.buffer).not.toBeInstanceOf(SharedArrayBuffer);
  });

  // packed path (M > 128, or transB = 0 with M > 32), op(A) in place (transA) and few-rows path (M <= 32, or transB
  // with M <= 128)
  const shapes: Array<[number, number, number, 0 | 1, 0 | 1]> = [
    [133, 37, 29, 0, 1],
    [133, 37, 29, 0, 0],
    [137, 45, 19, 1, 0],
    [135, 23, 41, 1, 1],
    [66, 40, 301, 1, 0], // op(A) and B read in place (as/matmul-direct.ts), a tail block of 2 rows
    [8, 64, 517, 1, 0], // a LoRA A gradient: dyB^T x
    [66, 77, 53, 0, 0],
    [31, 45, 67, 0, 0],
    [29, 13, 9, 0, 1],
    [97, 131, 35, 0, 1],
    [7, 9, 5, 0, 1],
    [201, 8, 3, 0, 1],
  ];
  it.each(shapes)(
    'M %i N %i K %i transA %i transB %i: 2 threads == 1 thread bit for bit',
    async (M, N, K, transA, transB) => {
      const one = await backend(1);
      const rng = new Rng(M * 1000 + N);
      const a = random(M * K, rng),
        b = random(K * N, rng),
        c0 = random(M * N, rng),
        bias = random(N, rng);
      // chunks shared between the threads, and every chunk on the helper
      for (const two of [await backend(2), await backend(2, 0, true)]) {
        for (const [alpha, beta, withBias] of [
          [1, 0, false],
          [0.7, 0.3, true],
        ] as const) {
          const before = two.runtime.stats.splitMatmuls;
          const want = runMatmul(one.runtime, a, b, c0, withBias ? bias : null, M, N, K, transA, transB, alpha, beta);
          const got = runMatmul(two.runtime, a, b, c0, withBias ? bias : null, M, N, K, transA, transB, alpha, beta);
          expect(two.runtime.stats.splitMatmuls, 'the call was split').toBe(before + 1);
          expect(firstDifference(got, want), `alpha ${alpha} beta ${beta}`).toBe(-1);
        }
      }
    },
  );

  it('by default only matmuls with at least SPLIT_MIN_WORK multiply-adds are split', async () => {
    const two = await backend(2, SPLIT_MIN_WORK);
    const rng = new Rng(5);
    const small = [64, 64, 64] as const; // the tiny model's q projection in a decode step of 64 sequences
    expect(small[0] * small[1] * small[2]).toBeLessThan(SPLIT_MIN_WORK);
    runMatmul(
      two.runtime,
      random(64 * 64, rng),
      random(64 * 64, rng),
      new Float32Array(64 * 64),
      null,
      ...small,
      0,
      1,
      1,
      0,
    );
    expect(two.runtime.stats.splitMatmuls).toBe(0);
    const [M, N, K] = [512, 256, 64];
    expect(M * N * K).toBeGreaterThanOrEqual(SPLIT_MIN_WORK);
    const a = random(M * K, rng),
      b = random(N * K, rng);
    const got = runMatmul(two.runtime, a, b, new Float32Array(M * N), null, M, N, K, 0, 1, 1, 0);
    expect(two.runtime.stats.splitMatmuls).toBe(1);
    const one = await backend(1);
    expect(firstDifference(got, runMatmul(one.runtime, a, b, new Float32Array(M * N), null, M, N, K, 0, 1, 1, 0))).toBe(
      -1,
    );
  });
});

/** o, lse of attention and dq, dk, dv of its backward on one runtime, from the same random inputs */
function runAttention(
  rt: WasmRuntime,
  B: number,
  T: number,
  past: number,
  H: number,
  Hkv: number,
  Dh: number,
  keyStart: number[],
) {
  const S = past + T;
  const rng = new Rng(B * 100 + T);
  const alloc = (n: number, fill: boolean) => {
    const p = rt.heap.alloc(n * 4);
    const v = rt.f32At(p, n);
    if (fill) v.set(random(n, rng));
    else v.fill(0);
    return p;
  };
  const q = alloc(B * T * H * Dh, true),
    k = alloc(B * S * Hkv * Dh, true),
    v = alloc(B * S * Hkv * Dh, true);
  const dout = alloc(B * T * H * Dh, true);
  const o = alloc(B * T * H * Dh, false),
    lse = alloc(B * H * T, false),
    scores = alloc(S, false);
  const dq = alloc(B * T * H * Dh, false),
    dk = alloc(B * S * Hkv * Dh, false),
    dv = alloc(B * S * Hkv * Dh, false);
  const ks = rt.heap.alloc(B * 4);
  new Int32Array(rt.memory.buffer, ks, B).set(keyStart);
  rt.attention(q, k, v, ks, o, lse, scores, B, T, S, past, H, Hkv, Dh);
  const out: Float32Array[] = [rt.f32At(o, B * T * H * Dh).slice(), rt.f32At(lse, B * H * T).slice()];
  rt.attentionBackward(q, k, v, ks, o, lse, dout, dq, dk, dv, B, T, S, past, H, Hkv, Dh);
  out.push(
    rt.f32At(dq, B * T * H * Dh).slice(),
    rt.f32At(dk, B * S * Hkv * Dh).slice(),
    rt.f32At(dv, B * S * Hkv * Dh).slice(),
  );
  return out;
}

describe('two-thread WASM attention (split by sequences)', () => {
  const cases: Array<[number, number, number, number, number, number, number[]]> = [
    [3, 7, 0, 4, 2, 7, [0, 2, 5]],
    [5, 9, 0, 6, 3, 5, [1, 0, 0, 8, 3]],
    [4, 1, 11, 4, 1, 9, [0, 3, 12, 2]],
    [2, 6, 5, 2, 2, 16, [0, 4]],
  ];
  it.each(cases)(
    'B %i T %i past %i H %i Hkv %i Dh %i: forward and backward 2 threads == 1 thread bit for bit',
    async (B, T, past, H, Hkv, Dh, ks) => {
      const one = await backend(1);
      const want = runAttention(one.runtime, B, T, past, H, Hkv, Dh, ks);
      for (const two of [await backend(2), await backend(2, 0, true)]) {
        const before = two.runtime.stats.splitAttention;
        const got = runAttention(two.runtime, B, T, past, H, Hkv, Dh, ks);
        expect(two.runtime.stats.splitAttention).toBe(before + 2);
        want.forEach((w, i) => expect(firstDifference(got[i], w), ['o', 'lse', 'dq', 'dk', 'dv'][i]).toBe(-1));
      }
    },
  );
});

/** Every row kernel (row-jobs.ts) on one runtime from the same random inputs: the outputs it writes. */
function runRowKernels(rt: WasmRuntime, R: number, F: number): Float32Array[] {
  const rng = new Rng(R * 31 + F);
  const D = F;
  const alloc = (n: number) => {
    const p = rt.heap.alloc(n * 4);
    rt.f32At(p, n).set(random(n, rng));
    return p;
  };
  const x = alloc(R * D),
    w = alloc(D),
    y = alloc(R * D),
    rstd = alloc(R),
    dx = alloc(R * D),
    g = alloc(R * F),
    u = alloc(R * F),
    h = alloc(R * F),
    dg = alloc(R * F),
    du = alloc(R * F),
    gu = alloc(2 * R * F),
    h2 = alloc(R * F),
    rx = alloc(R * 2 * 8),
    cos = alloc(4 * 4),
    sin = alloc(4 * 4);
  const pos = rt.heap.alloc(R * 4);
  new Int32Array(rt.memory.buffer, pos, R).set(Array.from({ length: R }, (_, r) => r % 4));
  // swiglu's chunks of whole SIMD groups (kernels.ts simdRows): F = 7 needs 4 rows
  const simd = F % 4 === 0 ? 1 : 4;
  rt.rows(RowKernel.Rmsnorm, [x, w, y, rstd, D], R, D, 1, 1e-5);
  rt.rows(RowKernel.RmsnormBackward, [x, w, rstd, y, dx, D, 1], R, D);
  rt.rows(RowKernel.Swiglu, [g, u, h, F], R, F, simd);
  rt.rows(RowKernel.SwigluBackward, [g, u, h, dg, du, F], R, F, simd);
  rt.rows(RowKernel.SwigluPacked, [gu, h2, F], R, F);
  rt.rows(RowKernel.Rope, [rx, pos, cos, sin, 2, 8, 0], R, 16);
  rt.rows(RowKernel.Axpby, [x, y], R * D, 1, 4, 0.5, -1.5);
  const read = (p: number, n: number) => rt.f32At(p, n).slice();
  return [
    read(y, R * D),
    read(rstd, R),
    read(dx, R * D),
    read(h, R * F),
    read(dg, R * F),
    read(du, R * F),
    read(h2, R * F),
    read(rx, R * 16),
  ];
}

describe('two-thread WASM row kernels (split by rows)', () => {
  it.each([
    [37, 12],
    [29, 7],
    [5, 44],
  ])(
    'R %i, F %i: rmsnorm (and backward), swiglu (and backward, packed), rope, axpby 2 threads == 1 thread',
    async (R, F) => {
      const one = await backend(1);
      const want = runRowKernels(one.runtime, R, F);
      for (const two of [await backend(2), await backend(2, 0, true)]) {
        const before = two.runtime.stats.splitRows;
        const got = runRowKernels(two.runtime, R, F);
        expect(two.runtime.stats.splitRows).toBe(before + 7);
        want.forEach((w, i) => expect(firstDifference(got[i], w), `output ${i}`).toBe(-1));
      }
    },
  );
});

/** The sample kernel's out [R, 4] (token, logp, entropy, kept as i32 bits) on one backend, from seeded logits. */
async function runSample(
  be: WasmBackend,
  p: { temperature: number; topK: number; topP: number; masked: boolean },
): Promise<Int32Array> {
  const [L, V, R] = [9, 70, 13];
  const rng = new Rng(17);
  const logits = be.alloc([L, V]);
  be.upload(logits, random(L * V, rng));
  const rowOf = be.alloc([R], 'i32');
  be.upload(
    rowOf,
    Int32Array.from({ length: R }, (_, r) => (r * 5) % L),
  );
  const stream = be.alloc([R], 'i32');
  be.upload(
    stream,
    Int32Array.from({ length: R }, (_, r) => 100 + r),
  );
  const out = be.alloc([R, 4], 'i32');
  const words = Math.ceil(V / 32);
  const mask = p.masked ? be.alloc([R, words], 'i32') : null;
  // every token of row r allowed but those with (i + r) % 3 == 0
  if (mask)
    be.upload(
      mask,
      Int32Array.from({ length: R * words }, (_, j) => {
        const [r, w] = [Math.floor(j / words), j % words];
        let bits = 0;
        for (let b = 0; b < 32; b++) if ((w * 32 + b + r) % 3 !== 0 && w * 32 + b < V) bits |= 1 << b;
        return bits;
      }),
    );
  be.run('sample', {
    t: { logits, rowOf, stream, out, ...(mask ? { mask } : {}) },
    p: { R, L, V, temperature: p.temperature, topK: p.topK, topP: p.topP, seed: 0xdeadbeef, counter: 3 },
  });
  const got = (await be.download(out)) as Int32Array;
  for (const t of [logits, rowOf, stream, out, ...(mask ? [mask] : [])]) be.free(t);
  return got;
}

describe('two-thread WASM sampler (split by rows)', () => {
  it.each([
    { temperature: 0, topK: 0, topP: 1, masked: false },
    { temperature: 1, topK: 0, topP: 1, masked: false },
    { temperature: 0.7, topK: 9, topP: 0.85, masked: false },
    { temperature: 1.3, topK: 0, topP: 0.9, masked: true },
  ])('%o: 2 threads == 1 thread bit for bit', async (p) => {
    const want = await runSample(await backend(1), p);
    for (const two of [await backend(2), await backend(2, 0, true)]) {
      const before = two.runtime.stats.splitSamples;
      const got = await runSample(two, p);
      expect(two.runtime.stats.splitSamples).toBe(before + 1);
      expect(firstDifference(new Float32Array(got.buffer), new Float32Array(want.buffer))).toBe(-1);
    }
  });
});

/** Every logits row a decode call's chooser sees (greedy over 6 prompts, 7 new tokens; the last prompts stop early
 *  so later steps run fewer sequences), on a model with a rank-2 adapter, fused or not. */
async function decodeLogits(be: WasmBackend, fused: boolean): Promise<Float32Array[]> {
  const cfg = tinyConfig({ architecture: 'qwen2', attentionBias: true, vocabSize: 40, numHeads: 4, numKvHeads: 2 });
  const w = loraWeightsOn(be, cfg, randomWeights(cfg, 21), fused);
  const prompts = [
    [3, 5, 7, 9],
    [2, 4],
    [8, 1, 6, 30, 31],
    [3, 5, 7, 9],
    [12, 13, 14],
    [20, 21],
  ];
  const rows: Float32Array[] = [];
  await decodeBatch(
    be,
    cfg,
    w,
    prompts,
    (b, logits, step) => {
      rows.push(Float32Array.from(logits));
      return step < 7 - (b % 3) ? (b * 7 + step * 5) % cfg.vocabSize : null;
    },
    { maxNewTokens: 7 },
  );
  return rows;
}

describe('two-thread WASM decode steps (one program per step, split by sequences)', () => {
  it.each([true, false])('fused weights %s: every logits row 2 threads == 1 thread bit for bit', async (fused) => {
    const want = await decodeLogits(await backend(1), fused);
    for (const two of [await backend(2), await backend(2, 0, true)]) {
      const before = two.runtime.stats.splitPrograms;
      const got = await decodeLogits(two, fused);
      // the fused layers lower to programs; the unfused ones (LoRA products, rope, copyRows) run kernel by kernel
      if (fused) expect(two.runtime.stats.splitPrograms).toBeGreaterThan(before + 3);
      else expect(two.runtime.stats.splitPrograms).toBe(before);
      expect(got.length).toBe(want.length);
      want.forEach((w, i) => expect(firstDifference(got[i], w), `logits row ${i}`).toBe(-1));
    }
  });

  it('a body that does more than run kernels is refused', async () => {
    const two = await backend(2);
    expect(() => two.bySequence(8, () => two.free(two.alloc([1])))).toThrow(/only run kernels, not alloc/);
  });
});

describe('single-thread fallback', () => {
  it('without SharedArrayBuffer (simulated), pinned to 1 thread, or on 1 core: one thread on an ordinary memory', async () => {
    for (const options of [{ sharedMemory: false }, { threads: 1 as const }, { cores: 1 }]) {
      const be = await WasmBackend.create({ spawnHelper: spawnNodeWasmHelper, cores: 2, ...options });
      open.push(be);
      expect(be.threads, JSON.stringify(options)).toBe(1);
      // only the page's missing isolation is named: a core count or a pin is no surprise
      expect(be.description).toMatch(
        'sharedMemory' in options
          ? /1 thread: no SharedArrayBuffer \(the page is not cross-origin isolated\)\)/
          : /1 thread\)/,
      );
      expect(be.runtime.memory.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    }
    // no way to start a helper (the default in tests and where a page has no Worker)
    const plain = await WasmBackend.create();
    open.push(plain);
    expect(plain.threads).toBe(1);
  });

  it('a helper thread that fails to start leaves a working one-thread backend', async () => {
    const be = await WasmBackend.create({
      threads: 2,
      cores: 2,
      spawnHelper: () => Promise.reject(new Error('no workers here')),
    });
    open.push(be);
    expect(be.threads).toBe(1);
    const rng = new Rng(3);
    const a = random(40 * 20, rng),
      b = random(20 * 30, rng);
    const one = await backend(1);
    expect(
      firstDifference(
        runMatmul(be.runtime, a, b, new Float32Array(40 * 30), null, 40, 30, 20, 0, 0, 1, 0),
        runMatmul(one.runtime, a, b, new Float32Array(40 * 30), null, 40, 30, 20, 0, 0, 1, 0),
      ),
    ).toBe(-1);
  });
});

describe.each(goldenFixtures().slice(0, 2))('whole model on golden fixture %s', (name) => {
  it('forward, every gradient and LoRA gradients: 2 threads == 1 thread bit for bit', async () => {
    const want = await modelRun(await backend(1), name);
    for (const two of [await backend(2), await backend(2, 0, true)]) {
      const got = await modelRun(two, name);
      expect(two.runtime.stats.splitMatmuls).toBeGreaterThan(10);
      expect(two.runtime.stats.splitAttention).toBeGreaterThan(1);
      expect(two.runtime.stats.splitRows).toBeGreaterThan(1);
      expect([...got.keys()]).toEqual([...want.keys()]);
      for (const [key, w] of want) expect(firstDifference(got.get(key)!, w), key).toBe(-1);
    }
  });
});

describe('relaxed SIMD (fused multiply-add) on two threads', () => {
  it('whole model with --experimental-wasm-relaxed-simd: 2 threads == 1 thread bit for bit (child process)', () => {
    const script = resolve(import.meta.dirname, '../../../helpers/engine/wasm-threads-relaxed-check.ts');
    const out = execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--import', 'tsx', script], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    const result = JSON.parse(out.trim().split('\n').pop() ?? '{}') as {
      variant: string;
      compared: number;
      differing: string[];
      split: number[];
    };
    expect(result.variant).toBe('relaxed-simd');
    expect(result.compared).toBeGreaterThan(10);
    expect(result.differing).toEqual([]);
    for (const n of result.split) expect(n).toBeGreaterThan(10);
  });
});
