// LoRA adapters in the PEFT layout, so an adapter trained here loads in Python with
// `PeftModel.from_pretrained(base, folder)` and back:
//   adapter_config.json        {"peft_type": "LORA", "task_type": "CAUSAL_LM", "r", "lora_alpha", "target_modules", ...}
//   adapter_model.safetensors  base_model.model.model.layers.{l}.self_attn.q_proj.lora_A.weight  [r, in]
//                              base_model.model.model.layers.{l}.self_attn.q_proj.lora_B.weight  [out, r]
// The update of a target module is  W' = W + (alpha / r) · B · A  (alpha / sqrt(r) with rsLoRA).
import type { ModelConfig } from '../model/config.ts';
import { assertFinite } from './finite.ts';
import { parseSafetensors, toFloat32, writeSafetensors, type WritableTensor } from './safetensors.ts';

export type LoraTarget = 'q_proj' | 'k_proj' | 'v_proj' | 'o_proj' | 'gate_proj' | 'up_proj' | 'down_proj';
export const LORA_TARGETS: readonly LoraTarget[] = [
  'q_proj',
  'k_proj',
  'v_proj',
  'o_proj',
  'gate_proj',
  'up_proj',
  'down_proj',
];

const MLP_TARGETS = new Set<LoraTarget>(['gate_proj', 'up_proj', 'down_proj']);

export interface LoraConfig {
  /** rank r */
  rank: number;
  /** lora_alpha */
  alpha: number;
  targets: LoraTarget[];
  /** scaling alpha / sqrt(r) instead of alpha / r */
  useRslora: boolean;
  dropout: number;
  baseModel: string | null;
}

/** One adapted linear layer: A [r, in], B [out, r], row-major float32. */
export interface LoraPair {
  a: Float32Array;
  b: Float32Array;
}

export interface LoraAdapter {
  config: LoraConfig;
  /** keyed by module path, e.g. "model.layers.0.self_attn.q_proj" */
  modules: Map<string, LoraPair>;
}

export const ADAPTER_CONFIG_FILE = 'adapter_config.json';
export const ADAPTER_WEIGHTS_FILE = 'adapter_model.safetensors';
const KEY_PREFIX = 'base_model.model.';

export function loraScaling(config: LoraConfig): number {
  return config.useRslora ? config.alpha / Math.sqrt(config.rank) : config.alpha / config.rank;
}

/** [out, in] of a target module's base weight. */
export function targetShape(model: ModelConfig, target: LoraTarget): [number, number] {
  const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: Dh } = model;
  switch (target) {
    case 'q_proj':
      return [H * Dh, D];
    case 'k_proj':
    case 'v_proj':
      return [Hkv * Dh, D];
    case 'o_proj':
      return [D, H * Dh];
    case 'gate_proj':
    case 'up_proj':
      return [F, D];
    case 'down_proj':
      return [D, F];
  }
}

/** "model.layers.{l}.self_attn.q_proj" etc. for every layer and target, in layer order. */
export function loraModulePaths(
  model: ModelConfig,
  targets: readonly LoraTarget[],
): Array<{ path: string; target: LoraTarget }> {
  const out: Array<{ path: string; target: LoraTarget }> = [];
  for (let l = 0; l < model.numLayers; l++) {
    for (const target of LORA_TARGETS) {
      if (!targets.includes(target)) continue;
      const block = MLP_TARGETS.has(target) ? 'mlp' : 'self_attn';
      out.push({ path: `model.layers.${l}.${block}.${target}`, target });
    }
  }
  return out;
}

