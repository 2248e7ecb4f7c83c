// Device errors name what failed: buffer creation and pipeline compilation run in WebGPU error scopes, so the
// error the next sync throws names the tensor (label, shape, dtype, bytes) or the kernel, instead of an anonymous
// uncaptured error. A real out-of-memory would take the machine's memory with it, so the allocation case makes
// createBuffer fail another way: the device is the real one, but it reports limits twice its own, and the
// backend then asks for a buffer past the real maxBufferSize.
import { describe, expect, it } from 'vitest';
import { WebGpuBackend } from '../../../../src/engine/backends/webgpu.ts';
import { ErrorScopes } from '../../../../src/engine/backends/webgpu/error-scopes.ts';
import { GpuRuntime } from '../../../../src/engine/backends/webgpu/runtime.ts';
import { requestTestDevice } from '../../../helpers/webgpu.ts';

/** `device` as it is, except for limits twice its own buffer sizes. */
function overstated(device: GPUDevice): GPUDevice {
  const real = device.limits;
  const limits = new Proxy(real, {
    get: (t, k) =>
      k === 'maxBufferSize' || k === 'maxStorageBufferBindingSize'
        ? 8 * Math.floor(real.maxBufferSize / 4) // twice the real size, a multiple of 4 (some report 2^32 - 1)
        : Reflect.get(t, k),
  });
  return new Proxy(device, {
    get(t, k) {
      if (k === 'limits') return limits;
      const v = Reflect.get(t, k, t) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}

describe('WebGPU device errors name what failed', () => {
  it('a buffer the device cannot create: the next sync names the tensor, its shape and its bytes', async () => {
    const dawn = await requestTestDevice();
    const be = WebGpuBackend.create(overstated(dawn.device), { gpuInfo: dawn.gpuInfo });
    const elems = Math.floor(dawn.device.limits.maxBufferSize / 4) + 64;
    const t = be.alloc([elems], 'f32', 'huge activation');
    let message = '';
    await be.sync().catch((e: Error) => (message = e.message));
    expect(message).toContain(`'huge activation' [${elems}] f32`);
    // the buffer holds the tensor's bytes, rounded up to the backend's allocation unit
    const bytes = Number(/a buffer of (\d+) bytes could not be created/.exec(message)?.[1]);
    expect(bytes).toBeGreaterThanOrEqual(elems * 4);
    expect(bytes).toBeLessThan(elems * 4 + 256);
    // one error, reported once; the backend keeps working
    await be.sync();
    be.free(t);
    be.destroy();
    dawn.device.destroy();
  });

  it('a kernel whose WGSL does not compile: the error names the kernel', async () => {
    const dawn = await requestTestDevice();
    const reported: string[] = [];
    const scopes = new ErrorScopes(dawn.device, (m) => reported.push(m));
    const runtime = new GpuRuntime(dawn.device, undefined, scopes);
    const out = dawn.device.createBuffer({ size: 16, usage: 0x80 /* STORAGE */ });
    const program = {
      key: 'broken:wg64',
      code: '@group(0) @binding(1) var<storage, read_write> y: array<f32>;\n@compute @workgroup_size(64) fn main() { y[0] = undefinedName; }',
      bindings: [{ name: 'y', elem: 'f32' as const, access: 'read_write' as const }],
      params: {},
    };
    try {
      runtime.dispatch(program, [out], {}, [1, 1, 1]);
    } catch {
      // an invalid pipeline may also fail the bind group; the scope has reported what failed first
    }
    await scopes.settled();
    expect(reported[0]).toMatch(/^WebGPU kernel broken:wg64: the pipeline did not compile/);
    runtime.destroy();
    dawn.device.destroy();
  });
});
