// The engine Policy end to end on the CPU backend with a tiny random model: seeded, batch-independent sampling,
// stop rules, scores that match generation log-probs, reference = adapters off, training lowers an SFT loss
// (LoRA and full fine-tuning), and adapter / optimiser state round-trips.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import {
  createEnginePolicy,
  type EnginePolicyOptions,
  type TrainingSetup,
} from '../../../src/engine/policy/engine-policy.ts';
import type { GenerateRequest, SamplingParams, TokenDecoder } from '../../../src/engine/policy/policy.ts';
import { parsePeftAdapter } from '../../../src/engine/io/peft.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';

const cfg = tinyConfig({ vocabSize: 30 });
const weights = randomWeights(cfg, 21);
/** token id -> one letter, so stop strings can be tested */
const letters: TokenDecoder = { decode: (ids) => ids.map((i) => String.fromCharCode(97 + (i % 26))).join('') };

function makePolicy(training: TrainingSetup, lr = 1e-2): ReturnType<typeof createEnginePolicy> {
  return createEnginePolicy(baseOptions(training, lr));
}

function baseOptions(training: TrainingSetup, lr = 1e-2): EnginePolicyOptions {
  return {
    backend: new CpuBackend(),
    config: cfg,
    weights,
    decoder: letters,
    training,
    optimizer: { lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, gradClip: 1, schedule: { kind: 'constant' } },
    seed: 1,
  };
}

const lora: TrainingSetup = {
  mode: 'lora',
  adapters: ['meta', 'reasoning'],
  rank: 4,
  alpha: 8,
  targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'],
};
const sample: SamplingParams = { temperature: 1, topP: 0.9, topK: 10, seed: 42 };

function req(prompt: number[], extra: Partial<GenerateRequest> = {}): GenerateRequest {
  return { prompt, adapter: 'meta', maxNewTokens: 8, stopStrings: [], stopTokenIds: [], ...extra };
}

describe('EnginePolicy generation', () => {
  it('is reproducible for a seed and independent of the rest of the batch', async () => {
    const policy = makePolicy(lora);
    const batch = [req([1, 2, 3]), req([4, 5]), req([1, 2, 3]), req([7, 8, 9, 10])];
    const a = await policy.generate(batch, sample);
    const b = await policy.generate(batch, sample);
    expect(b.map((g) => g.tokens)).toEqual(a.map((g) => g.tokens));
    // same prompt, different stream index -> (almost surely) different samples
    expect(a[0].tokens).not.toEqual(a[2].tokens);
    // request 0 decoded alone gives the same tokens as inside the batch (stream = index 0 in both)
    const alone = await policy.generate([batch[0]], sample);
    expect(alone[0].tokens).toEqual(a[0].tokens);
    const other = await policy.generate(batch, { ...sample, seed: 43 });
    expect(other.map((g) => g.tokens)).not.toEqual(a.map((g) => g.tokens));
  });

  it('returns log-probs that score() reproduces, and honours stop ids, stop strings and max tokens', async () => {
    const policy = makePolicy(lora);
    const greedy: SamplingParams = { temperature: 0, topP: 1, topK: 0, seed: 0 };
    const [free] = await policy.generate([req([3, 1, 4], { maxNewTokens: 10 })], greedy);
    expect(free.tokens.length).toBe(10);
    expect(free.finish).toBe('length');
    expect(free.text).toBe(letters.decode(free.tokens));
    const tokens = [3, 1, 4, ...free.tokens];
    const [scored] = await policy.score([{ tokens, positions: free.tokens.map((_, i) => 3 + i), adapter: 'meta' }]);
    for (let i = 0; i < free.tokens.length; i++)
      expect(Math.abs(scored.logprobs[i] - free.logprobs[i])).toBeLessThan(1e-4);

    // stop at the 4th greedy token's id: it is not returned
    const stopId = free.tokens[3];
    const firstStop = free.tokens.indexOf(stopId);
    const [byId] = await policy.generate([req([3, 1, 4], { maxNewTokens: 10, stopTokenIds: [stopId] })], greedy);
    expect(byId.finish).toBe('stop_token');
    expect(byId.tokens).toEqual(free.tokens.slice(0, firstStop));
    // stop string made of generated tokens 2..3: kept in the text
    const stop = letters.decode(free.tokens.slice(2, 4));
    const [byStr] = await policy.generate([req([3, 1, 4], { maxNewTokens: 10, stopStrings: [stop] })], greedy);
    expect(byStr.finish).toBe('stop_string');
    expect(byStr.text.endsWith(stop)).toBe(true);
    expect(byStr.tokens.length).toBeLessThanOrEqual(4);
  });
});

