// How an ExperimentConfig configures the engine's policy: which trainable adapters exist (one shared set, or one
// per agent in separate mode; LoRA or full copies) and the AdamW settings with the learning-rate schedule over
// the run's optimiser steps. Shared by the page's worker and the CLI so that both train the same thing.

import type { Backend, BackendKind } from '../engine/backend.ts';
import { DEFAULT_KEEP_KV_BYTES } from '../engine/model/kv-keep.ts';
import {
  createEnginePolicy,
  type EnginePolicy,
  type OptimizerSetup,
  type TrainingSetup,
} from '../engine/policy/engine-policy.ts';
import type { ModelConfig, HostWeights } from '../engine/model/config.ts';
import type { TokenDecoder } from '../engine/policy/policy.ts';
import type { ExperimentConfig } from './config.ts';

/** Adapter names the trainer expects for a config. */
export function adapterNames(config: ExperimentConfig): string[] {
  const twoAgent = config.mode === 'multi-turn' || config.mode === 'single-turn';
  // a frozen agent (config.frozenAgent) is another model: only the trained agent gets an adapter
  if (config.paramMode === 'separate' && twoAgent)
    return (['meta', 'reasoning'] as const).filter((r) => r !== config.frozenAgent);
  return [config.finetune === 'full' ? 'full' : 'shared'];
}

export function trainingSetup(config: ExperimentConfig): TrainingSetup {
  const adapters = adapterNames(config);
  if (config.finetune === 'full') return { mode: 'full', adapters };
  return { mode: 'lora', adapters, rank: config.loraRank, alpha: config.loraAlpha, targets: [...config.loraTargets] };
}

/** Optimiser steps one adapter takes over the run (the schedule's horizon). */
export function optimizerStepsPerAdapter(config: ExperimentConfig): number {
  return Math.max(1, config.steps * config.ppoEpochs * config.miniBatches);
}

export function optimizerSetup(config: ExperimentConfig): OptimizerSetup {
  return {
    lr: config.lr,
    beta1: config.adamBeta1,
    beta2: config.adamBeta2,
    eps: 1e-8,
    weightDecay: config.weightDecay,
    gradClip: config.gradClip,
    schedule:
      config.lrSchedule === 'cosine'
        ? { kind: 'warmup-cosine', warmupSteps: config.warmupSteps, totalSteps: optimizerStepsPerAdapter(config) }
        : { kind: 'constant', warmupSteps: config.warmupSteps },
  };
}

/** What policyForConfig needs of a loaded model. */
export interface LoadedWeights {
  backend: Backend;
  checkpoint: { config: ModelConfig; weights: HostWeights };
  decoder: TokenDecoder;
  /** written to a saved adapter's adapter_config.json */
  baseModelName?: string;
  /** seeds LoRA initialisation; default config.seed */
  seed?: number;
  /** storage of the frozen base weights (EnginePolicyOptions.baseDtype); default 'auto' (f16 for LoRA on a WebGPU
   *  device with shader-f16, else f32) */
  baseDtype?: 'auto' | 'f32' | 'f16' | 'bf16';
  /** run a prompt several rows share once (EnginePolicyOptions.sharePrefixes); default: the engine's (on CPU and WASM) */
  sharePrefixes?: boolean;
  /** keys and values kept between generate calls (EnginePolicyOptions.keepKvBytes); default: keepKvBytesFor */
  keepKvBytes?: number;
}

/** Keys and values a run keeps between generate calls: a multi-turn run's later prompts extend its earlier ones
 *  (EnginePolicyOptions.keepKvBytes), on the CPU and WASM backends (not measured on a GPU); nothing otherwise. */
export function keepKvBytesFor(config: ExperimentConfig, backend: BackendKind): number {
  return config.mode === 'multi-turn' && backend !== 'webgpu' ? DEFAULT_KEEP_KV_BYTES : 0;
}

/** The engine policy a config trains: its adapters (trainingSetup) and optimiser (optimizerSetup) over the model. */
export function policyForConfig(config: ExperimentConfig, model: LoadedWeights): EnginePolicy {
  return createEnginePolicy({
    backend: model.backend,
    config: model.checkpoint.config,
    weights: model.checkpoint.weights,
    decoder: model.decoder,
    training: trainingSetup(config),
    optimizer: optimizerSetup(config),
    seed: model.seed ?? config.seed,
    maxDecodeBatch: config.decodeBatch,
    activationBudgetBytes: config.activationBudgetMiB * 2 ** 20,
    ...(model.baseModelName !== undefined ? { baseModelName: model.baseModelName } : {}),
    ...(model.baseDtype !== undefined ? { baseDtype: model.baseDtype } : {}),
    ...(model.sharePrefixes !== undefined ? { sharePrefixes: model.sharePrefixes } : {}),
    keepKvBytes: model.keepKvBytes ?? keepKvBytesFor(config, model.backend.kind),
  });
}
