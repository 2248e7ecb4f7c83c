// The decoder's parameters as device tensors, with the Hugging Face name of each, so that uploading a checkpoint,
// cloning a trainable copy (full fine-tuning), allocating matching gradient buffers and saving back to
// safetensors all walk the same list.
import type { Backend, Tensor } from '../backend.ts';
import type { HostWeights, ModelConfig, ModelWeights } from './config.ts';
import { uploadHostTensor } from './host-upload.ts';
import { copyTensor, readF32, zeros } from './device-ops.ts';

/** One decoder layer. Linear weights use the nn.Linear layout W[out, in]. */
export interface LayerParams {
  inputNorm: Tensor; // [D]
  q: Tensor; // [H*Dh, D]
  k: Tensor; // [Hkv*Dh, D]
  v: Tensor; // [Hkv*Dh, D]
  qBias: Tensor | null; // [H*Dh]
  kBias: Tensor | null; // [Hkv*Dh]
  vBias: Tensor | null; // [Hkv*Dh]
  o: Tensor; // [D, H*Dh]
  postNorm: Tensor; // [D]
  gate: Tensor; // [F, D]
  up: Tensor; // [F, D]
  down: Tensor; // [D, F]
}

export interface DecoderParams {
  embed: Tensor; // [V, D]
  layers: LayerParams[];
  finalNorm: Tensor; // [D]
  /** [V, D]; the same tensor as `embed` when the embeddings are tied */
  lmHead: Tensor;
}

/** Expected HF parameter names and shapes for a config (lm_head only when untied). */
export function expectedParameterShapes(config: ModelConfig): Map<string, number[]> {
  const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: Dh, vocabSize: V } = config;
  const shapes = new Map<string, number[]>();
  shapes.set('model.embed_tokens.weight', [V, D]);
  for (let l = 0; l < config.numLayers; l++) {
    const p = `model.layers.${l}.`;
    shapes.set(`${p}input_layernorm.weight`, [D]);
    shapes.set(`${p}self_attn.q_proj.weight`, [H * Dh, D]);
    shapes.set(`${p}self_attn.k_proj.weight`, [Hkv * Dh, D]);
    shapes.set(`${p}self_attn.v_proj.weight`, [Hkv * Dh, D]);
    if (config.attentionBias) {
      shapes.set(`${p}self_attn.q_proj.bias`, [H * Dh]);
      shapes.set(`${p}self_attn.k_proj.bias`, [Hkv * Dh]);
      shapes.set(`${p}self_attn.v_proj.bias`, [Hkv * Dh]);
    }
    shapes.set(`${p}self_attn.o_proj.weight`, [D, H * Dh]);
    shapes.set(`${p}post_attention_layernorm.weight`, [D]);
    shapes.set(`${p}mlp.gate_proj.weight`, [F, D]);
    shapes.set(`${p}mlp.up_proj.weight`, [F, D]);
    shapes.set(`${p}mlp.down_proj.weight`, [D, F]);
  }
  shapes.set('model.norm.weight', [D]);
  if (!config.tieWordEmbeddings) shapes.set('lm_head.weight', [V, D]);
  return shapes;
}

/**
 * The parameter count of expectedParameterShapes, in closed form (no per-layer names: O(1) in the layer count),
 * and how many of them sit in vectors (norms, biases).
 */
export function parameterCounts(config: ModelConfig): { total: number; vectors: number } {
  const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: Dh, vocabSize: V } = config;
  const bias = config.attentionBias ? H * Dh + 2 * Hkv * Dh : 0;
  const layerVectors = 2 * D + bias;
  const layerMatrices = H * Dh * D + 2 * Hkv * Dh * D + D * H * Dh + 3 * F * D;
  const vectors = config.numLayers * layerVectors + D;
  const matrices = V * D + config.numLayers * layerMatrices + (config.tieWordEmbeddings ? 0 : V * D);
  return { total: vectors + matrices, vectors };
}

/** [HF name, tensor] for every distinct parameter (a tied lm_head is listed once, as the embedding). */
export function namedParameters(params: DecoderParams): Array<[string, Tensor]> {
  const out: Array<[string, Tensor]> = [['model.embed_tokens.weight', params.embed]];
  params.layers.forEach((layer, l) => {
    const p = `model.layers.${l}.`;
    out.push([`${p}input_layernorm.weight`, layer.inputNorm]);
    out.push([`${p}self_attn.q_proj.weight`, layer.q]);
    out.push([`${p}self_attn.k_proj.weight`, layer.k]);
    out.push([`${p}self_attn.v_proj.weight`, layer.v]);
    if (layer.qBias) out.push([`${p}self_attn.q_proj.bias`, layer.qBias]);
    if (layer.kBias) out.push([`${p}self_attn.k_proj.bias`, layer.kBias]);
    if (layer.vBias) out.push([`${p}self_attn.v_proj.bias`, layer.vBias]);
    out.push([`${p}self_attn.o_proj.weight`, layer.o]);
    out.push([`${p}post_attention_layernorm.weight`, layer.postNorm]);
    out.push([`${p}mlp.gate_proj.weight`, layer.gate]);
    out.push([`${p}mlp.up_proj.weight`, layer.up]);
    out.push([`${p}mlp.down_proj.weight`, layer.down]);
  });
  out.push(['model.norm.weight', params.finalNorm]);
  if (params.lmHead !== params.embed) out.push(['lm_head.weight', params.lmHead]);
  return out;
}

