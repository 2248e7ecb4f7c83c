// The counting wrapper of bench:gpu-plan (bench/gpu-counter.ts) counts what really reaches Dawn: a hand-written
// workload with known numbers of dispatches, submits, bind groups, uploads and readbacks, its counts-only mode
// (dispatches counted, not run), and the engine's WebGpuBackend on a wrapped device.
import { describe, expect, it } from 'vitest';
import { countGpuCalls, diffCounts, writeBufferBytes } from '../../bench/gpu-counter.ts';
import { WebGpuBackend } from '../../src/engine/backends/webgpu.ts';
import { requestTestDevice } from '../helpers/webgpu.ts';

const STORAGE = 0x80,
  COPY_SRC = 0x4,
  COPY_DST = 0x8,
  MAP_READ = 0x1;
const SHADER = `@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) id: vec3u) { x[id.x] = x[id.x] * 2.0; }`;

async function doubledThreeTimes(
  execute: boolean,
): Promise<{ values: number[]; counts: ReturnType<ReturnType<typeof countGpuCalls>['snapshot']> }> {
  const { device } = await requestTestDevice();
  const counted = countGpuCalls(device, { execute });
  const x = device.createBuffer({ size: 16, usage: STORAGE | COPY_SRC | COPY_DST });
  device.queue.writeBuffer(x, 0, Float32Array.of(1, 2, 3, 4));
  device.queue.writeBuffer(x, 4, new Float32Array([9, 2, 9]), 1, 1); // one element: bytes 4..8 := 2
  const pipeline = device.createComputePipeline({
    layout: 'auto',
    compute: { module: device.createShaderModule({ code: SHADER }), entryPoint: 'main' },
  });
  const group = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [{ binding: 0, resource: { buffer: x } }],
  });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, group);
  for (let i = 0; i < 3; i++) pass.dispatchWorkgroups(1);
  pass.end();
  const staging = device.createBuffer({ size: 16, usage: MAP_READ | COPY_DST });
  encoder.copyBufferToBuffer(x, 0, staging, 0, 16);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(1, 0, 12);
  const values = [...new Float32Array(staging.getMappedRange(0, 12))];
  staging.unmap();
  const counts = counted.snapshot();
  device.destroy();
  return { values, counts };
}

describe('countGpuCalls', () => {
  it('counts a hand-written workload exactly and the kernels run', async () => {
    const { values, counts } = await doubledThreeTimes(true);
    expect(values).toEqual([8, 16, 24]);
    expect(counts).toMatchObject({
      dispatches: 3,
      submits: 1,
      commandBuffers: 1,
      readbacks: 1,
      readbackBytes: 12,
      bindGroupsCreated: 1,
      hostUploadBytes: 16 + 4,
      writeBuffers: 2,
      buffersCreated: 2,
      encoders: 1,
      computePasses: 1,
      copies: 1,
      clearBuffers: 0,
      pipelinesCreated: 1,
    });
  });

  it('in counts-only mode counts the dispatches without running them', async () => {
    const { values, counts } = await doubledThreeTimes(false);
    expect(values).toEqual([1, 2, 3]);
    expect(counts.dispatches).toBe(3);
    expect(counts.readbacks).toBe(1);
  });

  it('measures upload bytes as the WebGPU spec counts offsets (elements of a typed array, bytes of an ArrayBuffer)', () => {
    expect(writeBufferBytes(new Float32Array(8), 2, undefined)).toBe(24);
    expect(writeBufferBytes(new Float32Array(8), 0, 3)).toBe(12);
    expect(writeBufferBytes(new ArrayBuffer(64), 8, 16)).toBe(16);
    expect(writeBufferBytes(new ArrayBuffer(64), 8, undefined)).toBe(56);
  });

  it("sees the engine backend's kernels, submits and readbacks", async () => {
    const { device } = await requestTestDevice();
    const counted = countGpuCalls(device);
    const be = WebGpuBackend.create(device);
    const x = be.alloc([64]);
    const y = be.alloc([64]);
    be.upload(x, new Float32Array(64).fill(1));
    const before = counted.snapshot();
    const dispatchesBefore = be.dispatchCount;
    for (let i = 0; i < 5; i++) be.run('axpby', { t: { x, y }, p: { n: 64, a: 1, b: 1 } });
    const out = (await be.download(y)) as Float32Array;
    const d = diffCounts(before, counted.snapshot());
    expect(out[0]).toBe(5);
    expect(d.dispatches).toBe(be.dispatchCount - dispatchesBefore);
    expect(d.dispatches).toBe(5);
    expect(d.readbacks).toBe(1);
    expect(d.readbackBytes).toBe(256);
    expect(d.submits).toBe(1);
    be.destroy();
    device.destroy();
  });
});
