// The tiled attention backward (kernels/wgsl/attention-backward-tiled.ts: query and key rows staged in workgroup
// memory per block of 64, dk and dv in one kernel) against its CPU twin, the catalog's attentionBackward on the CPU
// backend: GQA 4/1 and MHA, left padding with a query that sees no key, T across two 64-row blocks and several
// blocks of staged rows (Dh 64: 31 rows per block; Dh 6: not a multiple of 4). tests/engine/golden.test.ts runs every
// fixture's gradients with it too. A hardware default, which the test backend has on every adapter.
// Tolerance 1e-4 of max |value| (exp / log chain), as for the other attention kernels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WebGpuBackend } from '../../src/engine/backends/webgpu.ts';
import { Rng } from '../../src/util/rng.ts';
import { compareKernel, type TensorInput } from '../helpers/kernel-compare.ts';
import { getTestDevice, testBackend } from '../helpers/webgpu.ts';

const TOL = 1e-4;
const rng = new Rng(5);
const f32 = (shape: number[], scale = 1): TensorInput => ({
  shape,
  data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => scale * rng.normal()),
});
const nan = (shape: number[]): TensorInput => ({
  shape,
  data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(NaN),
});
const i32 = (v: number[]): TensorInput => ({ shape: [v.length], data: Int32Array.from(v), dtype: 'i32' });

let gpu: WebGpuBackend;
const cpu = new CpuBackend();
const tiledDispatches = () =>
  Object.entries(gpu.dispatchesByProgram())
    .filter(([k]) => k.startsWith('attentionD') && k.includes('Tiled'))
    .reduce((s, [, n]) => s + n, 0);

describe('tiled attention backward vs the CPU twin', () => {
  beforeAll(async () => {
    const dev = await getTestDevice();
    gpu = testBackend(dev, { tiledAttention: true });
  });
  afterAll(() => gpu?.destroy());

  // long on a software driver: lavapipe took 104 s (wgpu) to over 180 s (Dawn) on a shared 2-core machine
  it('GQA and MHA, padding, several blocks', { timeout: 600_000 }, async () => {
    const before = tiledDispatches();
    // [B, T, H, Hkv, Dh, keyStart]
    const cases: Array<[number, number, number, number, number, number[]]> = [
      [2, 66, 4, 1, 64, [0, 65]],
      [2, 9, 3, 3, 6, [2, 0]],
    ];
    for (const [B, T, H, Hkv, Dh, keyStart] of cases) {
      const q = f32([B, T, H, Dh], 0.5),
        k = f32([B, T, Hkv, Dh], 0.5),
        v = f32([B, T, Hkv, Dh]),
        ks = i32(keyStart);
      const fwd = await compareKernel(
        cpu,
        gpu,
        'attention',
        { q, k, v, keyStart: ks, o: f32([B, T, H, Dh]), lse: f32([B, H, T]) },
        { B, T, S: T, past: 0, H, Hkv, Dh },
        ['o', 'lse'],
      );
      const r = await compareKernel(
        cpu,
        gpu,
        'attentionBackward',
        {
          q,
          k,
          v,
          keyStart: ks,
          o: { shape: [B, T, H, Dh], data: fwd.ref.o },
          lse: { shape: [B, H, T], data: fwd.ref.lse },
          dout: f32([B, T, H, Dh]),
          dq: nan([B, T, H, Dh]),
          dk: nan([B, T, Hkv, Dh]),
          dv: nan([B, T, Hkv, Dh]),
        },
        { B, T, S: T, past: 0, H, Hkv, Dh },
        ['dq', 'dk', 'dv'],
      );
      for (const name of ['dq', 'dk', 'dv'])
        expect(r.err[name], `${name} T=${T} ${H}/${Hkv} Dh=${Dh}`).toBeLessThan(TOL);
    }
    expect(tiledDispatches() - before).toBe(2 * cases.length);
  });
});
