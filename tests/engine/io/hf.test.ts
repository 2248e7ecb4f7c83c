// Hugging Face folder loading: config.json normalisation (real model configs), single-file and sharded checkpoints
// in f32/bf16/f16, tied embeddings, progress, full-weight save/load, and clear errors for broken folders.
import { describe, expect, it } from 'vitest';
import { parseHfConfig, ropeInverseFrequencies } from '../../../src/engine/io/hf-config.ts';
import {
  deserializeModelWeights,
  loadHfCheckpoint,
  serializeModelWeights,
  type CheckpointProgress,
} from '../../../src/engine/io/hf-model.ts';
import { memoryFileSource } from '../../../src/engine/io/memory-source.ts';
import { writeSafetensors, type SafetensorsDType, type WritableTensor } from '../../../src/engine/io/safetensors.ts';
import { decodeBF16, encodeBF16 } from '../../../src/engine/io/half-float.ts';
import { Rng } from '../../../src/util/rng.ts';

// config.json of real checkpoints, as published on the Hugging Face hub
const QWEN25_05B_INSTRUCT = {
  architectures: ['Qwen2ForCausalLM'],
  attention_dropout: 0.0,
  bos_token_id: 151643,
  eos_token_id: 151645,
  hidden_act: 'silu',
  hidden_size: 896,
  initializer_range: 0.02,
  intermediate_size: 4864,
  max_position_embeddings: 32768,
  max_window_layers: 21,
  model_type: 'qwen2',
  num_attention_heads: 14,
  num_hidden_layers: 24,
  num_key_value_heads: 2,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000.0,
  sliding_window: 32768,
  tie_word_embeddings: true,
  torch_dtype: 'bfloat16',
  transformers_version: '4.43.1',
  use_cache: true,
  use_sliding_window: false,
  vocab_size: 151936,
};
const SMOLLM2_135M_INSTRUCT = {
  architectures: ['LlamaForCausalLM'],
  attention_bias: false,
  attention_dropout: 0.0,
  bos_token_id: 1,
  eos_token_id: 2,
  head_dim: 64,
  hidden_act: 'silu',
  hidden_size: 576,
  initializer_range: 0.041666666666666664,
  intermediate_size: 1536,
  is_llama_config: true,
  max_position_embeddings: 8192,
  mlp_bias: false,
  model_type: 'llama',
  num_attention_heads: 9,
  num_hidden_layers: 30,
  num_key_value_heads: 3,
  pad_token_id: 2,
  pretraining_tp: 1,
  rms_norm_eps: 1e-5,
  rope_interleaved: false,
  rope_scaling: null,
  rope_theta: 100000,
  tie_word_embeddings: true,
  torch_dtype: 'bfloat16',
  transformers_version: '4.42.3',
  use_cache: true,
  vocab_size: 49152,
};
const LLAMA32_1B_INSTRUCT = {
  architectures: ['LlamaForCausalLM'],
  attention_bias: false,
  attention_dropout: 0.0,
  bos_token_id: 128000,
  eos_token_id: [128001, 128008, 128009],
  head_dim: 64,
  hidden_act: 'silu',
  hidden_size: 2048,
  initializer_range: 0.02,
  intermediate_size: 8192,
  max_position_embeddings: 131072,
  mlp_bias: false,
  model_type: 'llama',
  num_attention_heads: 32,
  num_hidden_layers: 16,
  num_key_value_heads: 8,
  pretraining_tp: 1,
  rms_norm_eps: 1e-5,
  rope_scaling: {
    factor: 32.0,
    high_freq_factor: 4.0,
    low_freq_factor: 1.0,
    original_max_position_embeddings: 8192,
    rope_type: 'llama3',
  },
  rope_theta: 500000.0,
  tie_word_embeddings: true,
  torch_dtype: 'bfloat16',
  transformers_version: '4.45.0.dev0',
  use_cache: true,
  vocab_size: 128256,
};

