// The model shapes the GPU benchmarks run (bench/gpu-plan.ts counts, bench/gpu-real.ts times) with random weights:
// Qwen2.5-0.5B-Instruct and Qwen2.5-1.5B-Instruct as their config.json describes them, and a quick random-weight
// generator, so a GPU machine needs no download and no Python.
import type { ModelConfig, ModelWeights } from '../src/engine/model/config.ts';
import { expectedParameterShapes } from '../src/engine/model/params.ts';

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

/** Random weights of the right shapes, quickly (xorshift uniform, scaled like N(0, 1/fan_in)). */
export function randomWeights(cfg: ModelConfig, seed: number): ModelWeights {
  let s = seed >>> 0 || 1;
  const weights: ModelWeights = new Map();
  for (const [name, shape] of expectedParameterShapes(cfg)) {
    const n = shape.reduce((x, y) => x * y, 1);
    const data = new Float32Array(n);
    const isNorm = name.endsWith('norm.weight');
    const scale = isNorm ? 0.1 : name.endsWith('.bias') ? 0.1 : shape.length === 2 ? Math.sqrt(3 / shape[1]) : 1;
    for (let i = 0; i < n; i++) {
      s ^= s << 13;
      s >>>= 0;
      s ^= s >>> 17;
      s ^= s << 5;
      s >>>= 0;
      data[i] = (isNorm ? 1 : 0) + scale * ((s / 4294967296) * 2 - 1);
    }
    weights.set(name, { shape: [...shape], data });
  }
  return weights;
}
