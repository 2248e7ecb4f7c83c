// The planner's binding check (engine/plan/bindings.ts): the tensors kernels bind whole, by hand for Qwen2.5-1.5B
// at the spec's 128 MiB, and against the engine itself: a tiny model generates at a binding limit equal to the
// plan's largest tensor, and 4 bytes below it that tensor is split and the engine refuses, as the plan says.
import { describe, expect, it } from 'vitest';
import { findCatalogModel } from '../../../src/data/models/catalog.ts';
import { WebGpuBackend } from '../../../src/engine/backends/webgpu.ts';
import { parseHfConfig } from '../../../src/engine/io/hf-config.ts';
import { DEFAULT_BINDING_BYTES, planBindings } from '../../../src/engine/plan/bindings.ts';
import type { MemoryShape } from '../../../src/engine/plan/memory.ts';
import { createEnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import { getTestDevice } from '../../helpers/webgpu.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';

const lora = { mode: 'lora', adapters: 1, rank: 8, targets: ['q_proj', 'v_proj'] } as const;

/** A LoRA step: `sequences` decoded with prompts of `promptTokens` and 1,536 new tokens, one gradient row. */
const qwenShape = (sequences: number, promptTokens: number, tokens: number): MemoryShape => ({
  weightDtype: 'f32',
  training: lora,
  decode: { sequences, uniquePrompts: sequences, promptTokens, newTokens: 1536 },
  gradient: { sequences: 1, tokens, selected: tokens - 1 },
});

describe('planBindings', () => {
  it('Qwen2.5-1.5B at 128 MiB: an 8,192-token row fits, the KV cache of 64 sequences of 5,632 tokens does not', () => {
    const cfg = parseHfConfig(findCatalogModel('qwen2.5-1.5b-instruct')!.config, 'catalog');
    // (H + 2 Hkv)·Dh = (12 + 4)·128 = 2,048 floats per token: 8 KiB, so 16,384 tokens per 128 MiB
    const ok = planBindings(cfg, qwenShape(64, 512, 8192));
    expect(ok.limit).toBe(DEFAULT_BINDING_BYTES);
    expect(ok.breaks).toEqual([]);
    // KV cache: 64 × 2,048 × 2 × 128 × 4 bytes = 128 MiB exactly
    expect(ok.largest).toMatchObject({ tensor: 'rollout KV cache [64, 2048, 2, 128]', bytes: 128 * 1024 ** 2 });
    const bad = planBindings(cfg, qwenShape(64, 4096, 16385));
    expect(bad.breaks.map((b) => [b.tensor, b.bytes, b.fitsUpTo])).toEqual([
      ['rollout KV cache [64, 5632, 2, 128]', 64 * 5632 * 2 * 128 * 4, 23],
      ["one sequence's attention activations [16385, 2048]", 16385 * 8192, 16384],
    ]);
    // an f16 KV cache halves it: [64, 3584, 2, 128] takes 235 MB in f32, 117 MB in f16
    expect(planBindings(cfg, qwenShape(64, 2048, 2048)).breaks).toHaveLength(1);
    expect(planBindings(cfg, { ...qwenShape(64, 2048, 2048), kvCacheDtype: 'f16' }).breaks).toEqual([]);
  });

  it('the engine needs exactly the largest binding the plan names', async () => {
    const cfg = tinyConfig({ vocabSize: 40 });
    const weights = randomWeights(cfg, 2);
    const prompts = [
      [1, 2, 3, 4, 5],
      [6, 7],
      [8, 9, 10],
    ];
    const shape: MemoryShape = {
      weightDtype: 'f32',
      training: lora,
      decode: { sequences: 3, uniquePrompts: 3, promptTokens: 5, newTokens: 7 },
      gradient: { sequences: 0, tokens: 0, selected: 0 },
    };
    const plan = planBindings(cfg, shape, 1 << 20);
    // [3, 12, 2, 4] f32: 1,152 bytes, above the attention rows [5, 32] (640) and the logits [3, 40] (480)
    expect(plan.largest).toMatchObject({ tensor: 'rollout KV cache [3, 12, 2, 4]', bytes: 1152 });
    expect(planBindings(cfg, shape, 1148).breaks.map((b) => b.tensor)).toEqual(['rollout KV cache [3, 12, 2, 4]']);
    const dawn = await getTestDevice();
    const generate = async (binding: number) => {
      const backend = WebGpuBackend.create(dawn.device, {
        gpuInfo: dawn.gpuInfo,
        maxStorageBufferBindingSize: binding,
      });
      const policy = createEnginePolicy({
        backend,
        config: cfg,
        weights,
        decoder: { decode: (ids) => ids.join(' ') },
        training: { mode: 'lora', adapters: ['a'], rank: 2, alpha: 4, targets: ['q_proj'] },
        kvCacheDtype: 'f32',
        seed: 1,
        optimizer: {
          lr: 1e-3,
          beta1: 0.9,
          beta2: 0.999,
          eps: 1e-8,
          weightDecay: 0,
          gradClip: 1,
          schedule: { kind: 'constant' },
        },
      });
      try {
        const out = await policy.generate(
          prompts.map((prompt) => ({ prompt, adapter: 'a', maxNewTokens: 7, stopStrings: [], stopTokenIds: [] })),
          { temperature: 0, topP: 1, topK: 0, seed: 0 },
        );
        return out.map((g) => g.tokens.length);
      } finally {
        policy.dispose();
        backend.destroy();
      }
    };
    expect(await generate(1152)).toEqual([7, 7, 7]);
    await expect(generate(1148)).rejects.toThrow(/cache\.k\.0.*split over 2 buffers.*needs it in one buffer/);
  });
});
