// The flash-attention forward for prefill and scoring (kernels/wgsl/attention-flash.ts: a workgroup per sequence x
// head x 64 queries, K/V tiles in workgroup memory, online softmax) against its CPU twin, the catalog's attention on
// the CPU backend: o and the lse the backward reads. GQA 4/1 and MHA, a cached past (S > past + T), left padding
// with queries that see no key, T across two query blocks, several key tiles (Dh 64: 32 keys per tile, Dh 128: 16),
// head dims 6 and 10 (not multiples of 4), an f16 KV cache (Dh 8 and 6), 5 queries over a short cache. tests/engine/golden.test.ts runs every
// fixture's forward with it too. Forced on: it is off on SwiftShader by default.
// Tolerance 1e-4 of max |value| as for the other attention kernels (exp / log chain).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WebGpuBackend } from '../../src/engine/backends/webgpu.ts';
import { encodeF16 } from '../../src/engine/io/half-float.ts';
import { Rng } from '../../src/util/rng.ts';
import { compareKernel, type TensorInput } from '../helpers/kernel-compare.ts';
import { getTestDevice } from '../helpers/webgpu.ts';

const TOL = 1e-4;
const rng = new Rng(17);
const numel = (shape: number[]) => shape.reduce((a, b) => a * b, 1);
const randn = (n: number, scale: number) => Float32Array.from({ length: n }, () => scale * rng.normal());
const f32 = (shape: number[], scale = 1): TensorInput => ({ shape, data: randn(numel(shape), scale) });
const f16 = (shape: number[], scale = 1): TensorInput => ({
  shape,
  data: encodeF16(randn(numel(shape), scale)),
  dtype: 'f16',
});
const nan = (shape: number[]): TensorInput => ({ shape, data: new Float32Array(numel(shape)).fill(NaN) });
const i32 = (v: number[]): TensorInput => ({ shape: [v.length], data: Int32Array.from(v), dtype: 'i32' });

let gpu: WebGpuBackend;
const cpu = new CpuBackend();
const partials = () => gpu.dispatchesByProgram()['attentionPartial:8:wg64'] ?? 0;
const flashDispatches = () =>
  Object.entries(gpu.dispatchesByProgram())
    .filter(([k]) => k.startsWith('attentionFlash'))
    .reduce((s, [, n]) => s + n, 0);

describe('flash-attention forward vs the CPU twin', () => {
  beforeAll(async () => {
    const dev = await getTestDevice();
    gpu = WebGpuBackend.create(dev.device, { gpuInfo: dev.description, flashAttention: true });
  });
  afterAll(() => gpu?.destroy());

  it(
    'GQA and MHA, a cached past, padding, several query blocks and key tiles, odd Dh, f16 cache',
    { timeout: 120_000 },
    async () => {
      const before = flashDispatches();
      // [B, T, S, past, H, Hkv, Dh, keyStart, cache dtype]
      const cases: Array<[number, number, number, number, number, number, number, number[], 'f32' | 'f16']> = [
        [2, 70, 80, 7, 4, 1, 64, [40, 0], 'f32'],
        [1, 33, 40, 5, 2, 2, 128, [3], 'f32'],
        [2, 17, 17, 0, 3, 3, 6, [2, 0], 'f32'],
        [1, 21, 30, 9, 2, 1, 10, [0], 'f32'],
        [2, 20, 24, 3, 2, 1, 8, [0, 1], 'f16'],
        [1, 16, 19, 2, 2, 2, 6, [5], 'f16'],
        [3, 5, 5, 0, 2, 1, 8, [0, 2, 4], 'f32'],
      ];
      for (const [B, T, S, past, H, Hkv, Dh, keyStart, kv] of cases) {
        const cache = kv === 'f16' ? f16 : f32;
        const r = await compareKernel(
          cpu,
          gpu,
          'attention',
          {
            q: f32([B, T, H, Dh], 0.7),
            k: cache([B, S, Hkv, Dh], 0.7),
            v: cache([B, S, Hkv, Dh]),
            keyStart: i32(keyStart),
            o: nan([B, T, H, Dh]),
            lse: nan([B, H, T]),
          },
          { B, T, S, past, H, Hkv, Dh },
          ['o', 'lse'],
        );
        const what = `T=${T} S=${S} past=${past} ${H}/${Hkv} Dh=${Dh} ${kv}`;
        expect(r.err.o, `o ${what}`).toBeLessThan(TOL);
        expect(r.err.lse, `lse ${what}`).toBeLessThan(TOL);
        // a query that sees no key: o = 0 and lse = 0 (the CPU's convention), not NaN from the staged zeros
        if (keyStart[0] > past) {
          expect(r.test.lse[0]).toBe(0);
          expect(Array.from(r.test.o.slice(0, Dh))).toEqual(Array.from({ length: Dh }, () => 0));
        }
      }
      expect(flashDispatches() - before).toBe(cases.length);
    },
  );

  it('leaves a few queries over a long cache to the split-key kernel, and decode to its kernels', async () => {
    const before = flashDispatches();
    const split0 = partials();
    for (const T of [15, 1]) {
      const [B, S, H, Hkv, Dh] = [1, 315, 2, 1, 8];
      const r = await compareKernel(
        cpu,
        gpu,
        'attention',
        {
          q: f32([B, T, H, Dh]),
          k: f32([B, S, Hkv, Dh]),
          v: f32([B, S, Hkv, Dh]),
          keyStart: i32([0]),
          o: nan([B, T, H, Dh]),
          lse: nan([B, H, T]),
        },
        { B, T, S, past: S - T, H, Hkv, Dh },
        ['o', 'lse'],
      );
      expect(r.err.o, `o T=${T}`).toBeLessThan(TOL);
      expect(r.err.lse, `lse T=${T}`).toBeLessThan(TOL);
    }
    expect(flashDispatches()).toBe(before);
    expect(partials()).toBe(split0 + 2);
  });
});
