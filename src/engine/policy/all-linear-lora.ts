// A LoRA policy on every linear layer: one adapter 'a' of rank 8 (alpha 16) on q, k, v, o, gate, up and down, AdamW
// (β 0.9 / 0.999, eps 1e-8, no weight decay, clip 1, constant schedule) at a given learning rate. One definition for
// the GPU self-test's decode probe (gpu-check/speed-probe.ts) and the engine benchmarks (bench/lora-bench-policy.ts),
// so both time the training setup the playground's LoRA presets use.
import type { ModelConfig, ModelWeights } from '../model/config.ts';
import { EnginePolicy, type EnginePolicyOptions, type OptimizerSetup } from './engine-policy.ts';

export function allLinearLoraPolicy(
  opts: Pick<EnginePolicyOptions, 'backend' | 'decoder'> & { config: ModelConfig; weights: ModelWeights } & Partial<
      Omit<EnginePolicyOptions, 'backend' | 'decoder' | 'config' | 'weights' | 'optimizer'>
    >,
  optimizer: Partial<OptimizerSetup> & Pick<OptimizerSetup, 'lr'>,
): EnginePolicy {
  return new EnginePolicy({
    seed: 1,
    training: {
      mode: 'lora',
      adapters: ['a'],
      rank: 8,
      alpha: 16,
      targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'],
    },
    optimizer: {
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
