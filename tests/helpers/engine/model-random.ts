// Test helper: tiny random Llama / Qwen2 configs and weights (seeded), initialised like the golden script does
// (linear N(0, 1/fan_in), embeddings N(0, 1), norms 1 + 0.1·N, biases 0.1·N) so softmaxes are far from uniform.
import type { ModelConfig, ModelWeights } from '../../../src/engine/model/config.ts';
import { expectedParameterShapes } from '../../../src/engine/model/params.ts';
import { Rng } from '../../../src/util/rng.ts';

export function tinyConfig(overrides: Partial<ModelConfig> = {}): ModelConfig {
  return {
    architecture: 'llama',
    hiddenSize: 16,
    intermediateSize: 24,
    numLayers: 2,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 4,
    vocabSize: 40,
    rmsNormEps: 1e-6,
    ropeTheta: 10000,
    maxPositionEmbeddings: 256,
    tieWordEmbeddings: false,
    attentionBias: false,
    bosTokenId: null,
    eosTokenIds: [1],
    ...overrides,
  };
}

export function randomWeights(config: ModelConfig, seed: number): ModelWeights {
  const rng = new Rng(seed);
  const weights: ModelWeights = new Map();
  for (const [name, shape] of expectedParameterShapes(config)) {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    const isNorm = name.endsWith('norm.weight');
    const isBias = name.endsWith('.bias');
    const isEmbed = name === 'model.embed_tokens.weight';
    const std = isNorm || isBias ? 0.1 : isEmbed ? 1 : 1 / Math.sqrt(shape[1]);
    for (let i = 0; i < n; i++) data[i] = (isNorm ? 1 : 0) + std * rng.normal();
    weights.set(name, { shape: [...shape], data });
  }
  return weights;
}

/** The config.json of a Llama checkpoint with `cfg`'s shape (untied), as a test writes it into a model folder. */
export function llamaConfigJson(cfg: ModelConfig, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    architectures: ['LlamaForCausalLM'],
    hidden_size: cfg.hiddenSize,
    intermediate_size: cfg.intermediateSize,
    num_hidden_layers: cfg.numLayers,
    num_attention_heads: cfg.numHeads,
    num_key_value_heads: cfg.numKvHeads,
    vocab_size: cfg.vocabSize,
    rms_norm_eps: cfg.rmsNormEps,
    max_position_embeddings: cfg.maxPositionEmbeddings,
    tie_word_embeddings: false,
    ...extra,
  };
}
