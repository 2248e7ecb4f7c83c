// Test helper: a trainer on the REAL engine (createEnginePolicy on the CPU backend) with a tiny random-weight
// Llama whose vocabulary is the embedded model's tokenizer, and tiny-task problems.
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { createEnginePolicy, type EnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import { tinyArithProblems } from '../../../src/data/tiny-task/dataset.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import type { ExperimentConfig } from '../../../src/rl/config.ts';
import { createTrainer, type Trainer, type TrainerEvent } from '../../../src/rl/trainer.ts';
import { randomWeights, tinyConfig } from '../engine/model-random.ts';
import { tinyTokenizer } from './tiny-tokenizer.ts';
import { constantAdamW } from '../adamw.ts';

export const tok = tinyTokenizer();

/** A small, fast variant of a preset: 2 problems x group 2, short turns. */
export function smallConfig(preset: string, over: Partial<ExperimentConfig> = {}): ExperimentConfig {
  return {
    ...getPreset(preset),
    problemsPerStep: 2,
    groupSize: 2,
    maxTurns: preset === 'rema-multiturn' || preset.startsWith('ablation') || preset === 'tiny-default' ? 2 : 1,
    maxTokensPerTurn: 6,
    maxPromptTokens: 200,
    evalSize: 2,
    evalEvery: 0,
    lr: 1e-2,
    ...over,
  };
}

export function makePolicy(config: ExperimentConfig): EnginePolicy {
  const model = tinyConfig({ vocabSize: tok.vocabSize, maxPositionEmbeddings: 256 });
  const separate = config.paramMode === 'separate' && (config.mode === 'multi-turn' || config.mode === 'single-turn');
  return createEnginePolicy({
    backend: new CpuBackend(),
    config: model,
    weights: randomWeights(model, 5),
    decoder: tok,
    training:
      config.finetune === 'full'
        ? { mode: 'full', adapters: ['full'] }
        : {
            mode: 'lora',
            adapters: separate ? ['meta', 'reasoning'] : ['shared'],
            rank: 2,
            alpha: 4,
            targets: ['q', 'v'],
          },
    optimizer: constantAdamW(config.lr),
    seed: config.seed,
  });
}

export function makeTrainer(
  config: ExperimentConfig,
  events?: TrainerEvent[],
): { trainer: Trainer; policy: EnginePolicy } {
  const policy = makePolicy(config);
  const trainer = createTrainer({
    config,
    policy,
    tokenizer: tok,
    train: tinyArithProblems({ split: 'train', count: 8, seed: 1 }),
    eval: tinyArithProblems({ split: 'heldout', count: 4, seed: 1 }),
    ...(events ? { onEvent: (e: TrainerEvent) => events.push(e) } : {}),
  });
  return { trainer, policy };
}
