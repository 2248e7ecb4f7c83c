// Activations above maxStorageBufferBindingSize on WebGPU: with the binding limit forced down on a tiny model, the
// MLP's [R, F] and [R, 2F] activations are split over buffers by rows (swiglu, swigluBackward and swigluPacked run
// per piece, the matmuls walk the pieces), and scoring, training and prefill passes are capped at the rows whose
// attention-side activations fit one binding (model/pass-rows.ts). Each result is compared with the same backend
// without the cap: log-probs, every gradient, fused logits, greedy generations and LoRA steps.
import { describe, expect, it } from 'vitest';
import { WebGpuBackend } from '../../src/engine/backends/webgpu.ts';
import { packSequences } from '../../src/engine/model/batch.ts';
import { computeLogits, runSequences } from '../../src/engine/model/decoder.ts';
import { allocMerged } from '../../src/engine/model/lora-merge.ts';
import { namedParameters, uploadParams, zerosLikeParams } from '../../src/engine/model/params.ts';
import { passRowLimit, widestBoundRowBytes } from '../../src/engine/model/pass-rows.ts';
import { createEnginePolicy } from '../../src/engine/policy/engine-policy.ts';
import type { GenerateRequest } from '../../src/engine/policy/policy.ts';
import { cancellingAdapter } from '../helpers/cancelling-adapter.ts';
import { relMaxErr } from '../helpers/kernel-compare.ts';
import { getTestDevice } from '../helpers/webgpu.ts';
import { randomWeights, tinyConfig } from '../helpers/engine/model-random.ts';

// widest attention-side row: (H + 2Hkv)·Dh = 32 floats = 128 bytes; MLP rows: F = 48 floats, 2F = 96
const cfg = tinyConfig({ intermediateSize: 48, vocabSize: 40 });
const weights = randomWeights(cfg, 3);
const dawn = await getTestDevice();
const backend = (maxStorageBufferBindingSize?: number) =>
  WebGpuBackend.create(dawn.device, {
    gpuInfo: dawn.gpuInfo,
    ...(maxStorageBufferBindingSize ? { maxStorageBufferBindingSize } : {}),
  });

// 4 sequences of 12 tokens: R = 48 rows
const seqs = [0, 1, 2, 3].map((b) => {
  const tokens = Array.from({ length: 12 }, (_, t) => (7 * b + 3 * t + 1) % cfg.vocabSize);
  return { tokens, positions: Array.from({ length: 11 }, (_, t) => t + 1) };
});
const coef = Float32Array.from({ length: 44 }, (_, q) => Math.sin(q + 1));

/** Dispatches of the programs whose key starts with `prefix`. */
const count = (c: Record<string, number>, prefix: string) =>
  Object.entries(c)
    .filter(([k]) => k.startsWith(prefix))
    .reduce((s, [, n]) => s + n, 0);

const gen = (prompt: number[]): GenerateRequest => ({
  prompt,
  adapter: 'a',
  maxNewTokens: 7,
  stopStrings: [],
  stopTokenIds: [],
});

async function forwardBackward(be: WebGpuBackend) {
  const params = uploadParams(be, cfg, weights);
  const grads = zerosLikeParams(be, cfg, 'grad');
  const batch = packSequences(seqs, cfg.vocabSize);
  const r = await runSequences(be, cfg, { params, lora: null }, batch, {
    coef,
    entropyCoef: null,
    sinks: { full: grads, lora: null },
  });
  const g = new Map<string, Float32Array>();
  for (const [name, t] of namedParameters(grads)) g.set(name, (await be.download(t)) as Float32Array);
  const merged = allocMerged(be, cfg, params, cancellingAdapter(be, cfg).adapter);
  const fused = await computeLogits(be, cfg, { params: merged.params, lora: null, fused: merged.fused }, batch);
  return { logprobs: r.logprobs, entropy: r.entropy, grads: g, fused, counts: be.dispatchesByProgram() };
}

