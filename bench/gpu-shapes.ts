// The model shapes the GPU benchmarks run (bench/gpu-plan.ts counts, bench/gpu-real.ts times) with random weights:
// Qwen2.5-0.5B-Instruct and Qwen2.5-1.5B-Instruct as their config.json describes them, and a quick random-weight
// generator (the GPU self-test's: engine/gpu-check/random-weights.ts), so a GPU machine needs no download and no Python.
import type { ModelConfig } from '../src/engine/model/config.ts';

export { randomWeights } from '../src/engine/gpu-check/random-weights.ts';

export const QWEN25_05B: ModelConfig = {
  architecture: 'qwen2',
  hiddenSize: 896,
  intermediateSize: 4864,
  numLayers: 24,
  numHeads: 14,
  numKvHeads: 2,
  headDim: 64,
  vocabSize: 151936,
  rmsNormEps: 1e-6,
  ropeTheta: 1000000,
  maxPositionEmbeddings: 32768,
  tieWordEmbeddings: true,
  attentionBias: true,
  bosTokenId: null,
  eosTokenIds: [151645, 151643],
};

export const QWEN25_15B: ModelConfig = {
  ...QWEN25_05B,
  hiddenSize: 1536,
  intermediateSize: 8960,
  numLayers: 28,
  numHeads: 12,
  numKvHeads: 2,
  headDim: 128,
};