/** The adapter's two files, as PEFT writes them. */
export function buildPeftAdapter(adapter: LoraAdapter, model: ModelConfig): Record<string, Uint8Array> {
  const { config } = adapter;
  const adapterConfig = {
    alpha_pattern: {},
    auto_mapping: null,
    base_model_name_or_path: config.baseModel,
    bias: 'none',
    fan_in_fan_out: false,
    inference_mode: true,
    init_lora_weights: true,
    layers_pattern: null,
    layers_to_transform: null,
    lora_alpha: config.alpha,
    lora_dropout: config.dropout,
    modules_to_save: null,
    peft_type: 'LORA',
    r: config.rank,
    rank_pattern: {},
    revision: null,
    target_modules: [...config.targets],
    task_type: 'CAUSAL_LM',
    use_dora: false,
    use_rslora: config.useRslora,
  };
  const tensors = new Map<string, WritableTensor>();
  for (const { path, target } of loraModulePaths(model, config.targets)) {
    const pair = adapter.modules.get(path);
    if (!pair) throw new Error(`buildPeftAdapter: no LoRA weights for "${path}" (target_modules includes ${target})`);
    const [out, inp] = targetShape(model, target);
    if (pair.a.length !== config.rank * inp)
      throw new Error(
        `buildPeftAdapter: "${path}" lora_A has ${pair.a.length} values, expected [${config.rank}, ${inp}]`,
      );
    if (pair.b.length !== out * config.rank)
      throw new Error(
        `buildPeftAdapter: "${path}" lora_B has ${pair.b.length} values, expected [${out}, ${config.rank}]`,
      );
    tensors.set(`${KEY_PREFIX}${path}.lora_A.weight`, { dtype: 'F32', shape: [config.rank, inp], data: pair.a });
    tensors.set(`${KEY_PREFIX}${path}.lora_B.weight`, { dtype: 'F32', shape: [out, config.rank], data: pair.b });
  }
  return {
    [ADAPTER_CONFIG_FILE]: new TextEncoder().encode(JSON.stringify(adapterConfig, null, 2) + '\n'),
    [ADAPTER_WEIGHTS_FILE]: writeSafetensors(tensors, { format: 'pt' }),
  };
}

/** Validate and normalise adapter_config.json. */
export function parseLoraConfig(json: unknown, fileName = ADAPTER_CONFIG_FILE): LoraConfig {
  const fail = (field: string, problem: string): never => {
    throw new Error(`${fileName}: field "${field}" ${problem}`);
  };
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error(`${fileName}: expected a JSON object`);
  const c = json as Record<string, unknown>;
  if (c.peft_type !== 'LORA') fail('peft_type', `must be "LORA", got ${JSON.stringify(c.peft_type)}`);
  if (c.task_type !== undefined && c.task_type !== null && c.task_type !== 'CAUSAL_LM')
    fail('task_type', `must be "CAUSAL_LM", got ${JSON.stringify(c.task_type)}`);
  if (!Number.isSafeInteger(c.r) || (c.r as number) <= 0)
    fail('r', `must be a positive integer, got ${JSON.stringify(c.r)}`);
  const alpha = c.lora_alpha ?? 8;
  if (typeof alpha !== 'number' || !(alpha > 0))
    fail('lora_alpha', `must be a positive number, got ${JSON.stringify(alpha)}`);
  let targets: LoraTarget[];
  if (c.target_modules === 'all-linear') targets = [...LORA_TARGETS];
  else if (Array.isArray(c.target_modules) && c.target_modules.length > 0) {
    for (const t of c.target_modules) {
      if (!LORA_TARGETS.includes(t as LoraTarget))
        fail(
          'target_modules',
          `contains unsupported module ${JSON.stringify(t)} (supported: ${LORA_TARGETS.join(', ')})`,
        );
    }
    targets = LORA_TARGETS.filter((t) => (c.target_modules as string[]).includes(t));
  } else
    return fail(
      'target_modules',
      `must be a non-empty list of module names or "all-linear", got ${JSON.stringify(c.target_modules)}`,
    );
  if (c.use_dora === true) fail('use_dora', 'true is not supported (DoRA)');
  if (c.fan_in_fan_out === true) fail('fan_in_fan_out', 'true is not supported (Llama/Qwen2 use nn.Linear)');
  if (c.bias !== undefined && c.bias !== 'none') fail('bias', `must be "none", got ${JSON.stringify(c.bias)}`);
  for (const field of ['rank_pattern', 'alpha_pattern'] as const) {
    const v = c[field];
    if (v !== undefined && v !== null && (typeof v !== 'object' || Object.keys(v).length > 0))
      fail(field, 'must be empty (per-module ranks are not supported)');
  }
  for (const field of ['layers_to_transform', 'modules_to_save'] as const) {
    if (c[field] !== undefined && c[field] !== null) fail(field, `must be null, got ${JSON.stringify(c[field])}`);
  }
  const useRslora = c.use_rslora === true;
  const dropout = typeof c.lora_dropout === 'number' ? c.lora_dropout : 0;
  const baseModel = typeof c.base_model_name_or_path === 'string' ? c.base_model_name_or_path : null;
  return { rank: c.r as number, alpha: alpha as number, targets, useRslora, dropout, baseModel };
}