/** Build a DecoderParams by calling `make(name, shape)` for every parameter in canonical order. */
function buildParams(config: ModelConfig, make: (name: string, shape: number[]) => Tensor): DecoderParams {
  const shapes = expectedParameterShapes(config);
  const get = (name: string): Tensor => make(name, shapes.get(name)!);
  const embed = get('model.embed_tokens.weight');
  const layers: LayerParams[] = [];
  for (let l = 0; l < config.numLayers; l++) {
    const p = `model.layers.${l}.`;
    const bias = (n: string): Tensor | null => (config.attentionBias ? get(`${p}self_attn.${n}_proj.bias`) : null);
    layers.push({
      inputNorm: get(`${p}input_layernorm.weight`),
      q: get(`${p}self_attn.q_proj.weight`),
      k: get(`${p}self_attn.k_proj.weight`),
      v: get(`${p}self_attn.v_proj.weight`),
      qBias: bias('q'),
      kBias: bias('k'),
      vBias: bias('v'),
      o: get(`${p}self_attn.o_proj.weight`),
      postNorm: get(`${p}post_attention_layernorm.weight`),
      gate: get(`${p}mlp.gate_proj.weight`),
      up: get(`${p}mlp.up_proj.weight`),
      down: get(`${p}mlp.down_proj.weight`),
    });
  }
  const finalNorm = get('model.norm.weight');
  const lmHead = config.tieWordEmbeddings ? embed : get('lm_head.weight');
  return { embed, layers, finalNorm, lmHead };
}

/** Upload a checkpoint. Every expected tensor must be present with the configured shape. `dtype` 'f16' / 'bf16'
 *  stores the weights as half floats (a frozen base on WebGPU, or on the WASM backend: half the
 *  memory and bandwidth; kernels still compute and accumulate in f32). 16-bit host tensors (keep16Bit) are stored
 *  as they are or widened a chunk at a time (host-upload.ts), bit for bit as if widened to float32 first. */
export function uploadParams(
  backend: Backend,
  config: ModelConfig,
  weights: HostWeights,
  label = 'base',
  dtype: 'f32' | 'f16' | 'bf16' = 'f32',
): DecoderParams {
  if (dtype === 'f16' && !backend.supportsF16)
    throw new Error(`uploadParams: backend ${backend.description} does not support f16 weights`);
  if (dtype === 'bf16' && !backend.supportsBf16)
    throw new Error(`uploadParams: backend ${backend.description} does not support bf16 weights`);
  const allocated: Tensor[] = [];
  try {
    return buildParams(config, (name, shape) => {
      const w = weights.get(name);
      if (!w) throw new Error(`model weights: missing tensor "${name}" (expected shape [${shape.join(', ')}])`);
      if (w.shape.length !== shape.length || w.shape.some((d, i) => d !== shape[i])) {
        throw new Error(
          `model weights: "${name}" has shape [${w.shape.join(', ')}], config.json implies [${shape.join(', ')}]`,
        );
      }
      const t = backend.alloc(shape, dtype, `${label}:${name}`);
      allocated.push(t);
      uploadHostTensor(backend, t, w);
      return t;
    });
  } catch (err) {
    for (const t of allocated) backend.free(t);
    throw err;
  }
}

/** A device-side copy of `src` (a trainable full fine-tuning copy). */
export function cloneParams(backend: Backend, config: ModelConfig, src: DecoderParams, label: string): DecoderParams {
  const byName = new Map(namedParameters(src));
  return buildParams(config, (name, shape) => {
    const t = backend.alloc(shape, 'f32', `${label}:${name}`);
    copyTensor(backend, byName.get(name)!, t);
    return t;
  });
}

/** Zero-filled tensors shaped like the parameters (gradients, Adam moments). */
export function zerosLikeParams(backend: Backend, config: ModelConfig, label: string): DecoderParams {
  return buildParams(config, (name, shape) => zeros(backend, shape, `${label}:${name}`));
}

export function freeParams(backend: Backend, params: DecoderParams): void {
  for (const [, t] of namedParameters(params)) backend.free(t);
}

/** Read every parameter back to the host, keyed by HF name (tied lm_head omitted, as HF saves it). */
export async function downloadParams(backend: Backend, params: DecoderParams): Promise<ModelWeights> {
  const out: ModelWeights = new Map();
  for (const [name, t] of namedParameters(params))
    out.set(name, { shape: [...t.shape], data: await readF32(backend, t) });
  return out;
}
