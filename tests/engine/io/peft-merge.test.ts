// A LoRA adapter merged into the base weights on the host scores exactly like the base with the adapter applied
// (the engine's LoRA path), so `rema sft`'s merged model folder is the fine-tuned model.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { createEnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import { parsePeftAdapter } from '../../../src/engine/io/peft.ts';
import { mergePeftIntoWeights } from '../../../src/engine/io/peft-merge.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';

const decoder = { decode: (ids: readonly number[]) => ids.join(' ') };
const gap = (a: Float32Array, b: Float32Array) => Math.max(...a.map((x, i) => Math.abs(x - b[i])));

describe('mergePeftIntoWeights', () => {
  it('gives the same log-probs as base + adapter, for every target', async () => {
    const config = tinyConfig({ vocabSize: 48, maxPositionEmbeddings: 64 });
    const weights = randomWeights(config, 3);
    const optimizer = {
      lr: 5e-2,
      beta1: 0.9,
      beta2: 0.999,
      eps: 1e-8,
      weightDecay: 0,
      gradClip: 1,
      schedule: { kind: 'constant' as const },
    };
    const policy = createEnginePolicy({
      backend: new CpuBackend(),
      config,
      weights,
      decoder,
      training: {
        mode: 'lora',
        adapters: ['shared'],
        rank: 4,
        alpha: 8,
        targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'],
      },
      optimizer,
      seed: 1,
    });
    // a few steps so that B (zero at initialisation) is not zero
    const tokens = Array.from({ length: 20 }, (_, i) => (i * 7 + 3) % 48);
    const positions = Array.from({ length: 19 }, (_, i) => i + 1);
    for (let s = 0; s < 3; s++) {
      policy.zeroGrad('shared');
      await policy.accumulateGradients([
        { tokens, positions, adapter: 'shared', coef: new Float32Array(19).fill(-1 / 19) },
      ]);
      await policy.optimizerStep('shared');
    }
    const [withAdapter] = await policy.score([{ tokens, positions, adapter: 'shared' }]);
    const [base] = await policy.score([{ tokens, positions, adapter: null }]);
    const merged = mergePeftIntoWeights(weights, parsePeftAdapter(await policy.saveAdapter('shared'), config));
    const plain = createEnginePolicy({
      backend: new CpuBackend(),
      config,
      weights: merged,
      decoder,
      training: { mode: 'full', adapters: ['full'] },
      optimizer,
      seed: 1,
    });
    const [fromMerged] = await plain.score([{ tokens, positions, adapter: null }]);
    expect(gap(withAdapter.logprobs, base.logprobs)).toBeGreaterThan(1e-3);
    expect(gap(fromMerged.logprobs, withAdapter.logprobs)).toBeLessThan(1e-5);
    // the base map is left as it was
    expect(merged.get('model.layers.0.self_attn.q_proj.weight')!.data).not.toBe(
      weights.get('model.layers.0.self_attn.q_proj.weight')!.data,
    );
    expect(merged.get('model.embed_tokens.weight')!.data).toBe(weights.get('model.embed_tokens.weight')!.data);
  });
});
