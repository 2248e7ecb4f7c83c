// The tiny model's architecture (an HF LlamaForCausalLM config.json) and its seeded random initialisation:
// N(0, 0.02) embeddings and LM head, N(0, 1/fan_in) linear weights with the residual outputs (o_proj, down_proj)
// scaled by 1/sqrt(2L) (GPT-2 style), RMSNorm weights 1.

import { parseHfConfig } from '../../src/engine/io/hf-config.ts';
import type { ModelConfig, ModelWeights } from '../../src/engine/model/config.ts';
import { expectedParameterShapes } from '../../src/engine/model/params.ts';
import { Rng } from '../../src/util/rng.ts';

export interface TinyShape {
  hidden: number;
  layers: number;
  heads: number;
  kvHeads: number;
  intermediate: number;
  vocab: number;
  context: number;
}

/** config.json for the shape, as transformers writes a LlamaConfig. */
export function tinyConfigJson(shape: TinyShape): Record<string, unknown> {
  return {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    hidden_size: shape.hidden,
    intermediate_size: shape.intermediate,
    num_hidden_layers: shape.layers,
    num_attention_heads: shape.heads,
    num_key_value_heads: shape.kvHeads,
    head_dim: shape.hidden / shape.heads,
    hidden_act: 'silu',
    max_position_embeddings: shape.context,
    rms_norm_eps: 1e-5,
    rope_theta: 10000.0,
    rope_scaling: null,
    attention_bias: false,
    attention_dropout: 0.0,
    mlp_bias: false,
    tie_word_embeddings: false,
    vocab_size: shape.vocab,
    bos_token_id: 0,
    eos_token_id: 2,
    pad_token_id: 0,
    initializer_range: 0.02,
    pretraining_tp: 1,
    torch_dtype: 'float32',
    use_cache: true,
  };
}

export function tinyModelConfig(shape: TinyShape): ModelConfig {
  return parseHfConfig(tinyConfigJson(shape), 'tiny config.json');
}

export function initTinyWeights(config: ModelConfig, seed: number): ModelWeights {
  const rng = new Rng(seed);
  const weights: ModelWeights = new Map();
  const residualScale = 1 / Math.sqrt(2 * config.numLayers);
  for (const [name, shape] of expectedParameterShapes(config)) {
    const size = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(size);
    if (name.endsWith('norm.weight')) data.fill(1);
    else if (name.endsWith('.bias')) data.fill(0);
    else {
      let std = name === 'model.embed_tokens.weight' || name === 'lm_head.weight' ? 0.02 : 1 / Math.sqrt(shape[1]);
      if (name.includes('o_proj') || name.includes('down_proj')) std *= residualScale;
      for (let i = 0; i < size; i++) data[i] = rng.normal() * std;
    }
    weights.set(name, { shape, data });
  }
  return weights;
}

export function parameterCount(weights: ModelWeights): number {
  let n = 0;
  for (const t of weights.values()) n += t.data.length;
  return n;
}
