// EnginePolicy's KV-cache storage (kvCacheDtype, model/kv-cache.ts): 'auto' stores halves over an f16 base on
// WebGPU and f32 over an f32 base, 'f32' forces full precision; generation allocates its caches so, and scoring
// (the trained log-probs) never reads them: equal bit for bit whichever the cache.
import { describe, expect, it } from 'vitest';
import type { Backend, DType } from '../../../src/engine/backend.ts';
import type { ModelConfig } from '../../../src/engine/model/config.ts';
import type { KvCacheChoice } from '../../../src/engine/model/kv-cache.ts';
import { EnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import { getTestDevice, testBackend } from '../../helpers/webgpu.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';
import { constantAdamW } from '../../helpers/adamw.ts';

const cfg: ModelConfig = tinyConfig({
  architecture: 'qwen2',
  attentionBias: true,
  hiddenSize: 32,
  intermediateSize: 48,
  numHeads: 4,
  numKvHeads: 2,
  headDim: 8,
  vocabSize: 97,
});

function policy(be: Backend, baseDtype: 'auto' | 'f32', kvCacheDtype?: KvCacheChoice): EnginePolicy {
  return new EnginePolicy({
    baseDtype,
    ...(kvCacheDtype ? { kvCacheDtype } : {}),
    backend: be,
    config: cfg,
    weights: randomWeights(cfg, 4),
    decoder: { decode: (ids) => ids.join(' ') },
    training: { mode: 'lora', adapters: ['a'], rank: 4, alpha: 8, targets: ['q', 'v'] },
    optimizer: constantAdamW(1e-2),
    seed: 3,
  });
}

describe('EnginePolicy kvCacheDtype', () => {
  it("'auto' decodes through an f16 cache over the f16 base (f32 over an f32 base, or when forced); scores do not change", async () => {
    const dawn = await getTestDevice();
    const gpu = testBackend(dawn, { f16Storage: 'always' });
    // which storage generation gives its caches (observed, the allocation itself runs)
    const cacheDtypes: DType[] = [];
    const alloc = gpu.alloc.bind(gpu);
    gpu.alloc = (shape, dtype, label) => {
      if (label?.startsWith('cache.k.') || label?.startsWith('cache.v.')) cacheDtypes.push(dtype ?? 'f32');
      return alloc(shape, dtype, label);
    };
    const request = { prompt: [2, 9, 4], adapter: 'a', maxNewTokens: 5, stopStrings: [], stopTokenIds: [] };
    const sampling = { temperature: 1, topP: 1, topK: 0, seed: 7 };
    const scored = { tokens: [2, 9, 4, 11, 30, 5], positions: [3, 4, 5], adapter: 'a' };
    const runs: Array<{ kv: string; base: string; caches: DType[]; logprobs: number[]; scores: number[] }> = [];
    for (const [base, kv] of [
      ['auto', undefined],
      ['auto', 'f32'],
      ['f32', undefined],
    ] as const) {
      const p = policy(gpu, base, kv);
      cacheDtypes.length = 0;
      const gen = (await p.generate([request, request], sampling))[0];
      const scores = Array.from((await p.score([scored]))[0].logprobs);
      runs.push({
        kv: p.kvCacheDtype,
        base: p.baseDtype,
        caches: [...new Set(cacheDtypes)],
        logprobs: gen.logprobs,
        scores,
      });
      p.dispose();
    }
    expect(runs.map((r) => [r.base, r.kv, r.caches])).toEqual([
      ['f16', 'f16', ['f16']],
      ['f16', 'f32', ['f32']],
      ['f32', 'f32', ['f32']],
    ]);
    // over the same f16 base: scoring attends over its own f32 keys, so the cache's storage leaves it unchanged
    expect(runs[0].scores).toEqual(runs[1].scores);
    // the sampled tokens' log-probs come from decoding, through the cache: rounded keys move them a little
    expect(runs[0].logprobs).not.toEqual(runs[1].logprobs);
    runs[0].logprobs.forEach((x, i) => expect(Math.abs(x - runs[1].logprobs[i])).toBeLessThan(1e-2));
    gpu.destroy();
  });
});