describe('parseHfConfig on real model configs', () => {
  it('Qwen2.5-0.5B-Instruct: qwen2, GQA 14/2, biases although attention_bias is absent, tied', () => {
    expect(parseHfConfig(QWEN25_05B_INSTRUCT)).toEqual({
      architecture: 'qwen2',
      hiddenSize: 896,
      intermediateSize: 4864,
      numLayers: 24,
      numHeads: 14,
      numKvHeads: 2,
      headDim: 64,
      vocabSize: 151936,
      rmsNormEps: 1e-6,
      ropeTheta: 1e6,
      maxPositionEmbeddings: 32768,
      tieWordEmbeddings: true,
      attentionBias: true,
      bosTokenId: 151643,
      eosTokenIds: [151645],
      ropeScaling: null,
    });
  });

  it('SmolLM2-135M-Instruct: llama, 9 heads / 3 kv heads, no bias, tied', () => {
    const c = parseHfConfig(SMOLLM2_135M_INSTRUCT);
    expect(c).toMatchObject({
      architecture: 'llama',
      hiddenSize: 576,
      numHeads: 9,
      numKvHeads: 3,
      headDim: 64,
      attentionBias: false,
    });
    expect(c).toMatchObject({
      tieWordEmbeddings: true,
      ropeTheta: 100000,
      rmsNormEps: 1e-5,
      eosTokenIds: [2],
      bosTokenId: 1,
    });
  });

  it('Llama-3.2-1B-Instruct: eos list and llama3 RoPE scaling', () => {
    const c = parseHfConfig(LLAMA32_1B_INSTRUCT);
    expect(c.eosTokenIds).toEqual([128001, 128008, 128009]);
    expect(c.ropeScaling).toEqual({
      type: 'llama3',
      factor: 32,
      lowFreqFactor: 1,
      highFreqFactor: 4,
      originalMaxPositionEmbeddings: 8192,
    });
    expect(c).toMatchObject({ numHeads: 32, numKvHeads: 8, headDim: 64, vocabSize: 128256, numLayers: 16 });
  });

  it('fills transformers defaults: head_dim, kv heads, untied, eps, theta', () => {
    const c = parseHfConfig({
      model_type: 'llama',
      hidden_size: 64,
      intermediate_size: 128,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      vocab_size: 100,
    });
    expect(c).toMatchObject({
      headDim: 16,
      numKvHeads: 4,
      tieWordEmbeddings: false,
      rmsNormEps: 1e-6,
      ropeTheta: 10000,
      attentionBias: false,
      bosTokenId: null,
      eosTokenIds: [],
    });
    const withBias = parseHfConfig({ ...SMOLLM2_135M_INSTRUCT, attention_bias: true });
    expect(withBias.attentionBias).toBe(true);
  });

  it('refuses what the decoder does not implement, naming the field', () => {
    expect(() =>
      parseHfConfig({ ...QWEN25_05B_INSTRUCT, architectures: ['Qwen3ForCausalLM'] }, 'q3/config.json'),
    ).toThrow(/q3\/config\.json: field "architectures" names unsupported architecture "Qwen3ForCausalLM"/);
    expect(() => parseHfConfig({ ...LLAMA32_1B_INSTRUCT, rope_scaling: { rope_type: 'yarn', factor: 4 } })).toThrow(
      /config\.json: field "rope_scaling\.rope_type" "yarn" is not supported/,
    );
    expect(() => parseHfConfig({ ...QWEN25_05B_INSTRUCT, use_sliding_window: true })).toThrow(
      /field "use_sliding_window"/,
    );
    expect(() => parseHfConfig({ ...SMOLLM2_135M_INSTRUCT, mlp_bias: true })).toThrow(/field "mlp_bias"/);
    expect(() => parseHfConfig({ ...SMOLLM2_135M_INSTRUCT, hidden_act: 'gelu' })).toThrow(/field "hidden_act" "gelu"/);
    expect(() => parseHfConfig({ ...SMOLLM2_135M_INSTRUCT, num_key_value_heads: 2 })).toThrow(
      /field "num_key_value_heads" \(2\) must divide num_attention_heads \(9\)/,
    );
    const { vocab_size: _, ...noVocab } = SMOLLM2_135M_INSTRUCT;
    expect(() => parseHfConfig(noVocab)).toThrow(/field "vocab_size" is missing/);
    expect(() => parseHfConfig({ ...SMOLLM2_135M_INSTRUCT, hidden_size: '576' })).toThrow(
      /field "hidden_size" must be a positive integer, got "576"/,
    );
    expect(() => parseHfConfig({ ...SMOLLM2_135M_INSTRUCT, architectures: undefined, model_type: 'gpt2' })).toThrow(
      /field "model_type" names unsupported model type "gpt2"/,
    );
  });

  it('llama3 RoPE scaling keeps high frequencies, divides low ones by the factor, interpolates in between', () => {
    const c = parseHfConfig(LLAMA32_1B_INSTRUCT);
    const scaled = ropeInverseFrequencies(c);
    const plain = ropeInverseFrequencies({ ...c, ropeScaling: null });
    expect(plain[0]).toBe(1);
    expect(plain[1]).toBeCloseTo(500000 ** (-2 / 64), 15);
    let high = 0;
    let low = 0;
    let medium = 0;
    for (let i = 0; i < 32; i++) {
      const wavelen = (2 * Math.PI) / plain[i];
      if (wavelen < 8192 / 4) {
        expect(scaled[i]).toBe(plain[i]);
        high++;
      } else if (wavelen > 8192 / 1) {
        expect(scaled[i]).toBeCloseTo(plain[i] / 32, 18);
        low++;
      } else {
        expect(scaled[i]).toBeLessThan(plain[i]);
        expect(scaled[i]).toBeGreaterThan(plain[i] / 32);
        medium++;
      }
    }
    expect(high > 0 && low > 0 && medium > 0).toBe(true);
  });
});

