// Turns a Hugging Face config.json (LlamaForCausalLM, Qwen2ForCausalLM; SmolLM is Llama) into our ModelConfig,
// applying the transformers defaults for missing fields and refusing, with the field's name, anything the decoder
// does not implement (other architectures, sliding-window attention, MLP biases, unknown RoPE scaling).
import type { Architecture, ModelConfig, RopeScaling } from '../model/config.ts';

const ARCHITECTURES: Record<string, Architecture> = {
  LlamaForCausalLM: 'llama',
  Qwen2ForCausalLM: 'qwen2',
};
const MODEL_TYPES: Record<string, Architecture> = { llama: 'llama', qwen2: 'qwen2' };

/** transformers' defaults where config.json leaves a field out (LlamaConfig / Qwen2Config). */
const DEFAULTS: Record<Architecture, { rmsNormEps: number; ropeTheta: number; maxPositionEmbeddings: number }> = {
  llama: { rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 2048 },
  qwen2: { rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 32768 },
};

class ConfigReader {
  constructor(
    private readonly json: Record<string, unknown>,
    private readonly fileName: string,
  ) {}

  fail(field: string, problem: string): never {
    throw new Error(`${this.fileName}: field "${field}" ${problem}`);
  }

  has(field: string): boolean {
    return this.json[field] !== undefined && this.json[field] !== null;
  }

  positiveInt(field: string, fallback?: number): number {
    const v = this.json[field];
    if (v === undefined || v === null) {
      if (fallback !== undefined) return fallback;
      return this.fail(field, 'is missing (a positive integer is required)');
    }
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0)
      this.fail(field, `must be a positive integer, got ${JSON.stringify(v)}`);
    return v as number;
  }

  positiveNumber(field: string, fallback: number): number {
    const v = this.json[field];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v))
      this.fail(field, `must be a positive number, got ${JSON.stringify(v)}`);
    return v as number;
  }

  bool(field: string, fallback: boolean): boolean {
    const v = this.json[field];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'boolean') this.fail(field, `must be true or false, got ${JSON.stringify(v)}`);
    return v as boolean;
  }

  tokenIds(field: string): number[] {
    const v = this.json[field];
    if (v === undefined || v === null) return [];
    const list = Array.isArray(v) ? v : [v];
    if (!list.every((x) => Number.isSafeInteger(x) && x >= 0))
      this.fail(field, `must be a token id or a list of token ids, got ${JSON.stringify(v)}`);
    return list as number[];
  }
}

function architectureOf(r: ConfigReader, json: Record<string, unknown>): Architecture {
  const archs = json.architectures;
  if (archs !== undefined && archs !== null) {
    if (!Array.isArray(archs) || archs.length === 0 || typeof archs[0] !== 'string') {
      r.fail('architectures', `must be a non-empty list of class names, got ${JSON.stringify(archs)}`);
    }
    const name = (archs as string[])[0];
    const arch = Object.hasOwn(ARCHITECTURES, name) ? ARCHITECTURES[name] : undefined;
    if (!arch)
      r.fail(
        'architectures',
        `names unsupported architecture "${name}" (supported: ${Object.keys(ARCHITECTURES).join(', ')})`,
      );
    return arch;
  }
  const type = json.model_type;
  const arch = typeof type === 'string' ? MODEL_TYPES[type] : undefined;
  if (!arch)
    r.fail(
      'model_type',
      `names unsupported model type ${JSON.stringify(type)} (supported: ${Object.keys(MODEL_TYPES).join(', ')})`,
    );
  return arch;
}

function ropeScalingOf(r: ConfigReader, raw: unknown): RopeScaling | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw))
    return r.fail('rope_scaling', `must be an object or null, got ${JSON.stringify(raw)}`);
  const s = raw as Record<string, unknown>;
  const type = s.rope_type ?? s.type;
  const num = (key: string): number => {
    const v = s[key];
    if (typeof v !== 'number' || !(v > 0))
      return r.fail(`rope_scaling.${key}`, `must be a positive number, got ${JSON.stringify(v)}`);
    return v;
  };
  switch (type) {
    case 'default':
      return null;
    case 'linear':
      return { type: 'linear', factor: num('factor') };
    case 'llama3':
      return {
        type: 'llama3',
        factor: num('factor'),
        lowFreqFactor: num('low_freq_factor'),
        highFreqFactor: num('high_freq_factor'),
        originalMaxPositionEmbeddings: num('original_max_position_embeddings'),
      };
    default:
      return r.fail(
        'rope_scaling.rope_type',
        `${JSON.stringify(type)} is not supported (supported: default, linear, llama3)`,
      );
  }
}

