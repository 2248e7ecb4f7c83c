// The LoRA policy the engine benchmarks time: src/engine/policy/all-linear-lora.ts (rank 8, alpha 16, every linear
// layer of one adapter 'a') with AdamW at lr 1e-4 (each field can be changed), token ids as text. One definition, so bench/peer.ts,
// bench/threads.ts and bench/wasm-half.ts measure the same training setup.
import type { ModelConfig, ModelWeights } from '../src/engine/model/config.ts';
import { allLinearLoraPolicy } from '../src/engine/policy/all-linear-lora.ts';
import type { EnginePolicy, EnginePolicyOptions, OptimizerSetup } from '../src/engine/policy/engine-policy.ts';

export function loraBenchPolicy(
  opts: Pick<EnginePolicyOptions, 'backend'> & { config: ModelConfig; weights: ModelWeights } & Partial<
      Omit<EnginePolicyOptions, 'backend' | 'config' | 'weights' | 'optimizer'>
    >,
  optimizer: Partial<OptimizerSetup> = {},
): EnginePolicy {
  return allLinearLoraPolicy(
    { decoder: { decode: (ids: readonly number[]) => ids.join(' ') }, ...opts },
    { lr: 1e-4, ...optimizer },
  );
}
