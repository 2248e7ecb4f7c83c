// Makes small, randomly initialised checkpoints in real Hugging Face layout, for tests that walk the whole loading
// path without downloading anything, and full-size random models for benchmarks:
//   config.json, generation_config.json, tokenizer.json, tokenizer_config.json (a real chat template),
//   model.safetensors  or  model-0000i-of-0000n.safetensors + model.safetensors.index.json
//
//   npx tsx scripts/golden/make-hf-fixtures.ts                      # the committed fixtures in tests/fixtures/hf/
//   npx tsx scripts/golden/make-hf-fixtures.ts --preset qwen2.5-0.5b-instruct --out /tmp/qwen-random [--layers 4]
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { writeSafetensors, type SafetensorsDType, type WritableTensor } from '../../src/engine/io/safetensors.ts';
import { buildTokenizer, type TokenizerStyle } from './byte-bpe.ts';

const here = dirname(new URL(import.meta.url).pathname);
const FIXTURES = resolve(here, '../../tests/fixtures/hf');

interface Preset {
  style: TokenizerStyle;
  template: string;
  /** config.json fields besides the vocabulary and token ids */
  config: Record<string, unknown>;
  dtype: SafetensorsDType;
  /** bytes per shard; Infinity writes one model.safetensors */
  shardBytes: number;
  seed: number;
}

const qwen2Base = {
  architectures: ['Qwen2ForCausalLM'],
  attention_dropout: 0.0,
  hidden_act: 'silu',
  initializer_range: 0.02,
  model_type: 'qwen2',
  rms_norm_eps: 1e-6,
  rope_theta: 1000000.0,
  tie_word_embeddings: true,
  torch_dtype: 'bfloat16',
  transformers_version: '4.43.1',
  use_cache: true,
  use_sliding_window: false,
};

const PRESETS: Record<string, Preset> = {
  // committed: Qwen2.5-Instruct layout, bf16 in three shards with an index
  'tiny-qwen2.5-instruct': {
    style: 'qwen2',
    template: 'qwen2.5-instruct.jinja',
    config: {
      ...qwen2Base,
      hidden_size: 64,
      intermediate_size: 128,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      max_position_embeddings: 2048,
      max_window_layers: 2,
      sliding_window: 2048,
    },
    dtype: 'BF16',
    shardBytes: 80_000,
    seed: 5,
  },
  // committed: SmolLM2-Instruct layout (llama, tied, special tokens first), f16 in one file
  'tiny-smollm2-instruct': {
    style: 'smollm2',
    template: 'smollm2-instruct.jinja',
    config: {
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      attention_dropout: 0.0,
      hidden_act: 'silu',
      initializer_range: 0.04,
      mlp_bias: false,
      model_type: 'llama',
      pretraining_tp: 1,
      rms_norm_eps: 1e-5,
      rope_scaling: null,
      rope_theta: 100000,
      tie_word_embeddings: true,
      torch_dtype: 'float16',
      use_cache: true,
      hidden_size: 48,
      intermediate_size: 96,
      num_hidden_layers: 2,
      num_attention_heads: 3,
      num_key_value_heads: 1,
      head_dim: 16,
      max_position_embeddings: 2048,
    },
    dtype: 'F16',
    shardBytes: Infinity,
    seed: 6,
  },
  // not committed: Qwen2.5-0.5B-Instruct's exact configuration with random weights (speed does not depend on them)
  'qwen2.5-0.5b-instruct': {
    style: 'qwen2',
    template: 'qwen2.5-instruct.jinja',
    config: {
      ...qwen2Base,
      hidden_size: 896,
      intermediate_size: 4864,
      num_hidden_layers: 24,
      num_attention_heads: 14,
      num_key_value_heads: 2,
      max_position_embeddings: 32768,
      max_window_layers: 21,
      sliding_window: 32768,
      vocab_size: 151936,
      bos_token_id: 151643,
      eos_token_id: 151645,
    },
    dtype: 'BF16',
    shardBytes: 300_000_000,
    seed: 7,
  },
};

/** Standard normal samples from a seeded xorshift generator (Box-Muller). */
function normalSampler(seed: number): () => number {
  let s = (seed * 2654435761) >>> 0 || 1;
  const uniform = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return (s + 0.5) / 4294967296;
  };
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const v = spare;
      spare = null;
      return v;
    }
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const theta = 2 * Math.PI * uniform();
    spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  };
}

/** HF parameter names and shapes, in transformers' state_dict order. */
function parameterShapes(c: Record<string, number | boolean | string>): Array<[string, number[]]> {
  const D = c.hidden_size as number;
  const F = c.intermediate_size as number;
  const V = c.vocab_size as number;
  const H = c.num_attention_heads as number;
  const Hkv = c.num_key_value_heads as number;
  const Dh = (c.head_dim as number | undefined) ?? D / H;
  const bias = c.model_type === 'qwen2' || c.attention_bias === true;
  const out: Array<[string, number[]]> = [['model.embed_tokens.weight', [V, D]]];
  for (let l = 0; l < (c.num_hidden_layers as number); l++) {
    const p = `model.layers.${l}.`;
    out.push([`${p}self_attn.q_proj.weight`, [H * Dh, D]]);
    if (bias) out.push([`${p}self_attn.q_proj.bias`, [H * Dh]]);
    out.push([`${p}self_attn.k_proj.weight`, [Hkv * Dh, D]]);
    if (bias) out.push([`${p}self_attn.k_proj.bias`, [Hkv * Dh]]);
    out.push([`${p}self_attn.v_proj.weight`, [Hkv * Dh, D]]);
    if (bias) out.push([`${p}self_attn.v_proj.bias`, [Hkv * Dh]]);
    out.push([`${p}self_attn.o_proj.weight`, [D, H * Dh]]);
    out.push(
      [`${p}mlp.gate_proj.weight`, [F, D]],
      [`${p}mlp.up_proj.weight`, [F, D]],
      [`${p}mlp.down_proj.weight`, [D, F]],
    );
    out.push([`${p}input_layernorm.weight`, [D]], [`${p}post_attention_layernorm.weight`, [D]]);
  }
  out.push(['model.norm.weight', [D]]);
  if (!c.tie_word_embeddings) out.push(['lm_head.weight', [V, D]]);
  return out;
}