describe('activations split by rows under a small binding limit', () => {
  it('the pass-row limit counts the widest activation a kernel reads whole', () => {
    expect(widestBoundRowBytes(cfg)).toBe(4 * (cfg.numHeads + 2 * cfg.numKvHeads) * cfg.headDim);
    expect(passRowLimit(cfg, 8192)).toBe(64);
    expect(passRowLimit(cfg, Infinity)).toBe(Infinity);
  });

  it('forward, backward and the fused forward match the unsplit run', async () => {
    // 8 KiB: [48, 48] f32 (9,216 bytes) in 2 buffers (42 + 6 rows), [48, 96] in 3 (21 + 21 + 6), while
    // [48, 32] (6,144 bytes) and the merged [2F, D] weight (6,144 bytes) stay whole
    const split = backend(8192);
    const whole = backend();
    const a = await forwardBackward(split);
    const b = await forwardBackward(whole);
    // one dispatch per piece: 2 per layer (swiglu, swigluBackward), 3 row spans per layer (swigluPacked)
    expect(count(a.counts, 'swiglu:') / count(b.counts, 'swiglu:')).toBe(2);
    expect(count(a.counts, 'swigluBackward')).toBe(2 * cfg.numLayers);
    expect(count(a.counts, 'swigluPacked')).toBe(3 * cfg.numLayers);
    expect(count(b.counts, 'swigluPacked')).toBe(cfg.numLayers);
    expect(relMaxErr(a.logprobs, b.logprobs)).toBeLessThan(1e-6);
    expect(relMaxErr(a.entropy, b.entropy)).toBeLessThan(1e-6);
    expect(relMaxErr(a.fused, b.fused)).toBeLessThan(1e-6);
    for (const [name, g] of b.grads) expect(relMaxErr(a.grads.get(name)!, g), name).toBeLessThan(1e-5);
    split.destroy();
    whole.destroy();
  });

  it('a policy caps its scoring, training and prefill passes so each fits: same generations, scores and steps', async () => {
    const run = async (binding?: number) => {
      const be = backend(binding);
      const policy = createEnginePolicy({
        backend: be,
        config: cfg,
        weights,
        decoder: { decode: (ids) => ids.join(' ') },
        training: { mode: 'lora', adapters: ['a'], rank: 2, alpha: 4, targets: ['q_proj', 'v_proj', 'up_proj'] },
        // f32 weights on every adapter: the comparison is of the pass split, not of f16 rounding
        baseDtype: 'f32',
        seed: 1,
        optimizer: {
          lr: 5e-2,
          beta1: 0.9,
          beta2: 0.999,
          eps: 1e-8,
          weightDecay: 0,
          gradClip: 1,
          schedule: { kind: 'constant' },
        },
      });
      const prompts = [
        [1, 2, 3],
        [4, 5],
        [9, 8, 7, 6, 5],
      ];
      const out = await policy.generate(prompts.map(gen), { temperature: 0, topP: 1, topK: 0, seed: 0 });
      const reqs = out.map((g, i) => {
        const tokens = [...prompts[i], ...g.tokens];
        return { tokens, positions: Array.from({ length: tokens.length - 1 }, (_, p) => p + 1), adapter: 'a' };
      });
      await policy.accumulateGradients(
        reqs.map((r, i) => ({ ...r, coef: Float32Array.from(r.positions, (_, p) => Math.cos(p + i)) })),
      );
      await policy.optimizerStep('a');
      const after = await policy.score(reqs);
      policy.dispose();
      be.destroy();
      return { tokens: out.map((g) => g.tokens), after: after.flatMap((s) => [...s.logprobs]) };
    };
    // 1,536 bytes: 12 rows per pass, while one pass over the 3 sequences of up to 12 tokens needs 36
    expect(passRowLimit(cfg, 1536)).toBe(12);
    const capped = await run(1536);
    const free = await run();
    expect(capped.tokens).toEqual(free.tokens);
    expect(relMaxErr(capped.after, free.after)).toBeLessThan(1e-5);
  });
});
