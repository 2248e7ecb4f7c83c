// The decoder's hyper-parameters, normalised from a Hugging Face config.json (Llama, Qwen2, SmolLM families).
// Parsing and validation live in io/hf-config.ts; this file is the shared shape.

export type Architecture = 'llama' | 'qwen2';

export interface ModelConfig {
  architecture: Architecture;
  /** D */
  hiddenSize: number;
  /** F */
  intermediateSize: number;
  /** L */
  numLayers: number;
  /** H */
  numHeads: number;
  /** Hkv (GQA: H % Hkv == 0) */
  numKvHeads: number;
  /** Dh */
  headDim: number;
  /** V */
  vocabSize: number;
  rmsNormEps: number;
  ropeTheta: number;
  maxPositionEmbeddings: number;
  /** true: lm_head shares embed_tokens (no lm_head.weight in the checkpoint) */
  tieWordEmbeddings: boolean;
  /** q/k/v projections have biases (Qwen2 always; Llama when attention_bias) */
  attentionBias: boolean;
  bosTokenId: number | null;
  eosTokenIds: number[];
  /** RoPE frequency scaling (Llama 3.x uses "llama3"); absent or null means plain theta^(-2i/Dh).
   *  io/hf-config.ts ropeInverseFrequencies() applies it. */
  ropeScaling?: RopeScaling | null;
}

export type RopeScaling =
  | { type: 'linear'; factor: number }
  | {
      type: 'llama3';
      factor: number;
      lowFreqFactor: number;
      highFreqFactor: number;
      originalMaxPositionEmbeddings: number;
    };

/** A named parameter as loaded from safetensors: HF name, shape, f32 data. */
export interface NamedTensor {
  shape: number[];
  data: Float32Array;
}

/** All parameters of a checkpoint keyed by HF name, e.g. "model.layers.0.self_attn.q_proj.weight". */
export type ModelWeights = Map<string, NamedTensor>;