// ---- checkpoints in memory ----

const TINY = {
  architectures: ['Qwen2ForCausalLM'],
  model_type: 'qwen2',
  hidden_size: 16,
  intermediate_size: 24,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  vocab_size: 40,
  tie_word_embeddings: true,
  rms_norm_eps: 1e-6,
  rope_theta: 10000,
};

function expectedShapes(untied: boolean): Map<string, number[]> {
  const s = new Map<string, number[]>([
    ['model.embed_tokens.weight', [40, 16]],
    ['model.norm.weight', [16]],
  ]);
  for (let l = 0; l < 2; l++) {
    const p = `model.layers.${l}.`;
    s.set(`${p}input_layernorm.weight`, [16]);
    s.set(`${p}post_attention_layernorm.weight`, [16]);
    s.set(`${p}self_attn.q_proj.weight`, [16, 16]);
    s.set(`${p}self_attn.q_proj.bias`, [16]);
    s.set(`${p}self_attn.k_proj.weight`, [8, 16]);
    s.set(`${p}self_attn.k_proj.bias`, [8]);
    s.set(`${p}self_attn.v_proj.weight`, [8, 16]);
    s.set(`${p}self_attn.v_proj.bias`, [8]);
    s.set(`${p}self_attn.o_proj.weight`, [16, 16]);
    s.set(`${p}mlp.gate_proj.weight`, [24, 16]);
    s.set(`${p}mlp.up_proj.weight`, [24, 16]);
    s.set(`${p}mlp.down_proj.weight`, [16, 24]);
  }
  if (untied) s.set('lm_head.weight', [40, 16]);
  return s;
}

function randomTensors(untied = false, seed = 1): Map<string, Float32Array> {
  const rng = new Rng(seed);
  const out = new Map<string, Float32Array>();
  for (const [name, shape] of expectedShapes(untied))
    out.set(
      name,
      Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.next() * 2 - 1),
    );
  return out;
}

function toWritable(
  values: Map<string, Float32Array>,
  dtype: SafetensorsDType,
  shapes = expectedShapes(values.has('lm_head.weight')),
): Map<string, WritableTensor> {
  return new Map([...values].map(([n, d]) => [n, { dtype, shape: shapes.get(n)!, data: d }]));
}

const json = (x: unknown) => new TextEncoder().encode(JSON.stringify(x));

/** Split the tensors over two bf16 shards with an index, as transformers' save_pretrained does. */
function shardedFolder(values: Map<string, Float32Array>): Record<string, Uint8Array> {
  const names = [...values.keys()];
  const half = Math.ceil(names.length / 2);
  const shards = [names.slice(0, half), names.slice(half)];
  const files: Record<string, Uint8Array> = { 'config.json': json(TINY) };
  const weightMap: Record<string, string> = {};
  shards.forEach((group, i) => {
    const file = `model-0000${i + 1}-of-00002.safetensors`;
    files[file] = writeSafetensors(toWritable(new Map(group.map((n) => [n, values.get(n)!])), 'BF16'), {
      format: 'pt',
    });
    for (const n of group) weightMap[n] = file;
  });
  files['model.safetensors.index.json'] = json({ metadata: { total_size: 0 }, weight_map: weightMap });
  return files;
}

