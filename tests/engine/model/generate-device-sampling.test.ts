// Generation draws its tokens on the device: on WebGPU each decode step reads back 16 bytes per cache row
// (counted by wrapping Dawn's objects, bench/gpu-counter.ts), never a logits row; the tokens equal the CPU
// backend's (the kernel's twin) for the same seed, the recorded log-probs equal what scoring gives, and the same
// seed gives the same tokens.
import { describe, expect, it } from 'vitest';
import { countGpuCalls, diffCounts, type GpuCounts } from '../../../bench/gpu-counter.ts';
import type { Backend } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { EnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import type { GenerateRequest, SamplingParams } from '../../../src/engine/policy/policy.ts';
import { storageType, VS_CPU } from '../../helpers/tolerances.ts';
import { requestTestDevice, testBackend } from '../../helpers/webgpu.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';
import { constantAdamW } from '../../helpers/adamw.ts';

const cfg = tinyConfig({ vocabSize: 300, numLayers: 2 });
const weights = randomWeights(cfg, 21);

function policy(be: Backend): EnginePolicy {
  return new EnginePolicy({
    backend: be,
    config: cfg,
    weights,
    decoder: { decode: (ids) => ids.join(' ') },
    training: { mode: 'lora', adapters: ['a'], rank: 4, alpha: 8, targets: ['q', 'v', 'down'] },
    optimizer: constantAdamW(1e-3),
    seed: 3,
    mergeLoraForInference: false,
  });
}

const prompt = [5, 9, 14, 2];
const requests: GenerateRequest[] = [
  ...Array.from({ length: 3 }, () => ({ prompt, adapter: 'a', maxNewTokens: 8, stopStrings: [], stopTokenIds: [] })),
  { prompt: [7, 7], adapter: 'a', maxNewTokens: 5, stopStrings: [], stopTokenIds: [] },
];
const sampling: SamplingParams = { temperature: 1.2, topP: 0.95, topK: 50, seed: 17 };

describe('generation with the sample kernel', () => {
  it("reads back 16 bytes per sequence per step on WebGPU and draws the CPU twin's tokens", async () => {
    const dawn = await requestTestDevice();
    const counted = countGpuCalls(dawn.device);
    const gpu = testBackend(dawn);
    const pg = policy(gpu);
    // the tolerance of the storage the policy chose (an f16 base and KV cache on a device with shader-f16)
    const tol = VS_CPU[storageType(pg.baseDtype)].outputs;
    const snaps: GpuCounts[] = [counted.snapshot()];
    const onGpu = await pg.generate(requests, sampling, () => snaps.push(counted.snapshot()));
    // steps 1.. are decode steps; the short request finishes after step 4, but its cache row stays until half of
    // the rows are done, so every step draws (and reads back) 4 rows of 16 bytes
    const steps = snaps.slice(2).map((s, i) => diffCounts(snaps[i + 1], s));
    expect(steps.length).toBe(7);
    steps.forEach((d, i) => {
      expect(d.readbacks, `decode step ${i + 1}`).toBe(1);
      expect(d.readbackBytes, `decode step ${i + 1}`).toBe(16 * 4);
      // bind groups are cached per program and buffers: a decode step after the first creates none
      if (i > 0) expect(d.bindGroupsCreated, `decode step ${i + 1}`).toBe(0);
    });
    // the prefill step reads back one 16-byte row per sequence too
    expect(diffCounts(snaps[0], snaps[1]).readbackBytes).toBe(16 * requests.length);

    const again = await pg.generate(requests, sampling);
    expect(again.map((g) => g.tokens)).toEqual(onGpu.map((g) => g.tokens));
    const other = await pg.generate(requests, { ...sampling, seed: 18 });
    expect(other.map((g) => g.tokens)).not.toEqual(onGpu.map((g) => g.tokens));

    const scored = await pg.score(
      onGpu.map((g, i) => ({
        tokens: [...requests[i].prompt, ...g.tokens],
        positions: g.tokens.map((_t, k) => requests[i].prompt.length + k),
        adapter: 'a',
      })),
    );
    onGpu.forEach((g, i) =>
      g.logprobs.forEach((lp, k) => expect(Math.abs(lp - scored[i].logprobs[k])).toBeLessThan(tol)),
    );

    const pc = policy(new CpuBackend());
    const onCpu = await pc.generate(requests, sampling);
    expect(onGpu.map((g) => g.tokens)).toEqual(onCpu.map((g) => g.tokens));
    onGpu.forEach((g, i) =>
      g.logprobs.forEach((lp, k) => expect(Math.abs(lp - onCpu[i].logprobs[k])).toBeLessThan(tol)),
    );
    pg.dispose();
    gpu.destroy();
    dawn.device.destroy();
  });
});
