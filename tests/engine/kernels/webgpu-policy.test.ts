// The engine Policy (generation with a KV cache, scoring, gradients, AdamW with clipping) on the WebGPU backend
// against the same policy on the CPU backend, with a tiny random model: every kernel in the order and with the
// buffer reuse that real use produces. Greedy generations must give the same tokens; log-probs and gradient norms
// agree within the tolerance of the storage the policy chose (tests/helpers/tolerances.ts), before and after two
// optimiser steps (LoRA with two adapters, and full fine-tuning).
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { createEnginePolicy, type TrainingSetup } from '../../../src/engine/policy/engine-policy.ts';
import type { GenerateRequest, GradientRequest, SamplingParams } from '../../../src/engine/policy/policy.ts';
import { relMaxErr } from '../../helpers/kernel-compare.ts';
import { storageType, VS_CPU } from '../../helpers/tolerances.ts';
import { getTestDevice, testBackend } from '../../helpers/webgpu.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';

const cfg = tinyConfig({ vocabSize: 37, hiddenSize: 20, intermediateSize: 28, headDim: 6, numHeads: 4, numKvHeads: 2 });
const weights = randomWeights(cfg, 5);
const greedy: SamplingParams = { temperature: 0, topP: 1, topK: 0, seed: 0 };
const gen = (prompt: number[], adapter: string | null): GenerateRequest => ({
  prompt,
  adapter,
  maxNewTokens: 7,
  stopStrings: [],
  stopTokenIds: [],
});

async function run(backend: Backend, training: TrainingSetup) {
  const policy = createEnginePolicy({
    backend,
    config: cfg,
    weights,
    decoder: { decode: (ids) => ids.join(' ') },
    training,
    seed: 1,
    optimizer: {
      lr: 5e-2,
      beta1: 0.9,
      beta2: 0.999,
      eps: 1e-8,
      weightDecay: 0.01,
      gradClip: 0.5,
      schedule: { kind: 'constant' },
    },
  });
  const adapter = training.adapters[0];
  const generations = await policy.generate(
    [gen([1, 2, 3], adapter), gen([4, 5], adapter), gen([9, 8, 7, 6, 5], null)],
    greedy,
  );
  const scoreReqs = generations.map((g, i) => {
    const tokens = [
      ...[
        [1, 2, 3],
        [4, 5],
        [9, 8, 7, 6, 5],
      ][i],
      ...g.tokens,
    ];
    return { tokens, positions: Array.from({ length: tokens.length - 1 }, (_, p) => p + 1), adapter };
  });
  const before = await policy.score(scoreReqs);
  const grads: GradientRequest[] = scoreReqs.map((r, i) => ({
    ...r,
    coef: Float32Array.from(r.positions, (_, p) => Math.cos(p + i)),
  }));
  const steps = [];
  for (let s = 0; s < 2; s++) {
    policy.zeroGrad(adapter);
    await policy.accumulateGradients(grads);
    await policy.optimizerStep(adapter);
  }
  steps.push(...(await policy.readOptimizerStats(adapter)));
  const after = await policy.score(scoreReqs);
  const storage = storageType(policy.baseDtype);
  policy.dispose();
  return {
    storage,
    tokens: generations.map((g) => g.tokens),
    genLogprobs: generations.flatMap((g) => g.logprobs),
    before,
    after,
    steps,
  };
}

const setups: Array<[string, TrainingSetup]> = [
  [
    'lora',
    {
      mode: 'lora',
      adapters: ['meta', 'reasoning'],
      rank: 3,
      alpha: 6,
      targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'],
    },
  ],
  ['full', { mode: 'full', adapters: ['all'] }],
];

describe('the engine Policy on WebGPU vs CPU', () => {
  it.each(setups)(
    '%s: greedy tokens, log-probs, gradient norms and log-probs after two AdamW steps',
    async (_name, training) => {
      const dev = await getTestDevice();
      const gpu = testBackend(dev);
      const ref = await run(new CpuBackend(), training);
      const got = await run(gpu, training);
      // the tolerance of the storage the policy chose (an f16 base for LoRA on a device with shader-f16)
      const tol = VS_CPU[got.storage];
      expect(got.tokens).toEqual(ref.tokens);
      expect(relMaxErr(got.genLogprobs, ref.genLogprobs)).toBeLessThan(tol.outputs);
      expect(
        relMaxErr(
          got.before.flatMap((r) => [...r.logprobs]),
          ref.before.flatMap((r) => [...r.logprobs]),
        ),
      ).toBeLessThan(tol.outputs);
      expect(
        relMaxErr(
          got.before.flatMap((r) => [...r.entropy]),
          ref.before.flatMap((r) => [...r.entropy]),
        ),
      ).toBeLessThan(tol.outputs);
      for (let s = 0; s < 2; s++)
        expect(Math.abs(got.steps[s].gradNorm - ref.steps[s].gradNorm)).toBeLessThan(
          tol.gradients * ref.steps[s].gradNorm,
        );
      // the steps changed the model, identically on both backends
      expect(
        relMaxErr(
          ref.after.flatMap((r) => [...r.logprobs]),
          ref.before.flatMap((r) => [...r.logprobs]),
        ),
      ).toBeGreaterThan(1e-3);
      expect(
        relMaxErr(
          got.after.flatMap((r) => [...r.logprobs]),
          ref.after.flatMap((r) => [...r.logprobs]),
        ),
      ).toBeLessThan(tol.outputs);
      gpu.destroy();
    },
  );
});
