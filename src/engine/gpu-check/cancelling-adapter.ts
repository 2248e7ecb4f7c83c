// A rank-2 LoRA whose update is exactly zero: on every projection A's two rows are equal and B's two columns
// opposite, so B·A = b·a + (-b)·a = 0 in f32 and the adapted model is the base model, while A and B are not zero
// and their gradients are real. The golden fixtures hold only full-weight gradients; with this adapter the LoRA
// gradients follow from them by the chain rule. `host` keeps the uploaded values by PEFT key.
import type { Backend } from '../backend.ts';
import type { ModelConfig } from '../model/config.ts';
import { createLoraAdapter, LORA_MODULE, namedLoraParameters, type LoraAdapter } from '../model/lora.ts';
import { Rng } from '../../util/rng.ts';

export function cancellingAdapter(
  be: Backend,
  cfg: ModelConfig,
): { adapter: LoraAdapter; host: Map<string, Float32Array> } {
  const adapter = createLoraAdapter(be, cfg, {
    name: 'x',
    rank: 2,
    alpha: 3,
    targets: Object.keys(LORA_MODULE),
    seed: 1,
  });
  const rng = new Rng(17);
  const host = new Map<string, Float32Array>();
  for (const [key, t] of namedLoraParameters(adapter)) {
    const [rows, cols] = t.shape;
    const data = new Float32Array(rows * cols);
    if (key.endsWith('lora_A.weight')) {
      for (let i = 0; i < cols; i++) data[i] = data[cols + i] = rng.normal() / Math.sqrt(cols);
    } else {
      for (let o = 0; o < rows; o++) {
        data[o * 2] = 0.5 * rng.normal();
        data[o * 2 + 1] = -data[o * 2];
      }
    }
    be.upload(t, data);
    host.set(key, data);
  }
  return { adapter, host };
}