/** Parse the two PEFT files (as returned by buildPeftAdapter or read from a folder) against the base model's config. */
export function parsePeftAdapter(files: Record<string, Uint8Array>, model: ModelConfig): LoraAdapter {
  const configBytes = files[ADAPTER_CONFIG_FILE];
  const weightBytes = files[ADAPTER_WEIGHTS_FILE];
  if (!configBytes) throw new Error(`${ADAPTER_CONFIG_FILE}: file missing from the adapter`);
  if (!weightBytes) throw new Error(`${ADAPTER_WEIGHTS_FILE}: file missing from the adapter`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(configBytes));
  } catch (e) {
    throw new Error(`${ADAPTER_CONFIG_FILE}: invalid JSON: ${(e as Error).message}`, { cause: e });
  }
  const config = parseLoraConfig(json);
  const { tensors } = parseSafetensors(weightBytes, ADAPTER_WEIGHTS_FILE);
  const modules = new Map<string, LoraPair>();
  const expected = new Set<string>();
  for (const { path, target } of loraModulePaths(model, config.targets)) {
    const [out, inp] = targetShape(model, target);
    const read = (which: 'lora_A' | 'lora_B', shape: [number, number]): Float32Array => {
      // PEFT writes keys without the adapter name; tolerate ".default" from older in-memory state dicts
      const names = [`${KEY_PREFIX}${path}.${which}.weight`, `${KEY_PREFIX}${path}.${which}.default.weight`];
      const name = names.find((n) => tensors.has(n));
      if (!name)
        throw new Error(
          `${ADAPTER_WEIGHTS_FILE}: missing tensor "${names[0]}" [${shape.join(', ')}] (target_modules includes ${target})`,
        );
      expected.add(name);
      const t = tensors.get(name)!;
      if (t.shape.length !== 2 || t.shape[0] !== shape[0] || t.shape[1] !== shape[1]) {
        throw new Error(
          `${ADAPTER_WEIGHTS_FILE}: tensor "${name}" has shape [${t.shape.join(', ')}] but r=${config.rank} and the base model imply [${shape.join(', ')}]`,
        );
      }
      const values = toFloat32(t, ADAPTER_WEIGHTS_FILE, name);
      assertFinite(values, ADAPTER_WEIGHTS_FILE, name);
      return values;
    };
    modules.set(path, { a: read('lora_A', [config.rank, inp]), b: read('lora_B', [out, config.rank]) });
  }
  const extra = [...tensors.keys()].filter((n) => !expected.has(n));
  if (extra.length > 0) {
    throw new Error(
      `${ADAPTER_WEIGHTS_FILE}: unexpected tensor "${extra[0]}"${extra.length > 1 ? ` and ${extra.length - 1} more` : ''} not implied by adapter_config.json's target_modules and the base model's ${model.numLayers} layers`,
    );
  }
  return { config, modules };
}
