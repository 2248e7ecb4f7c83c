// A lost WebGPU device is lost for good: after `device.destroy()` (the stand-in for a driver reset or a crashed GPU
// process) every later call on the backend, not only the first sync, throws the same DeviceLostError, which the
// page and the CLI recognise (isDeviceLost) to offer a new device or another backend.
import { describe, expect, it } from 'vitest';
import { WebGpuBackend } from '../../src/engine/backends/webgpu.ts';
import { DeviceLostError, isDeviceLost } from '../../src/engine/device-lost.ts';
import { requestTestDevice } from '../helpers/webgpu.ts';

async function caught(f: () => unknown): Promise<unknown> {
  try {
    await f();
  } catch (e) {
    return e;
  }
  return null;
}

describe('WebGPU device loss', () => {
  it('every call after the loss throws the same clear DeviceLostError', async () => {
    const dawn = await requestTestDevice();
    const be = WebGpuBackend.create(dawn.device, { gpuInfo: dawn.gpuInfo });
    const t = be.alloc([8], 'f32', 'x');
    be.upload(t, new Float32Array(8).fill(1));
    expect(Array.from(await be.download(t))).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    dawn.device.destroy();

    const calls: Array<[string, () => unknown]> = [
      ['sync', () => be.sync()],
      ['second sync', () => be.sync()],
      ['kernel run', () => be.run('zero', { t: { x: t }, p: { n: 8 } })],
      ['upload', () => be.upload(t, new Float32Array(8))],
      ['download', () => be.download(t)],
      ['alloc', () => be.alloc([4], 'f32', 'y')],
      ['third sync', () => be.sync()],
    ];
    const messages: string[] = [];
    for (const [name, call] of calls) {
      const e = await caught(call);
      expect(e, name).toBeInstanceOf(DeviceLostError);
      expect(isDeviceLost(e), name).toBe(true);
      messages.push((e as Error).message);
    }
    expect(new Set(messages).size).toBe(1);
    expect(messages[0]).toMatch(/^WebGPU device lost \(destroyed/);
    expect(be.isLost).toBe(true);
    // tearing down still works: the page and the CLI dispose the policy and the backend after a loss
    be.free(t);
    be.destroy();
  });

  it('a loss seen first by a download throws the DeviceLostError, not an empty message', async () => {
    const dawn = await requestTestDevice();
    const be = WebGpuBackend.create(dawn.device, { gpuInfo: dawn.gpuInfo });
    const t = be.alloc([8], 'f32', 'x');
    await be.sync();
    dawn.device.destroy();
    const e = await caught(() => be.download(t));
    expect(e).toBeInstanceOf(DeviceLostError);
    expect(await caught(() => be.download(t))).toBeInstanceOf(DeviceLostError);
    be.destroy();
  });

  it('isDeviceLost follows causes and plain objects that crossed a worker', () => {
    const lost = new DeviceLostError('unknown', 'GPU process exited');
    expect(isDeviceLost(new Error('step 3 failed', { cause: lost }))).toBe(true);
    expect(isDeviceLost({ name: 'DeviceLostError', message: lost.message })).toBe(true);
    expect(isDeviceLost(new Error('WebGPU device error: out of memory'))).toBe(false);
    expect(isDeviceLost(null)).toBe(false);
  });
});
