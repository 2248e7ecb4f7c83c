// The LoRA policy the engine benchmarks time: rank 8 (alpha 16) on every linear layer of one adapter 'a', AdamW
// at lr 1e-4 with clip 1 and a constant schedule (each field can be changed), token ids as text. One definition, so bench/peer.ts,
// bench/threads.ts and bench/wasm-half.ts measure the same training setup.
import type { ModelConfig, ModelWeights } from '../src/engine/model/config.ts';
import {
  createEnginePolicy,
  type EnginePolicy,
  type EnginePolicyOptions,
  type OptimizerSetup,
} from '../src/engine/policy/engine-policy.ts';

export function loraBenchPolicy(
  opts: Pick<EnginePolicyOptions, 'backend'> & { config: ModelConfig; weights: ModelWeights } & Partial<
      Omit<EnginePolicyOptions, 'backend' | 'config' | 'weights' | 'optimizer'>
    >,
  optimizer: Partial<OptimizerSetup> = {},
): EnginePolicy {
  return createEnginePolicy({
    decoder: { decode: (ids: readonly number[]) => ids.join(' ') },
    seed: 1,
    training: {
      mode: 'lora',
      adapters: ['a'],
      rank: 8,
      alpha: 16,
      targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'],
    },
    optimizer: {
      lr: 1e-4,
      beta1: 0.9,
      beta2: 0.999,
      eps: 1e-8,
      weightDecay: 0,
      gradClip: 1,
      schedule: { kind: 'constant' },
      ...optimizer,
    },
    ...opts,
  });
}
