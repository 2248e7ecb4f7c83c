// The WebGPU backend's kernel defaults: they follow the adapter (the workgroup-memory kernels and async pipelines
// on hardware, off on a software adapter), and hardwareDefaults gives every adapter the hardware set, which is
// what the WebGPU test files run (tests/helpers/webgpu.ts), so SwiftShader and lavapipe exercise those kernels.
import { describe, expect, it } from 'vitest';
import { WebGpuBackend } from '../../../../src/engine/backends/webgpu.ts';
import { isSoftwareGpu } from '../../../../src/engine/backends/webgpu/options.ts';
import { baseBackend, getTestDevice, testBackend } from '../../../helpers/webgpu.ts';

const kernels = (be: WebGpuBackend) => ({
  fewRows: be.tuning.fewRows,
  matvec: be.tuning.matvec,
  rowReduce: be.tuning.rowReduce,
  tiled: be.tuning.tiled,
  flashDecode: be.tuning.flashDecode,
  tiledAttention: be.tuning.tiledAttention,
  asyncPipelines: be.asyncPipelines,
});
const allOn = { fewRows: true, matvec: true, rowReduce: true, tiled: 4, flashDecode: true, tiledAttention: true };

describe('WebGPU kernel defaults', () => {
  it("follow the adapter's kind", async () => {
    const dev = await getTestDevice();
    const hardware = !isSoftwareGpu(dev.gpuInfo);
    const be = WebGpuBackend.create(dev.device, { gpuInfo: dev.gpuInfo });
    const off = {
      fewRows: false,
      matvec: false,
      rowReduce: false,
      tiled: 0,
      flashDecode: false,
      tiledAttention: false,
    };
    expect(kernels(be)).toEqual({ ...(hardware ? allOn : off), asyncPipelines: hardware });
    be.destroy();
  });

  it('hardwareDefaults turns on the hardware set on any adapter; explicit options still win', async () => {
    const dev = await getTestDevice();
    const be = testBackend(dev);
    expect(kernels(be)).toEqual({ ...allOn, asyncPipelines: true });
    expect(be.supportsF16).toBe(true);
    expect(be.prefersF16).toBe(dev.device.features.has('shader-f16'));
    const some = testBackend(dev, { tiledMatmul: 2, flashDecode: false });
    expect(kernels(some)).toEqual({ ...allOn, tiled: 2, flashDecode: false, asyncPipelines: true });
    for (const b of [be, some]) b.destroy();
  });

  it('the f32 base: f32 storage and the plain kernels, whatever the adapter offers', async () => {
    const dev = await getTestDevice();
    const be = baseBackend(dev);
    expect(be.supportsF16).toBe(false);
    expect(kernels(be)).toEqual({
      fewRows: false,
      matvec: false,
      rowReduce: false,
      tiled: 0,
      flashDecode: false,
      tiledAttention: false,
      asyncPipelines: false,
    });
    be.destroy();
  });
});
