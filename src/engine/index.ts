// Public surface of the engine: what rl/, app/ and cli/ import. Backends are constructed by the caller
// (app/ or cli/ acquire devices); everything else is reached from here.
export type { Backend, BackendLimits, DType, HostArray, Ledger, Tensor } from './backend.ts';
export type {
  Generation, GenerationFinish, GenerateRequest, GradientRequest, OptimizerStepResult, Policy, SamplingParams,
  ScoreRequest, ScoreResult, TokenDecoder,
} from './policy.ts';
export type { Architecture, ModelConfig, ModelWeights, NamedTensor } from './model/config.ts';
export { createEnginePolicy, EnginePolicy, type EnginePolicyOptions, type OptimizerSetup, type TrainingSetup } from './engine-policy.ts';
export { learningRate, type LrSchedule } from './optim/schedule.ts';
export { AdamW, type AdamWOptions, type AdamWStepResult, type ParamSlot } from './optim/adamw.ts';
export { argmax, logSoftmaxAt, sampleToken } from './sampling.ts';
export { LORA_TARGETS, normalizeLoraTargets, type LoraTarget } from './model/lora.ts';
export { expectedParameterShapes } from './model/params.ts';
export { packSequences, type SequenceBatch, type SequenceInput } from './model/batch.ts';
export { computeLogits, runSequences, type ActiveWeights } from './model/decoder.ts';
export { CpuBackend, type CpuBackendOptions } from './backends/cpu.ts';
export { loadHfCheckpoint, serializeModelWeights, deserializeModelWeights, type HfCheckpoint } from './io/hf-model.ts';
export { parseHfConfig } from './io/hf-config.ts';
export { parseSafetensors, writeSafetensors } from './io/safetensors.ts';
export { buildPeftAdapter, parsePeftAdapter } from './io/peft.ts';
