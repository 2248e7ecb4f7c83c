// Readbacks reuse their mappable staging buffers (backends/webgpu/staging.ts): after the first decode step of a
// generation no buffer is created per step (counted by wrapping Dawn's objects, bench/gpu-counter.ts), each step
// still maps only the 16 bytes per sequence it reads, and downloads of every size stay correct when interleaved
// (a buffer reused for a smaller read, concurrent reads each with their own buffer).
import { describe, expect, it } from 'vitest';
import { countGpuCalls, diffCounts, type GpuCounts } from '../../../../bench/gpu-counter.ts';
import { EnginePolicy } from '../../../../src/engine/policy/engine-policy.ts';
import { getTestDevice, testBackend } from '../../../helpers/webgpu.ts';
import { randomWeights, tinyConfig } from '../../../helpers/engine/model-random.ts';
import { constantAdamW } from '../../../helpers/adamw.ts';

describe('WebGPU staging ring', () => {
  it('decode steps create no buffer after the first and map 16 bytes per sequence', async () => {
    const dawn = await getTestDevice();
    const counted = countGpuCalls(dawn.device);
    const gpu = testBackend(dawn);
    const cfg = tinyConfig({ vocabSize: 97, numLayers: 2 });
    const policy = new EnginePolicy({
      backend: gpu,
      config: cfg,
      weights: randomWeights(cfg, 2),
      decoder: { decode: (ids) => ids.join(' ') },
      training: { mode: 'lora', adapters: ['a'], rank: 2, alpha: 4, targets: ['q', 'v'] },
      optimizer: constantAdamW(1e-3),
      seed: 1,
    });
    const requests = Array.from({ length: 3 }, (_, i) => ({
      prompt: [3 + i, 5, 8],
      adapter: 'a',
      maxNewTokens: 6,
      stopStrings: [],
      stopTokenIds: [],
    }));
    const snaps: GpuCounts[] = [];
    await policy.generate(requests, { temperature: 1, topP: 1, topK: 0, seed: 4 }, () =>
      snaps.push(counted.snapshot()),
    );
    const steps = snaps.slice(1).map((s, i) => diffCounts(snaps[i], s));
    expect(steps.length).toBe(5);
    for (const d of steps.slice(1)) {
      expect(d.buffersCreated).toBe(0);
      expect(d.readbacks).toBe(1);
      expect(d.readbackBytes).toBe(3 * 16);
    }
    policy.dispose();
    gpu.destroy();
  });

  it('downloads of different sizes, one after the other and concurrent, return their own data', async () => {
    const dawn = await getTestDevice();
    const gpu = testBackend(dawn);
    const sizes = [1, 300, 64, 3, 1000, 64];
    const tensors = sizes.map((n, i) => {
      const t = gpu.alloc([n], 'f32', `t${i}`);
      gpu.upload(
        t,
        Float32Array.from({ length: n }, (_, j) => i * 10000 + j),
      );
      return t;
    });
    for (let round = 0; round < 2; round++) {
      for (const [i, t] of tensors.entries())
        expect(Array.from(await gpu.download(t))).toEqual(Array.from({ length: sizes[i] }, (_, j) => i * 10000 + j));
    }
    const all = await Promise.all(tensors.map((t) => gpu.download(t)));
    all.forEach((data, i) =>
      expect(Array.from(data)).toEqual(Array.from({ length: sizes[i] }, (_, j) => i * 10000 + j)),
    );
    gpu.destroy();
  });
});