describe('loadHfCheckpoint', () => {
  it('loads a single-file f32 checkpoint exactly, with tied embeddings', async () => {
    const values = randomTensors();
    const files = { 'config.json': json(TINY), 'model.safetensors': writeSafetensors(toWritable(values, 'F32')) };
    const ckpt = await loadHfCheckpoint(memoryFileSource('mem://tiny', files));
    expect(ckpt.config.tieWordEmbeddings).toBe(true);
    expect(ckpt.weights.has('lm_head.weight')).toBe(false);
    expect([...ckpt.weights.keys()].toSorted()).toEqual([...values.keys()].toSorted());
    for (const [name, data] of values) expect(ckpt.weights.get(name)!.data).toEqual(data);
    expect(ckpt.weights.get('model.layers.1.self_attn.k_proj.weight')!.shape).toEqual([8, 16]);
    expect(ckpt.storedDtypes).toEqual(new Set(['F32']));
  });

  it('loads sharded bf16 safetensors through the index, reporting per-file progress', async () => {
    const values = randomTensors();
    const progress: CheckpointProgress[] = [];
    const ckpt = await loadHfCheckpoint(memoryFileSource('mem://sharded', shardedFolder(values)), {
      onProgress: (p) => progress.push(p),
    });
    for (const [name, data] of values) expect(ckpt.weights.get(name)!.data).toEqual(decodeBF16(encodeBF16(data)));
    expect(ckpt.storedDtypes).toEqual(new Set(['BF16']));
    const finished = progress.filter((p) => p.loadedBytes === p.totalBytes && p.filesDone > 2);
    expect(finished.map((p) => p.file)).toContain('model-00002-of-00002.safetensors');
    expect(progress.at(-1)!.filesDone).toBe(progress.at(-1)!.filesTotal);
    expect(progress.at(-1)!.filesTotal).toBe(4);
  });

  it('loads f16 weights and untied heads; ignores a redundant lm_head when tied and rotary inv_freq buffers', async () => {
    const untied = randomTensors(true);
    const files = {
      'config.json': json({ ...TINY, tie_word_embeddings: false }),
      'model.safetensors': writeSafetensors(toWritable(untied, 'F16')),
    };
    const ckpt = await loadHfCheckpoint(memoryFileSource('mem://f16', files));
    expect(ckpt.weights.get('lm_head.weight')!.shape).toEqual([40, 16]);
    expect(ckpt.storedDtypes).toEqual(new Set(['F16']));
    const extra = toWritable(untied, 'F32');
    extra.set('model.layers.0.self_attn.rotary_emb.inv_freq', { dtype: 'F32', shape: [2], data: [1, 0.1] });
    const tied = await loadHfCheckpoint(
      memoryFileSource('mem://tied', { 'config.json': json(TINY), 'model.safetensors': writeSafetensors(extra) }),
    );
    expect(tied.weights.has('lm_head.weight')).toBe(false);
    expect(tied.weights.size).toBe(expectedShapes(false).size);
  });

  it('errors name the file, the tensor and expected vs found shape', async () => {
    const values = randomTensors();
    const wrongShape = toWritable(values, 'F32');
    wrongShape.set('model.layers.1.mlp.up_proj.weight', {
      dtype: 'F32',
      shape: [16, 24],
      data: values.get('model.layers.1.mlp.up_proj.weight')!,
    });
    await expect(
      loadHfCheckpoint(
        memoryFileSource('mem://a', { 'config.json': json(TINY), 'model.safetensors': writeSafetensors(wrongShape) }),
      ),
    ).rejects.toThrow(
      'mem://a/model.safetensors: tensor "model.layers.1.mlp.up_proj.weight" has shape [16, 24] but config.json implies [24, 16]',
    );
    const missing = toWritable(values, 'F32');
    missing.delete('model.layers.0.self_attn.q_proj.bias');
    await expect(
      loadHfCheckpoint(
        memoryFileSource('mem://b', { 'config.json': json(TINY), 'model.safetensors': writeSafetensors(missing) }),
      ),
    ).rejects.toThrow('mem://b/model.safetensors: missing tensor "model.layers.0.self_attn.q_proj.bias" [16]');
    const ints = toWritable(values, 'F32');
    ints.set('model.norm.weight', { dtype: 'I32', shape: [16], data: new Int32Array(16) });
    await expect(
      loadHfCheckpoint(
        memoryFileSource('mem://c', { 'config.json': json(TINY), 'model.safetensors': writeSafetensors(ints) }),
      ),
    ).rejects.toThrow(/mem:\/\/c\/model\.safetensors: tensor "model\.norm\.weight" has dtype I32/);
    const moreLayers = {
      'config.json': json({ ...TINY, num_hidden_layers: 1 }),
      'model.safetensors': writeSafetensors(toWritable(values, 'F32')),
    };
    await expect(loadHfCheckpoint(memoryFileSource('mem://d', moreLayers))).rejects.toThrow(
      /mem:\/\/d\/model\.safetensors: unexpected tensors "model\.layers\.1\./,
    );
    await expect(loadHfCheckpoint(memoryFileSource('mem://e', { 'config.json': json(TINY) }))).rejects.toThrow(
      'mem://e: no model.safetensors or model.safetensors.index.json',
    );
    await expect(loadHfCheckpoint(memoryFileSource('mem://f', {}))).rejects.toThrow(
      'mem://f/config.json: file not found',
    );
    const badJson = { 'config.json': new TextEncoder().encode('{"hidden_size": 16,') };
    await expect(loadHfCheckpoint(memoryFileSource('mem://g', badJson))).rejects.toThrow(
      /mem:\/\/g\/config\.json: invalid JSON/,
    );
  });

  it('sharded errors: a missing shard file, a tensor absent from the index or from its shard, a truncated shard', async () => {
    const values = randomTensors();
    const files = shardedFolder(values);
    const noShard = { ...files };
    delete noShard['model-00002-of-00002.safetensors'];
    await expect(loadHfCheckpoint(memoryFileSource('mem://s', noShard))).rejects.toThrow(
      'mem://s/model-00002-of-00002.safetensors: file not found (listed in model.safetensors.index.json)',
    );
    const index = JSON.parse(new TextDecoder().decode(files['model.safetensors.index.json']));
    delete index.weight_map['model.norm.weight'];
    await expect(
      loadHfCheckpoint(memoryFileSource('mem://s', { ...files, 'model.safetensors.index.json': json(index) })),
    ).rejects.toThrow(/model\.safetensors\.index\.json: missing tensor "model\.norm\.weight" \[16\] in weight_map/);
    const truncated = {
      ...files,
      'model-00001-of-00002.safetensors': files['model-00001-of-00002.safetensors'].subarray(0, 100),
    };
    await expect(loadHfCheckpoint(memoryFileSource('mem://s', truncated))).rejects.toThrow(
      /mem:\/\/s\/model-00001-of-00002\.safetensors: (truncated|invalid JSON)/,
    );
    // the index claims a tensor of shard 2 lives in shard 1
    const index2 = JSON.parse(new TextDecoder().decode(files['model.safetensors.index.json']));
    const moved = Object.keys(index2.weight_map).find(
      (n) => index2.weight_map[n] === 'model-00002-of-00002.safetensors',
    )!;
    index2.weight_map[moved] = 'model-00001-of-00002.safetensors';
    const wrongShard = { ...files, 'model.safetensors.index.json': json(index2) };
    await expect(loadHfCheckpoint(memoryFileSource('mem://s', wrongShard))).rejects.toThrow(
      `mem://s/model-00001-of-00002.safetensors: missing tensor "${moved}"`,
    );
  });

  it('full weights round trip through serializeModelWeights / deserializeModelWeights', async () => {
    const values = randomTensors();
    const ckpt = await loadHfCheckpoint(
      memoryFileSource('mem://rt', {
        'config.json': json(TINY),
        'model.safetensors': writeSafetensors(toWritable(values, 'F32')),
      }),
    );
    const bytes = serializeModelWeights(ckpt.weights);
    const back = deserializeModelWeights(bytes, ckpt.config, 'full.safetensors');
    expect(back).toEqual(ckpt.weights);
    expect(() => deserializeModelWeights(bytes, { ...ckpt.config, intermediateSize: 32 }, 'full.safetensors')).toThrow(
      /full\.safetensors: tensor "model\.layers\.0\.mlp\.(gate|up|down)_proj\.weight" has shape/,
    );
  });
});