/** Random weights with O(1) activations: linears N(0, 1/fan_in), norms 1 + 0.1 N, biases 0.1 N, tied embeddings 1/sqrt(D). */
function randomValue(name: string, shape: number[], normal: () => number): Float32Array {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  const isNorm = name.endsWith('norm.weight');
  const scale = isNorm || name.endsWith('.bias') ? 0.1 : 1 / Math.sqrt(shape[1]); // [out, in] or [V, D]
  for (let i = 0; i < n; i++) data[i] = (isNorm ? 1 : 0) + scale * normal();
  return data;
}

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, JSON.stringify(value, null, 2) + '\n');
}

export function makeCheckpoint(presetName: string, outDir: string, overrides: Record<string, unknown> = {}): void {
  const preset = PRESETS[presetName];
  if (!preset) throw new Error(`unknown preset "${presetName}" (have: ${Object.keys(PRESETS).join(', ')})`);
  const template = readFileSync(join(here, 'templates', preset.template), 'utf8');
  const tok = buildTokenizer(preset.style, template);
  const config: Record<string, unknown> = {
    bos_token_id: preset.style === 'qwen2' ? tok.ids.endoftext : tok.ids.imStart,
    eos_token_id: tok.ids.imEnd,
    vocab_size: Math.ceil(tok.size / 64) * 64, // padded like Qwen's 151936 for 151665 tokens
    ...preset.config,
    ...overrides,
  };
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  writeJson(
    join(outDir, 'config.json'),
    Object.fromEntries(Object.entries(config).toSorted(([a], [b]) => (a < b ? -1 : 1))),
  );
  writeJson(join(outDir, 'generation_config.json'), {
    bos_token_id: config.bos_token_id,
    do_sample: true,
    eos_token_id: [tok.ids.imEnd, tok.ids.endoftext],
    pad_token_id: tok.ids.endoftext,
    temperature: 0.7,
    top_p: 0.8,
    top_k: 20,
    transformers_version: '4.43.1',
  });
  writeJson(join(outDir, 'tokenizer.json'), tok.tokenizerJson);
  writeJson(join(outDir, 'tokenizer_config.json'), tok.tokenizerConfig);

  // Shards are filled in state_dict order up to shardBytes each, as transformers' save_pretrained does.
  const normal = normalSampler(preset.seed);
  const bytesPer = preset.dtype === 'F32' ? 4 : 2;
  const shards: Array<Map<string, WritableTensor>> = [new Map()];
  let shardSize = 0;
  let totalSize = 0;
  for (const [name, shape] of parameterShapes(config as Record<string, number | boolean | string>)) {
    const bytes = shape.reduce((a, b) => a * b, 1) * bytesPer;
    if (shardSize > 0 && shardSize + bytes > preset.shardBytes) {
      shards.push(new Map());
      shardSize = 0;
    }
    shards.at(-1)!.set(name, { dtype: preset.dtype, shape, data: randomValue(name, shape, normal) });
    shardSize += bytes;
    totalSize += bytes;
  }
  if (shards.length === 1) {
    writeFileSync(join(outDir, 'model.safetensors'), writeSafetensors(shards[0], { format: 'pt' }));
    return;
  }
  const weightMap: Record<string, string> = {};
  shards.forEach((tensors, i) => {
    const file = `model-${String(i + 1).padStart(5, '0')}-of-${String(shards.length).padStart(5, '0')}.safetensors`;
    writeFileSync(join(outDir, file), writeSafetensors(tensors, { format: 'pt' }));
    for (const name of tensors.keys()) weightMap[name] = file;
  });
  const sortedMap = Object.fromEntries(Object.entries(weightMap).toSorted(([a], [b]) => (a < b ? -1 : 1)));
  writeJson(join(outDir, 'model.safetensors.index.json'), {
    metadata: { total_size: totalSize },
    weight_map: sortedMap,
  });
}

function main(argv: string[]): void {
  const arg = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const preset = arg('--preset');
  if (!preset) {
    for (const name of ['tiny-qwen2.5-instruct', 'tiny-smollm2-instruct']) {
      makeCheckpoint(name, join(FIXTURES, name));
      console.log(`wrote ${join(FIXTURES, name)}`);
    }
    return;
  }
  const out = arg('--out');
  if (!out) throw new Error('--out DIR is required with --preset');
  const layers = arg('--layers');
  makeCheckpoint(preset, resolve(out), layers ? { num_hidden_layers: Number(layers) } : {});
  console.log(`wrote ${resolve(out)}`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(here, 'make-hf-fixtures.ts')) main(process.argv.slice(2));
