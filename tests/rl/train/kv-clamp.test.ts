// A step whose keys or values leave the f16 range says so: the engine clamps them into the f16 KV cache
// (±65,504) and the trainer reports how many in the step's metrics (kv_cache_clamped) with a log line; a step
// with none has no such field. The real engine on the CPU backend with an f16 cache (the WebGPU cache's twin) and a
// tiny random model whose first layer's value projection is scaled far past the range.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { tinyArithProblems } from '../../../src/data/tiny-task/dataset.ts';
import { createEnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import { createTrainer, type TrainerEvent } from '../../../src/rl/trainer.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';
import { constantAdamW } from '../../helpers/adamw.ts';
import { smallConfig, tok } from '../../helpers/rl/trainer-setup.ts';

function trainer(scale: number, events: TrainerEvent[]) {
  const config = smallConfig('vrp-rl', { steps: 2 });
  const model = tinyConfig({ vocabSize: tok.vocabSize, maxPositionEmbeddings: 256 });
  const weights = randomWeights(model, 5);
  const v = weights.get('model.layers.0.self_attn.v_proj.weight')!;
  v.data = Float32Array.from(v.data as Float32Array, (x) => x * scale);
  const policy = createEnginePolicy({
    backend: new CpuBackend(),
    config: model,
    weights,
    kvCacheDtype: 'f16',
    decoder: tok,
    training: { mode: 'lora', adapters: ['shared'], rank: 2, alpha: 4, targets: ['q', 'v'] },
    optimizer: constantAdamW(config.lr),
    seed: config.seed,
  });
  return createTrainer({
    config,
    policy,
    tokenizer: tok,
    train: tinyArithProblems({ split: 'train', count: 8, seed: 1 }),
    eval: tinyArithProblems({ split: 'heldout', count: 4, seed: 1 }),
    onEvent: (e) => events.push(e),
  });
}

describe('kv_cache_clamped', () => {
  it('counts the values a step clamped into the f16 KV cache, and says so', async () => {
    const events: TrainerEvent[] = [];
    const m = (await trainer(1e6, events).step()).metrics;
    expect(m.kv_cache_clamped).toBeGreaterThan(0);
    const logs = events.filter((e) => e.type === 'log').map((e) => (e as { message: string }).message);
    expect(logs.some((l) => l.startsWith(`${m.kv_cache_clamped} key / value entries past ±65,504`))).toBe(true);
  });

  it('is absent from a step that stayed in range', async () => {
    const m = (await trainer(1, []).step()).metrics;
    expect('kv_cache_clamped' in m).toBe(false);
  });
});