describe('model footprint', () => {
  it('counts Qwen2.5-0.5B-Instruct at 494M parameters and refuses a backend that is too small, with the numbers', async () => {
    const { modelFootprint, checkModelFits } = await import('../../../src/engine/io/model-size.ts');
    const config = parseHfConfig(QWEN25_05B_INSTRUCT);
    const f = modelFootprint(config, 2);
    expect(f.parameters).toBe(494_032_768); // the published parameter count of Qwen2.5-0.5B (tied head counted once)
    expect(f.largestTensor).toEqual({ name: 'model.embed_tokens.weight', bytes: 151936 * 896 * 2 });
    expect(f.kvCacheBytesPerToken).toBe(2 * 24 * 2 * 64 * 4);
    const limits = { maxBufferSize: 2 ** 30, maxStorageBufferBindingSize: 2 ** 30, maxTotalBytes: 2 ** 30 };
    expect(() => checkModelFits(config, limits, { where: 'hf://Qwen/Qwen2.5-0.5B-Instruct' })).toThrow(
      'hf://Qwen/Qwen2.5-0.5B-Instruct: the model does not fit: it needs 1.8 GiB (494,032,768 parameters at 4 bytes) but the backend allows 1.0 GiB',
    );
    expect(checkModelFits(config, limits, { bytesPerWeight: 2 }).weightBytes).toBe(988_065_536);
  });
});
