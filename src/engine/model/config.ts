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

/** A named parameter held as float32: HF name (the map key), shape, values. */
export interface NamedTensor {
  shape: number[];
  data: Float32Array;
}

/**
 * A 16-bit parameter kept as stored in the checkpoint (loadHfCheckpoint's keepHalf): the raw IEEE half ("f16") or
 * bfloat16 ("bf16") words. The words live in `bits`, not `data`, so code that expects float32 values does not
 * typecheck on a HostTensor until it widens with io/host-weights.ts tensorFloat32 (a Uint16Array is never read as
 * floats by mistake). A frozen base stored in 16 bits on the device takes the words without a float32 copy.
 */
export interface HalfTensor {
  shape: number[];
  dtype: 'f16' | 'bf16';
  bits: Uint16Array;
}

/** A parameter as held on the host: float32 values, or 16-bit words as stored. */
export type HostTensor = NamedTensor | HalfTensor;

/** All parameters of a checkpoint keyed by HF name, e.g. "model.layers.0.self_attn.q_proj.weight", as float32. */
export type ModelWeights = Map<string, NamedTensor>;

/** Parameters as loaded for uploading (float32, or 16-bit as stored); ModelWeights is one. */
export type HostWeights = ReadonlyMap<string, HostTensor>;
