// Moving LoRA adapters between the device and PEFT's host layout (io/peft.ts): save a trained adapter as
// adapter_config.json + adapter_model.safetensors, and load one back onto the device.
import type { Backend } from '../backend.ts';
import type { ModelConfig } from './config.ts';
import { buildAdapter, LORA_MODULE, type LoraAdapter, type LoraTarget } from './lora.ts';
import { tensorFrom, readF32 } from './device-ops.ts';
import { loraScaling, type LoraAdapter as PeftAdapter, type LoraTarget as PeftTarget } from '../io/peft.ts';

const toPeftTarget = (t: LoraTarget): PeftTarget => `${t}_proj` as PeftTarget;

/** Device adapter -> PEFT host adapter (rank, alpha, targets, A/B per module path). */
export async function adapterToPeft(be: Backend, adapter: LoraAdapter, baseModel: string | null): Promise<PeftAdapter> {
  const modules = new Map<string, { a: Float32Array; b: Float32Array }>();
  for (let l = 0; l < adapter.layers.length; l++) {
    for (const t of adapter.targets) {
      const pair = adapter.layers[l][t]!;
      modules.set(`model.layers.${l}.${LORA_MODULE[t]}`, {
        a: await readF32(be, pair.A),
        b: await readF32(be, pair.B),
      });
    }
  }
  const useRslora = Math.abs(adapter.scale - adapter.alpha / adapter.rank) > 1e-12 * Math.abs(adapter.scale);
  return {
    config: {
      rank: adapter.rank,
      alpha: adapter.alpha,
      targets: adapter.targets.map(toPeftTarget),
      useRslora,
      dropout: 0,
      baseModel,
    },
    modules,
  };
}

/** PEFT host adapter -> device adapter named `name` (scale alpha/r, or alpha/sqrt(r) with rsLoRA). */
export function adapterFromPeft(be: Backend, cfg: ModelConfig, name: string, peft: PeftAdapter): LoraAdapter {
  const targets = peft.config.targets.map((t) => t.replace(/_proj$/, ''));
  const adapter = buildAdapter(
    cfg,
    { name, rank: peft.config.rank, alpha: peft.config.alpha, targets, seed: 0 },
    (key, shape, kind) => {
      const path = key.slice('base_model.model.'.length, -'.lora_A.weight'.length);
      const pair = peft.modules.get(path);
      if (!pair) throw new Error(`LoRA adapter "${name}": no weights for module "${path}"`);
      return tensorFrom(be, shape, kind === 'A' ? pair.a : pair.b, `lora:${name}:${key}`);
    },
  );
  adapter.scale = loraScaling(peft.config);
  return adapter;
}
