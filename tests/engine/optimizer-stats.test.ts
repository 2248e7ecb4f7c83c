// The Policy's optimiser contract (policy.ts): optimizerStep queues a step and reads nothing back, and
// readOptimizerStats reports each step's gradient norm, lr and whether it applied. The same gradients (one step
// with a NaN coefficient, so non-finite gradients, between two finite ones) give the same reports and the same
// updated model on the CPU, WASM and WebGPU backends; on WebGPU no optimizerStep maps a buffer (counted by wrapping
// Dawn's objects, bench/gpu-counter.ts), and the skipped step leaves the model as if it had never been taken.
import { describe, expect, it } from 'vitest';
import { countGpuCalls, diffCounts, type CountingDevice } from '../../bench/gpu-counter.ts';
import type { Backend } from '../../src/engine/backend.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { createEnginePolicy } from '../../src/engine/policy/engine-policy.ts';
import type { GradientRequest } from '../../src/engine/policy/policy.ts';
import { relMaxErr } from '../helpers/kernel-compare.ts';
import { storageType, VS_CPU } from '../helpers/tolerances.ts';
import { getTestDevice, testBackend } from '../helpers/webgpu.ts';
import { randomWeights, tinyConfig } from '../helpers/engine/model-random.ts';

const cfg = tinyConfig({ vocabSize: 37, hiddenSize: 20, intermediateSize: 28, headDim: 6, numHeads: 4, numKvHeads: 2 });
const weights = randomWeights(cfg, 5);
const request = (coef: number[]): GradientRequest => ({
  tokens: [3, 9, 4, 17, 22, 5, 8],
  positions: [2, 3, 4, 5, 6],
  adapter: 'a',
  coef: Float32Array.from(coef),
});
const finite = [
  [0.4, -0.3, 0.2, 0.5, -0.1],
  [-0.2, 0.6, 0.1, -0.4, 0.3],
];
const poisoned = [0.1, Number.NaN, 0.2, 0.3, 0.1];

/** Runs `coefs` as optimiser steps (read once at the end), on `be`; counts readbacks inside optimizerStep. */
async function train(be: Backend, coefs: number[][], counted: CountingDevice | null) {
  const policy = createEnginePolicy({
    backend: be,
    config: cfg,
    weights,
    decoder: { decode: (ids) => ids.join(' ') },
    training: { mode: 'lora', adapters: ['a'], rank: 3, alpha: 6, targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] },
    seed: 1,
    optimizer: {
      lr: 5e-2,
      beta1: 0.9,
      beta2: 0.999,
      eps: 1e-8,
      weightDecay: 0.01,
      gradClip: 0.5,
      schedule: { kind: 'constant', warmupSteps: 3 },
    },
  });
  let readbacksInStep = 0;
  for (const coef of coefs) {
    policy.zeroGrad('a');
    await policy.accumulateGradients([request(coef)]);
    const c0 = counted?.snapshot();
    await policy.optimizerStep('a');
    if (counted && c0) readbacksInStep += diffCounts(c0, counted.snapshot()).readbacks;
  }
  const stats = await policy.readOptimizerStats('a');
  const [after] = await policy.score([request(finite[0])]);
  const steps = policy.optimizerSteps('a');
  const storage = storageType(policy.baseDtype);
  policy.dispose();
  return { stats, logprobs: after.logprobs, steps, readbacksInStep, storage };
}

describe('optimizerStep queues, readOptimizerStats reports', () => {
  it('CPU, WASM and WebGPU: same norms, lr and applied flags (a NaN step skipped), same model; no readback in optimizerStep on WebGPU', async () => {
    const dawn = await getTestDevice();
    const counted = countGpuCalls(dawn.device);
    const gpu = testBackend(dawn);
    const wasm = await WasmBackend.create();
    const coefs = [finite[0], poisoned, finite[1]];
    const cpu = await train(new CpuBackend(), coefs, null);
    const skippedNever = await train(new CpuBackend(), finite, null);
    const wasmRun = await train(wasm, coefs, null);
    const gpuRun = await train(gpu, coefs, counted);

    expect(cpu.stats.map((r) => r.applied)).toEqual([true, false, true]);
    expect(Number.isNaN(cpu.stats[1].gradNorm)).toBe(true);
    // warm-up over applied updates: the skipped step does not advance the schedule
    expect(cpu.stats.map((r) => r.lr)).toEqual([5e-2 / 3, (2 * 5e-2) / 3, (2 * 5e-2) / 3]);
    expect(cpu.steps).toBe(2);
    // the skipped step changed nothing: the model equals one trained on the two finite steps alone
    expect(Array.from(cpu.logprobs)).toEqual(Array.from(skippedNever.logprobs));
    expect(skippedNever.stats.map((r) => r.gradNorm)).toEqual([cpu.stats[0].gradNorm, cpu.stats[2].gradNorm]);

    for (const [name, run] of [
      ['wasm', wasmRun],
      ['webgpu', gpuRun],
    ] as const) {
      expect(
        run.stats.map((r) => r.applied),
        name,
      ).toEqual([true, false, true]);
      expect(
        run.stats.map((r) => r.lr),
        name,
      ).toEqual(cpu.stats.map((r) => r.lr));
      expect(Number.isNaN(run.stats[1].gradNorm), name).toBe(true);
      for (const k of [0, 2])
        expect(Math.abs(run.stats[k].gradNorm - cpu.stats[k].gradNorm), name).toBeLessThan(
          VS_CPU[run.storage].gradients * cpu.stats[k].gradNorm,
        );
      expect(run.steps, name).toBe(2);
      expect(relMaxErr(run.logprobs, cpu.logprobs), name).toBeLessThan(VS_CPU[run.storage].outputs);
    }
    // the steps moved the model
    expect(relMaxErr(cpu.logprobs, (await train(new CpuBackend(), [], null)).logprobs)).toBeGreaterThan(1e-3);
    expect(gpuRun.readbacksInStep).toBe(0);
    wasm.destroy();
    gpu.destroy();
  });
});
