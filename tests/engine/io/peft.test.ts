// PEFT LoRA adapters: build -> parse round trip with HF key names and shapes, and validation errors.
import { describe, expect, it } from 'vitest';
import { parseHfConfig } from '../../../src/engine/io/hf-config.ts';
import {
  ADAPTER_CONFIG_FILE,
  ADAPTER_WEIGHTS_FILE,
  buildPeftAdapter,
  loraModulePaths,
  loraScaling,
  parsePeftAdapter,
  targetShape,
  type LoraAdapter,
  type LoraTarget,
} from '../../../src/engine/io/peft.ts';
import { parseSafetensors, writeSafetensors } from '../../../src/engine/io/safetensors.ts';
import { Rng } from '../../../src/util/rng.ts';

const model = parseHfConfig({
  architectures: ['LlamaForCausalLM'],
  hidden_size: 16,
  intermediate_size: 24,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  vocab_size: 40,
});

function randomAdapter(targets: LoraTarget[], rank = 4): LoraAdapter {
  const rng = new Rng(7);
  const modules = new Map<string, { a: Float32Array; b: Float32Array }>();
  for (const { path, target } of loraModulePaths(model, targets)) {
    const [out, inp] = targetShape(model, target);
    modules.set(path, {
      a: Float32Array.from({ length: rank * inp }, () => rng.next() - 0.5),
      b: Float32Array.from({ length: out * rank }, () => rng.next() - 0.5),
    });
  }
  return {
    config: {
      rank,
      alpha: 8,
      targets,
      useRslora: false,
      dropout: 0.05,
      baseModel: 'HuggingFaceTB/SmolLM2-135M-Instruct',
    },
    modules,
  };
}

describe('PEFT LoRA adapters', () => {
  it('round trips and writes the key names and shapes PEFT uses', () => {
    const adapter = randomAdapter(['q_proj', 'v_proj', 'down_proj']);
    const files = buildPeftAdapter(adapter, model);
    const cfg = JSON.parse(new TextDecoder().decode(files[ADAPTER_CONFIG_FILE]));
    expect(cfg).toMatchObject({
      peft_type: 'LORA',
      task_type: 'CAUSAL_LM',
      r: 4,
      lora_alpha: 8,
      target_modules: ['q_proj', 'v_proj', 'down_proj'],
    });
    expect(cfg.base_model_name_or_path).toBe('HuggingFaceTB/SmolLM2-135M-Instruct');
    const { tensors } = parseSafetensors(files[ADAPTER_WEIGHTS_FILE], ADAPTER_WEIGHTS_FILE);
    expect(tensors.size).toBe(2 * 3 * 2);
    expect(tensors.get('base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight')!.shape).toEqual([4, 16]);
    expect(tensors.get('base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight')!.shape).toEqual([16, 4]);
    expect(tensors.get('base_model.model.model.layers.1.self_attn.v_proj.lora_B.weight')!.shape).toEqual([8, 4]);
    expect(tensors.get('base_model.model.model.layers.1.mlp.down_proj.lora_A.weight')!.shape).toEqual([4, 24]);
    const back = parsePeftAdapter(files, model);
    expect(back).toEqual(adapter);
    expect(loraScaling(back.config)).toBe(2);
  });

  it('accepts "all-linear" and rsLoRA', () => {
    const files = buildPeftAdapter(
      randomAdapter(['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj']),
      model,
    );
    const cfg = JSON.parse(new TextDecoder().decode(files[ADAPTER_CONFIG_FILE]));
    const allLinear = {
      ...files,
      [ADAPTER_CONFIG_FILE]: new TextEncoder().encode(
        JSON.stringify({ ...cfg, target_modules: 'all-linear', use_rslora: true }),
      ),
    };
    const parsed = parsePeftAdapter(allLinear, model);
    expect(parsed.config.targets).toHaveLength(7);
    expect(loraScaling(parsed.config)).toBe(8 / 2);
  });

  it('rejects bad configs and weights with the file, field or tensor named', () => {
    const files = buildPeftAdapter(randomAdapter(['q_proj']), model);
    const cfg = JSON.parse(new TextDecoder().decode(files[ADAPTER_CONFIG_FILE]));
    const withConfig = (c: unknown) => ({
      ...files,
      [ADAPTER_CONFIG_FILE]: new TextEncoder().encode(JSON.stringify(c)),
    });
    expect(() => parsePeftAdapter(withConfig({ ...cfg, peft_type: 'IA3' }), model)).toThrow(
      'adapter_config.json: field "peft_type" must be "LORA", got "IA3"',
    );
    expect(() => parsePeftAdapter(withConfig({ ...cfg, r: 0 }), model)).toThrow(/field "r" must be a positive integer/);
    expect(() => parsePeftAdapter(withConfig({ ...cfg, target_modules: ['qkv_proj'] }), model)).toThrow(
      /field "target_modules" contains unsupported module "qkv_proj"/,
    );
    expect(() => parsePeftAdapter(withConfig({ ...cfg, use_dora: true }), model)).toThrow(/field "use_dora"/);
    expect(() => parsePeftAdapter(withConfig({ ...cfg, rank_pattern: { q_proj: 8 } }), model)).toThrow(
      /field "rank_pattern"/,
    );
    // r=8 in the config but tensors of rank 4
    expect(() => parsePeftAdapter(withConfig({ ...cfg, r: 8 }), model)).toThrow(
      'adapter_model.safetensors: tensor "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight" has shape [4, 16] but r=8 and the base model imply [8, 16]',
    );
    // k_proj listed but absent
    expect(() => parsePeftAdapter(withConfig({ ...cfg, target_modules: ['q_proj', 'k_proj'] }), model)).toThrow(
      /adapter_model\.safetensors: missing tensor "base_model\.model\.model\.layers\.0\.self_attn\.k_proj\.lora_A\.weight" \[4, 16\]/,
    );
    // a tensor for a module not in target_modules
    const { tensors } = parseSafetensors(files[ADAPTER_WEIGHTS_FILE], ADAPTER_WEIGHTS_FILE);
    const extra = new Map(
      [...tensors].map(([n, t]) => [n, { dtype: t.dtype, shape: t.shape, data: t.data as Float32Array }]),
    );
    extra.set('base_model.model.model.layers.0.mlp.up_proj.lora_A.weight', {
      dtype: 'F32',
      shape: [4, 16],
      data: new Float32Array(64),
    });
    expect(() => parsePeftAdapter({ ...files, [ADAPTER_WEIGHTS_FILE]: writeSafetensors(extra) }, model)).toThrow(
      /adapter_model\.safetensors: unexpected tensor "base_model\.model\.model\.layers\.0\.mlp\.up_proj\.lora_A\.weight"/,
    );
    expect(() => parsePeftAdapter({ [ADAPTER_CONFIG_FILE]: files[ADAPTER_CONFIG_FILE] }, model)).toThrow(
      'adapter_model.safetensors: file missing from the adapter',
    );
    expect(() =>
      parsePeftAdapter({ ...files, [ADAPTER_WEIGHTS_FILE]: files[ADAPTER_WEIGHTS_FILE].subarray(0, 50) }, model),
    ).toThrow(/adapter_model\.safetensors: (truncated|invalid JSON)/);
  });
});
