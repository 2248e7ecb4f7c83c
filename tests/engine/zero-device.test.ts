// zeroTensor (zeroGrad, fresh gradients and caches) runs the catalog's `zero`: on WebGPU a clearBuffer recorded in
// order with the kernels, so nothing is uploaded from the host (counted by wrapping Dawn's objects,
// bench/gpu-counter.ts), also for a tensor split over several buffers; CPU and WASM fill with zeros.
import { describe, expect, it } from 'vitest';
import { countGpuCalls, diffCounts } from '../../bench/gpu-counter.ts';
import type { Backend } from '../../src/engine/backend.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WebGpuBackend } from '../../src/engine/backends/webgpu.ts';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { zeroTensor } from '../../src/engine/model/device-ops.ts';
import { requestTestDevice } from '../helpers/webgpu.ts';

/** y := x; zero(y); y += 2x -> 2x everywhere (the zero is ordered between the two kernels). */
async function zeroBetweenKernels(be: Backend, n: number): Promise<Float32Array> {
  const x = be.alloc([n]);
  const y = be.alloc([n]);
  be.upload(
    x,
    Float32Array.from({ length: n }, (_, i) => i + 1),
  );
  be.run('axpby', { t: { x, y }, p: { n, a: 1, b: 0 } });
  zeroTensor(be, y);
  be.run('axpby', { t: { x, y }, p: { n, a: 2, b: 1 } });
  const out = (await be.download(y)) as Float32Array;
  be.free(x);
  be.free(y);
  return out;
}

describe('zeroTensor', () => {
  it('on WebGPU clears in order with the kernels and uploads nothing, also over split buffers', async () => {
    const dawn = await requestTestDevice();
    const counted = countGpuCalls(dawn.device);
    // a 1 KiB binding limit splits the 1000-element tensors into 4 buffers
    const be = WebGpuBackend.create(dawn.device, { maxStorageBufferBindingSize: 1024 });
    const n = 1000;
    const g = be.alloc([n]);
    be.upload(g, new Float32Array(n).fill(3));
    expect(be.bufferCount(g)).toBe(4);
    const before = counted.snapshot();
    zeroTensor(be, g);
    const d = diffCounts(before, counted.snapshot());
    expect(d.hostUploadBytes).toBe(0);
    expect(d.writeBuffers).toBe(0);
    expect(d.dispatches).toBe(0);
    expect(Array.from((await be.download(g)) as Float32Array).every((v) => v === 0)).toBe(true);
    const out = await zeroBetweenKernels(be, n);
    expect(Array.from(out)).toEqual(Array.from({ length: n }, (_, i) => 2 * (i + 1)));
    be.destroy();
    dawn.device.destroy();
  });

  it('on CPU and WASM fills with zeros', async () => {
    for (const be of [new CpuBackend(), await WasmBackend.create()]) {
      const out = await zeroBetweenKernels(be, 37);
      expect(Array.from(out)).toEqual(Array.from({ length: 37 }, (_, i) => 2 * (i + 1)));
    }
  });
});
