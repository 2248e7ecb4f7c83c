// The engine on a WebGPU device with the spec's default limits (REMA_WEBGPU_LIMITS=default: no raised limit
// requested), with every kernel a hardware adapter gets by default switched on (tiled matmul, tiled attention
// backward, flash-decoding, the decode kernels): the device really has the default limits, and the GPU self-test's
// kernel classes (forward, decode, gradients) match the float64 golden fixtures there within its f32 bounds; a
// kernel whose workgroup memory would pass 16 KiB runs its plain variant.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../../../src/cli/fs-source.ts';
import { CpuBackend } from '../../../../src/engine/backends/cpu.ts';
import { WebGpuBackend } from '../../../../src/engine/backends/webgpu.ts';
import {
  engineDeviceDescriptor,
  parseLimitsProfile,
  SPEC_LIMITS,
} from '../../../../src/engine/backends/webgpu/device-request.ts';
import { CHECK_CLASSES } from '../../../../src/engine/gpu-check/golden-checks.ts';
import { loadGoldenFixture } from '../../../../src/engine/gpu-check/golden-fixture.ts';
import { GPU_CHECK_TOLERANCES } from '../../../../src/engine/gpu-check/tolerances.ts';
import { Rng } from '../../../../src/util/rng.ts';
import { GOLDEN_ROOT, goldenFixtures } from '../../../helpers/golden-fixtures.ts';
import { compareKernel, type TensorInput } from '../../../helpers/kernel-compare.ts';
import { getDefaultLimitsDevice } from '../../../helpers/webgpu.ts';

const dawn = await getDefaultLimitsDevice();
const hardwareKernels = () =>
  WebGpuBackend.create(dawn.device, {
    gpuInfo: dawn.gpuInfo,
    fewRowsMatmul: true,
    tiledMatmul: 4,
    tiledAttention: true,
    flashDecode: true,
  });

describe('the default limits profile', () => {
  it('REMA_WEBGPU_LIMITS names it; other values are refused', () => {
    expect(parseLimitsProfile(undefined)).toBe('adapter');
    expect(parseLimitsProfile('adapter')).toBe('adapter');
    expect(parseLimitsProfile('default')).toBe('default');
    expect(() => parseLimitsProfile('max')).toThrow(/REMA_WEBGPU_LIMITS=max/);
  });

  it('requests no raised limit, and the device has the spec defaults', () => {
    const d = engineDeviceDescriptor({ limits: dawn.device.limits, features: dawn.device.features }, 'x', 'default');
    expect(d.requiredLimits).toEqual({});
    for (const [name, value] of Object.entries(SPEC_LIMITS))
      expect(dawn.device.limits[name as keyof typeof SPEC_LIMITS], name).toBe(value);
  });

  it('refuses a program with more storage buffers than the device allows, naming the limit', () => {
    const be = WebGpuBackend.create(dawn.device, { gpuInfo: dawn.gpuInfo });
    const n = SPEC_LIMITS.maxStorageBuffersPerShaderStage + 1;
    const bindings = Array.from({ length: n }, (_, i) => ({
      name: `b${i}`,
      elem: 'f32' as const,
      access: 'read' as const,
    }));
    const program = { key: 'tooMany', code: '', bindings, params: { n: 'u32' as const } };
    const runtime = (be as unknown as { runtime: { dispatch: (...a: unknown[]) => void } }).runtime;
    expect(() => runtime.dispatch(program, Array(n).fill(null), { n: 1 }, [1, 1, 1])).toThrow(
      /binds 9 storage buffers but this device allows 8 per stage \(maxStorageBuffersPerShaderStage\)/,
    );
    be.destroy();
  });
});

describe('kernels within the default limits', () => {
  it('flash-decoding over a group too large for 16 KiB of workgroup memory falls back to a plain kernel', async () => {
    // multi-query attention, 24 query heads on one KV head of 128: the group's queries alone take 12 KiB
    const [B, S, past, H, Hkv, Dh] = [2, 9, 8, 24, 1, 128];
    const rng = new Rng(4);
    const f32 = (shape: number[]): TensorInput => ({
      shape,
      data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
    });
    const gpu = hardwareKernels();
    const r = await compareKernel(
      new CpuBackend(),
      gpu,
      'attention',
      {
        q: f32([B, 1, H, Dh]),
        k: f32([B, S, Hkv, Dh]),
        v: f32([B, S, Hkv, Dh]),
        keyStart: { shape: [B], data: Int32Array.from([0, 3]), dtype: 'i32' },
        o: f32([B, 1, H, Dh]),
        lse: f32([B, H, 1]),
      },
      { B, T: 1, S, past, H, Hkv, Dh },
      ['o', 'lse'],
    );
    expect(r.err.o).toBeLessThan(1e-4);
    expect(r.err.lse).toBeLessThan(1e-4);
    expect(Object.keys(gpu.dispatchesByProgram()).some((k) => k.startsWith('attentionDecode'))).toBe(false);
    gpu.destroy();
  });
});

describe.each(goldenFixtures('golden.safetensors'))('golden fixture %s at the default limits', (name) => {
  // the self-test's kernel classes (forward, log-probs, KV-cache decode, LoRA and full gradients) on f32 weights
  it.each(CHECK_CLASSES.map((c) => [c.kind, c] as const))('%s', async (kind, check) => {
    const fx = await loadGoldenFixture(directoryFileSource(join(GOLDEN_ROOT, name), name));
    const be = hardwareKernels();
    const worst = await check.run(be, fx, 'f32');
    console.info(`${name}/${kind} at the default limits: worst error ${worst.toExponential(1)}`);
    expect(worst).toBeLessThanOrEqual(GPU_CHECK_TOLERANCES.f32[check.bound]);
    // the gradient classes ran the tiled attention backward (8 storage buffers)
    if (check.bound === 'gradients')
      expect(Object.keys(be.dispatchesByProgram()).some((k) => k.startsWith('attentionDkDvTiled'))).toBe(true);
    be.destroy();
  });
});
