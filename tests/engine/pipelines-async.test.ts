// Kernels compiled before they are first dispatched (EnginePolicy's precompileKernels, Backend.precompile): the
// first generation (and the first gradient pass) is traced, the WGSL programs it meets are created with
// createComputePipelineAsync in parallel, and only then does it run. Counted by wrapping Dawn's device
// (bench/gpu-counter.ts): every program a decode dispatches was created by the async call, none in the middle of
// the work; without createComputePipelineAsync (or on a software adapter, where the async call is slower) the sync
// call creates them, still before the first dispatch; the tokens and log-probs equal those of a policy that
// compiles each kernel when first dispatched.
import { describe, expect, it } from 'vitest';
import { countGpuCalls, type CountingDevice } from '../../bench/gpu-counter.ts';
import { createEnginePolicy } from '../../src/engine/policy/engine-policy.ts';
import type { GenerateRequest } from '../../src/engine/policy/policy.ts';
import { requestTestDevice, testBackend } from '../helpers/webgpu.ts';
import { randomWeights, tinyConfig } from '../helpers/engine/model-random.ts';
import { constantAdamW } from '../helpers/adamw.ts';

const cfg = tinyConfig({ vocabSize: 37, hiddenSize: 20, intermediateSize: 28, headDim: 6, numHeads: 4, numKvHeads: 2 });
const weights = randomWeights(cfg, 5);
const requests: GenerateRequest[] = [
  { prompt: [1, 2, 3], adapter: 'a', maxNewTokens: 6, stopStrings: [], stopTokenIds: [] },
  { prompt: [4, 5], adapter: 'a', maxNewTokens: 6, stopStrings: [], stopTokenIds: [] },
];
const sampling = { temperature: 0.8, topP: 0.9, topK: 0, seed: 3 };

/** A fresh counted device, a policy on it, one generation and one gradient pass. */
async function firstCalls(opts: { precompile: boolean; noAsync?: boolean; asyncPipelines?: boolean }) {
  const dawn = await requestTestDevice();
  const counted: CountingDevice = countGpuCalls(dawn.device);
  if (opts.noAsync) Object.defineProperty(dawn.device, 'createComputePipelineAsync', { value: undefined });
  const be = testBackend(dawn, opts.asyncPipelines === undefined ? {} : { asyncPipelines: opts.asyncPipelines });
  const asyncPipelines = be.asyncPipelines;
  const policy = createEnginePolicy({
    backend: be,
    config: cfg,
    weights,
    decoder: { decode: (ids) => ids.join(' ') },
    training: { mode: 'lora', adapters: ['a'], rank: 2, alpha: 4, targets: ['q', 'v', 'down'] },
    seed: 1,
    optimizer: constantAdamW(1e-2),
    // no merged inference copy: its refresh would dispatch kernels before the generation's trace
    mergeLoraForInference: false,
    precompileKernels: opts.precompile,
  });
  await be.sync();
  const beforeGenerate = counted.snapshot();
  const gens = await policy.generate(requests, sampling);
  const afterGenerate = counted.snapshot();
  const programs = Object.keys(be.dispatchesByProgram()).length;
  const [grad] = await policy.accumulateGradients([
    { tokens: [1, 2, 3, ...gens[0].tokens], positions: [2, 3], adapter: 'a', coef: Float32Array.of(0.5, -0.25) },
  ]);
  const afterGradient = counted.snapshot();
  policy.dispose();
  be.destroy();
  dawn.device.destroy();
  return { gens, grad, beforeGenerate, afterGenerate, afterGradient, programs, asyncPipelines };
}

describe('kernels compiled before their first dispatch', () => {
  it('a first generation and gradient pass create every pipeline with createComputePipelineAsync before dispatching; results unchanged', async () => {
    const pre = await firstCalls({ precompile: true, asyncPipelines: true });
    const lazy = await firstCalls({ precompile: false, asyncPipelines: true });
    expect(pre.beforeGenerate.pipelinesCreated + pre.beforeGenerate.pipelinesCreatedAsync).toBe(0);
    // every program the generation dispatched was created by the async call, before the first dispatch
    expect(pre.afterGenerate.pipelinesCreated).toBe(0);
    expect(pre.afterGenerate.pipelinesCreatedAsync).toBe(pre.programs);
    expect(pre.programs).toBeGreaterThan(5);
    expect(pre.afterGenerate.pipelinesAfterDispatch).toBe(0);
    // the gradient pass met new kernels (the backward): compiled by the async call too, none by the sync one
    expect(pre.afterGradient.pipelinesCreated).toBe(0);
    expect(pre.afterGradient.pipelinesCreatedAsync).toBeGreaterThan(pre.afterGenerate.pipelinesCreatedAsync);
    // compiled when first dispatched (the old way): sync, in the middle of the work
    expect(lazy.afterGenerate.pipelinesCreatedAsync).toBe(0);
    expect(lazy.afterGenerate.pipelinesCreated).toBe(lazy.programs);
    expect(lazy.afterGenerate.pipelinesAfterDispatch).toBeGreaterThan(0);
    // same work, same results
    expect(pre.afterGenerate.dispatches).toBe(lazy.afterGenerate.dispatches);
    expect(pre.gens).toEqual(lazy.gens);
    expect(Array.from(pre.grad.logprobs)).toEqual(Array.from(lazy.grad.logprobs));
  });

  it.each<[string, { precompile: boolean; noAsync?: boolean; asyncPipelines?: boolean }]>([
    ['a device without createComputePipelineAsync', { precompile: true, noAsync: true, asyncPipelines: true }],
    [
      'asyncPipelines off (the default on a software adapter: slower there)',
      { precompile: true, asyncPipelines: false },
    ],
  ])('%s: the sync call compiles them, still before the first dispatch', async (_name, opts) => {
    const run = await firstCalls(opts);
    if (!opts.noAsync) expect(run.asyncPipelines).toBe(false);
    expect(run.afterGenerate.pipelinesCreatedAsync).toBe(0);
    expect(run.afterGenerate.pipelinesCreated).toBe(run.programs);
    expect(run.afterGenerate.pipelinesAfterDispatch).toBe(0);
    expect(run.afterGradient.pipelinesCreatedAsync).toBe(0);
  });
});
