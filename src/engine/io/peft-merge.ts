// A PEFT LoRA adapter merged into full weights on the host: W' = W + s·B·A for every adapted module
// (s = loraScaling: alpha / r, or alpha / sqrt(r) with rsLoRA), so a fine-tuned adapter becomes a plain model
// folder that any loader (this engine, transformers, vLLM, verl) reads without PEFT. The base map is not modified;
// a base loaded with keep16Bit is widened to float32 (the result is float32 throughout).
//   W [out, in], A [r, in], B [out, r], all row-major f32.

import type { HostWeights, ModelWeights } from '../model/config.ts';
import { widenWeights } from './host-weights.ts';
import { loraScaling, type LoraAdapter } from './peft.ts';

export function mergePeftIntoWeights(hostBase: HostWeights, adapter: LoraAdapter): ModelWeights {
  const base = widenWeights(hostBase);
  const merged: ModelWeights = new Map(base);
  const s = loraScaling(adapter.config);
  const r = adapter.config.rank;
  for (const [path, { a, b }] of adapter.modules) {
    const name = `${path}.weight`;
    const w = base.get(name);
    if (!w) throw new Error(`mergePeftIntoWeights: the adapter's module ${path} has no base weight ${name}`);
    const [out, inn] = w.shape;
    if (a.length !== r * inn || b.length !== out * r)
      throw new Error(
        `mergePeftIntoWeights: ${path}: A has ${a.length} values and B ${b.length}, expected ${r}x${inn} and ${out}x${r}`,
      );
    const data = Float32Array.from(w.data);
    for (let o = 0; o < out; o++) {
      const row = o * inn;
      for (let k = 0; k < r; k++) {
        const sb = s * b[o * r + k];
        if (sb === 0) continue;
        const ak = k * inn;
        for (let i = 0; i < inn; i++) data[row + i] += sb * a[ak + i];
      }
    }
    merged.set(name, { shape: [...w.shape], data });
  }
  return merged;
}