/** Normalise and validate a parsed config.json. */
export function parseHfConfig(json: unknown, fileName = 'config.json'): ModelConfig {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error(`${fileName}: expected a JSON object`);
  const obj = json as Record<string, unknown>;
  const r = new ConfigReader(obj, fileName);
  const architecture = architectureOf(r, obj);
  const defaults = DEFAULTS[architecture];

  const hiddenSize = r.positiveInt('hidden_size');
  const numHeads = r.positiveInt('num_attention_heads');
  const numKvHeads = r.positiveInt('num_key_value_heads', numHeads);
  if (numHeads % numKvHeads !== 0)
    r.fail('num_key_value_heads', `(${numKvHeads}) must divide num_attention_heads (${numHeads})`);
  if (!r.has('head_dim') && hiddenSize % numHeads !== 0) {
    r.fail(
      'hidden_size',
      `(${hiddenSize}) is not divisible by num_attention_heads (${numHeads}) and no head_dim is given`,
    );
  }
  const headDim = r.positiveInt('head_dim', hiddenSize / numHeads);
  if (headDim % 2 !== 0) r.fail('head_dim', `must be even for rotary embeddings, got ${headDim}`);

  const act = obj.hidden_act ?? 'silu';
  if (act !== 'silu') r.fail('hidden_act', `${JSON.stringify(act)} is not supported (only "silu", SwiGLU)`);
  if (r.bool('mlp_bias', false)) r.fail('mlp_bias', 'true is not supported (MLP projections have no bias)');
  if (architecture === 'qwen2' && r.bool('use_sliding_window', false)) {
    r.fail('use_sliding_window', 'true is not supported (sliding-window attention is not implemented)');
  }
  const tp = obj.pretraining_tp;
  if (tp !== undefined && tp !== null && tp !== 1) r.fail('pretraining_tp', `must be 1, got ${JSON.stringify(tp)}`);

  return {
    architecture,
    hiddenSize,
    intermediateSize: r.positiveInt('intermediate_size'),
    numLayers: r.positiveInt('num_hidden_layers'),
    numHeads,
    numKvHeads,
    headDim,
    vocabSize: r.positiveInt('vocab_size'),
    rmsNormEps: r.positiveNumber('rms_norm_eps', defaults.rmsNormEps),
    ropeTheta: r.positiveNumber('rope_theta', defaults.ropeTheta),
    maxPositionEmbeddings: r.positiveInt('max_position_embeddings', defaults.maxPositionEmbeddings),
    tieWordEmbeddings: r.bool('tie_word_embeddings', false),
    // Qwen2's attention always has q/k/v biases (its config has no attention_bias field); Llama's is optional.
    attentionBias: architecture === 'qwen2' ? true : r.bool('attention_bias', false),
    bosTokenId: r.tokenIds('bos_token_id')[0] ?? null,
    eosTokenIds: r.tokenIds('eos_token_id'),
    ropeScaling: ropeScalingOf(r, obj.rope_scaling),
  };
}

/**
 * RoPE inverse frequencies inv_freq[i] = theta^(-2i/Dh) for i < Dh/2, with the config's scaling applied the way
 * transformers does it (linear: divide by factor; llama3: divide the low frequencies, keep the high ones, and
 * interpolate in between). Float64 so callers can build cos/sin tables without extra rounding.
 */
export function ropeInverseFrequencies(
  config: Pick<ModelConfig, 'headDim' | 'ropeTheta' | 'ropeScaling'>,
): Float64Array {
  const half = config.headDim / 2;
  const inv = new Float64Array(half);
  for (let i = 0; i < half; i++) inv[i] = 1 / config.ropeTheta ** ((2 * i) / config.headDim);
  const s = config.ropeScaling;
  if (!s) return inv;
  if (s.type === 'linear') return inv.map((f) => f / s.factor);
  const lowFreqWavelen = s.originalMaxPositionEmbeddings / s.lowFreqFactor;
  const highFreqWavelen = s.originalMaxPositionEmbeddings / s.highFreqFactor;
  return inv.map((f) => {
    const wavelen = (2 * Math.PI) / f;
    if (wavelen < highFreqWavelen) return f;
    if (wavelen > lowFreqWavelen) return f / s.factor;
    const smooth = (s.originalMaxPositionEmbeddings / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
    return (1 - smooth) * (f / s.factor) + smooth * f;
  });
}