describe('EnginePolicy training', () => {
  const sft = { tokens: [2, 9, 4, 11, 6, 13, 8, 15, 10], positions: [1, 2, 3, 4, 5, 6, 7, 8] };
  const n = sft.positions.length;

  async function sftLoss(policy: ReturnType<typeof makePolicy>, adapter: string): Promise<number> {
    const [r] = await policy.score([{ ...sft, adapter }]);
    return -r.logprobs.reduce((s, x) => s + x, 0) / n;
  }

  it.each([
    ['lora', lora],
    ['full', { mode: 'full', adapters: ['full'] } as TrainingSetup],
  ])('AdamW steps on Σ coef·logp with coef = -1/N lower the SFT loss (%s)', async (_name, training) => {
    const policy = makePolicy(training, 3e-2);
    const adapter = training.adapters[0];
    const before = await sftLoss(policy, adapter);
    // the fresh adapter is the base model
    const [ref] = await policy.score([{ ...sft, adapter }], { reference: true });
    expect(-ref.logprobs.reduce((s, x) => s + x, 0) / n).toBeCloseTo(before, 5);
    for (let step = 0; step < 8; step++) {
      policy.zeroGrad(adapter);
      await policy.accumulateGradients([{ ...sft, adapter, coef: new Float32Array(n).fill(-1 / n) }]);
      await policy.optimizerStep(adapter);
    }
    const stats = await policy.readOptimizerStats(adapter);
    expect(stats).toHaveLength(8);
    for (const r of stats) {
      expect(r.gradNorm).toBeGreaterThan(0);
      expect(r.lr).toBeCloseTo(3e-2, 10);
      expect(r.applied).toBe(true);
    }
    expect(await policy.readOptimizerStats(adapter)).toEqual([]);
    const lastNorm = stats[7].gradNorm;
    const after = await sftLoss(policy, adapter);
    expect(after).toBeLessThan(before - 0.3);
    expect(Number.isFinite(lastNorm)).toBe(true);
    // the reference policy did not move
    const [refAfter] = await policy.score([{ ...sft, adapter }], { reference: true });
    expect(Array.from(refAfter.logprobs)).toEqual(Array.from(ref.logprobs));
  });

  it('keeps adapters independent and round-trips adapter and optimiser state', async () => {
    const policy = makePolicy(lora);
    for (let step = 0; step < 3; step++) {
      policy.zeroGrad('meta');
      await policy.accumulateGradients([{ ...sft, adapter: 'meta', coef: new Float32Array(n).fill(-1 / n) }]);
      await policy.optimizerStep('meta');
    }
    const [meta] = await policy.score([{ ...sft, adapter: 'meta' }]);
    const [reasoning] = await policy.score([{ ...sft, adapter: 'reasoning' }]);
    const [base] = await policy.score([{ ...sft, adapter: null }]);
    // the untrained adapter (B = 0) scores as the base, up to rounding: it runs the merged inference copy, whose
    // residual adds are matmul epilogues (on the CPU one rounding of the f64 sum, where the base path rounds the
    // matmul and then the add), so the two may differ in the last bit
    reasoning.logprobs.forEach((x, i) =>
      expect(Math.abs(x - base.logprobs[i])).toBeLessThanOrEqual(4 * 2 ** -24 * Math.abs(base.logprobs[i])),
    );
    expect(Array.from(meta.logprobs)).not.toEqual(Array.from(base.logprobs));

    const files = await policy.saveAdapter('meta');
    expect(Object.keys(files).toSorted()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
    const config = JSON.parse(new TextDecoder().decode(files['adapter_config.json']));
    expect(config).toMatchObject({ peft_type: 'LORA', r: 4, lora_alpha: 8 });
    const state = await policy.saveOptimizerState('meta');

    const restored = makePolicy(lora);
    await restored.loadAdapter('meta', files);
    await restored.loadOptimizerState('meta', state);
    const [again] = await restored.score([{ ...sft, adapter: 'meta' }]);
    expect(Array.from(again.logprobs)).toEqual(Array.from(meta.logprobs));
    expect(restored.optimizerSteps('meta')).toBe(3);
    // one more identical step on both gives identical weights
    for (const p of [policy, restored]) {
      p.zeroGrad('meta');
      await p.accumulateGradients([{ ...sft, adapter: 'meta', coef: new Float32Array(n).fill(-1 / n) }]);
      await p.optimizerStep('meta');
    }
    const [x] = await policy.score([{ ...sft, adapter: 'meta' }]);
    const [y] = await restored.score([{ ...sft, adapter: 'meta' }]);
    expect(Array.from(y.logprobs)).toEqual(Array.from(x.logprobs));
  });

  it('saves a PEFT adapter whose merge W + (alpha/r)·B·A reproduces the adapted model', async () => {
    const policy = makePolicy(lora);
    for (let step = 0; step < 3; step++) {
      policy.zeroGrad('reasoning');
      await policy.accumulateGradients([{ ...sft, adapter: 'reasoning', coef: new Float32Array(n).fill(-1 / n) }]);
      await policy.optimizerStep('reasoning');
    }
    const [adapted] = await policy.score([{ ...sft, adapter: 'reasoning' }]);
    const peft = parsePeftAdapter(await policy.saveAdapter('reasoning'), cfg);
    const scale = peft.config.alpha / peft.config.rank;
    const merged = new Map([...weights].map(([k, v]) => [k, { shape: v.shape, data: v.data.slice() }]));
    for (const [path, { a, b }] of peft.modules) {
      const W = merged.get(`${path}.weight`)!;
      const [nOut, nIn] = W.shape;
      const r = peft.config.rank;
      for (let o = 0; o < nOut; o++)
        for (let i = 0; i < nIn; i++) {
          let acc = 0;
          for (let k = 0; k < r; k++) acc += b[o * r + k] * a[k * nIn + i];
          W.data[o * nIn + i] += scale * acc;
        }
    }
    const plain = createEnginePolicy({ ...baseOptions(lora), weights: merged });
    const [viaMerge] = await plain.score([{ ...sft, adapter: null }]);
    for (let i = 0; i < n; i++) expect(Math.abs(viaMerge.logprobs[i] - adapted.logprobs[i])).toBeLessThan(1e-4);
  });

  it('full fine-tuning saves model.safetensors that loads back into another policy', async () => {
    const full: TrainingSetup = { mode: 'full', adapters: ['meta', 'reasoning'] };
    const policy = makePolicy(full);
    policy.zeroGrad('meta');
    await policy.accumulateGradients([{ ...sft, adapter: 'meta', coef: new Float32Array(n).fill(-1 / n) }]);
    await policy.optimizerStep('meta');
    const [meta] = await policy.score([{ ...sft, adapter: 'meta' }]);
    const [other] = await policy.score([{ ...sft, adapter: 'reasoning' }]);
    expect(Array.from(other.logprobs)).not.toEqual(Array.from(meta.logprobs));
    const files = await policy.saveAdapter('meta');
    expect(Object.keys(files)).toEqual(['model.safetensors']);
    const restored = makePolicy(full);
    await restored.loadAdapter('reasoning', files);
    const [again] = await restored.score([{ ...sft, adapter: 'reasoning' }]);
    expect(Array.from(again.logprobs)).toEqual(Array.from(meta.logprobs));
    await expect(restored.loadAdapter('meta', {})).rejects.toThrow(/model.safetensors is missing/);
  });

  it('generation and scoring with the LoRA merged into the weights match the unmerged adapter after training', async () => {
    const merged = makePolicy(lora);
    const unmerged = createEnginePolicy({ ...baseOptions(lora), mergeLoraForInference: false });
    const greedy: SamplingParams = { temperature: 0, topP: 1, topK: 0, seed: 0 };
    for (const p of [merged, unmerged]) {
      for (let step = 0; step < 3; step++) {
        p.zeroGrad('meta');
        const [r] = await p.accumulateGradients([{ ...sft, adapter: 'meta', coef: new Float32Array(n).fill(-1 / n) }]);
        expect(r.logprobs.length).toBe(n);
        await p.optimizerStep('meta');
      }
    }
    const prompt = { prompt: [2, 9, 4], adapter: 'meta', maxNewTokens: 6, stopStrings: [], stopTokenIds: [] };
    const [a] = await merged.generate([prompt], greedy);
    const [b] = await unmerged.generate([prompt], greedy);
    expect(a.tokens).toEqual(b.tokens);
    a.logprobs.forEach((x, i) => expect(Math.abs(x - b.logprobs[i])).toBeLessThan(1e-4));
    // after one more step the merged copy is refreshed: scores follow the adapter
    for (const p of [merged, unmerged]) {
      p.zeroGrad('meta');
      await p.accumulateGradients([{ ...sft, adapter: 'meta', coef: new Float32Array(n).fill(-1 / n) }]);
      await p.optimizerStep('meta');
    }
    const [x] = await merged.score([{ ...sft, adapter: 'meta' }]);
    const [y] = await unmerged.score([{ ...sft, adapter: 'meta' }]);
    const [z] = await merged.accumulateGradients([{ ...sft, adapter: 'meta', coef: new Float32Array(n) }]);
    for (let i = 0; i < n; i++) {
      expect(Math.abs(x.logprobs[i] - y.logprobs[i])).toBeLessThan(1e-4);
      expect(Math.abs(x.logprobs[i] - z.logprobs[i])).toBeLessThan(1e-4);
    }
  });

  it('splitting requests into chunks (maxBatchTokens) and mixing adapters in one call change nothing', async () => {
    const reqs = [
      { tokens: [1, 2, 3, 4, 5, 6], positions: [2, 3, 5], adapter: 'meta' },
      { tokens: [7, 8, 9], positions: [1, 2], adapter: 'reasoning' },
      { tokens: [3, 3, 4, 4, 5, 5, 6, 6, 7], positions: [4, 8], adapter: 'meta' },
      { tokens: [9, 1], positions: [1], adapter: null },
    ];
    const whole = makePolicy(lora);
    const chunked = createEnginePolicy({ ...baseOptions(lora), maxBatchTokens: 8 });
    const a = await whole.score(reqs);
    const b = await chunked.score(reqs);
    const single = await Promise.all(reqs.map(async (r) => (await whole.score([r]))[0]));
    reqs.forEach((r, i) => {
      expect(a[i].logprobs.length).toBe(r.positions.length);
      for (let j = 0; j < r.positions.length; j++) {
        expect(Math.abs(a[i].logprobs[j] - b[i].logprobs[j])).toBeLessThan(1e-5);
        expect(Math.abs(a[i].logprobs[j] - single[i].logprobs[j])).toBeLessThan(1e-5);
        expect(Math.abs(a[i].entropy[j] - single[i].entropy[j])).toBeLessThan(1e-5);
      }
    });
  });

  it('frees every tensor it allocated: per call, and all of them on dispose', async () => {
    for (const training of [lora, { mode: 'full', adapters: ['a', 'b'] } as TrainingSetup]) {
      const opts = baseOptions(training);
      const be = opts.backend;
      const policy = createEnginePolicy(opts);
      const adapter = training.adapters[0];
      await policy.generate([req([1, 2], { adapter }), req([3], { adapter })], sample);
      await policy.score([{ ...sft, adapter }], { reference: true });
      const live = be.ledger().liveTensors;
      await policy.accumulateGradients([{ ...sft, adapter, coef: new Float32Array(n).fill(0.1) }]);
      await policy.optimizerStep(adapter);
      await policy.generate([req([1, 2], { adapter })], sample);
      await policy.saveAdapter(adapter);
      expect(be.ledger().liveTensors).toBe(live);
      policy.dispose();
      expect(be.ledger()).toMatchObject({ liveTensors: 0, liveBytes: 0 });
    }
  });

  it('rejects bad requests with clear errors', async () => {
    const policy = makePolicy(lora);
    await expect(policy.score([{ tokens: [1, 2, 99], positions: [1, 2], adapter: 'meta' }])).rejects.toThrow(
      /token 2: id 99 is outside the vocabulary/,
    );
    await expect(policy.score([{ tokens: [1, 2, 3], positions: [2, 1], adapter: 'meta' }])).rejects.toThrow(
      /ascending/,
    );
    await expect(policy.accumulateGradients([{ ...sft, adapter: null, coef: new Float32Array(n) }])).rejects.toThrow(
      /frozen base/,
    );
    await expect(policy.optimizerStep('nope')).rejects.toThrow(/unknown adapter "nope"/);
    expect(() => createEnginePolicy({ ...baseOptions(lora), baseDtype: 'f16' })).toThrow(
      /does not support f16 weights/,
    );
    expect(() => createEnginePolicy({ ...baseOptions({ mode: 'full', adapters: ['a', 'a'] }) })).toThrow(
      /duplicate adapter names/,
    );
    const bad = baseOptions(lora);
    expect(() => createEnginePolicy({ ...bad, optimizer: { ...bad.optimizer, lr: -1 } })).toThrow(
      /optimizer: lr must be >= 0/,
    );
    expect(() => createEnginePolicy({ ...bad, training: { ...lora, targets: ['qkv'] } as TrainingSetup })).toThrow(
      /LoRA target "qkv"/,
    );
    expect(bad.backend.ledger().liveTensors).toBe(0);
  });
});
