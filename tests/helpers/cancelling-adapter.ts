// The rank-2 LoRA the golden suites run with: on every projection, A's two rows equal and B's two columns opposite,
// so B·A = 0 exactly in f32 (b·a + (-b)·a) and the adapted model is the golden model, while A and B are not zero (the
// adapters' gradients are real). `host` keeps the uploaded values by parameter key.
import type { Backend } from '../../src/engine/backend.ts';
import type { ModelConfig } from '../../src/engine/model/config.ts';
import { createLoraAdapter, LORA_MODULE, namedLoraParameters } from '../../src/engine/model/lora.ts';
import { Rng } from '../../src/util/rng.ts';

export function cancellingAdapter(be: Backend, cfg: ModelConfig) {
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
