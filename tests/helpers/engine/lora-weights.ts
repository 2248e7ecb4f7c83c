// Test helper: a model's weights on a backend with a rank-2 LoRA adapter whose B matrices are random (so the
// adapter changes every output), as the unfused base + LoRA or merged into the fused inference copy.
import type { Backend } from '../../../src/engine/backend.ts';
import type { ModelConfig, ModelWeights } from '../../../src/engine/model/config.ts';
import type { ActiveWeights } from '../../../src/engine/model/decoder.ts';
import { allocMerged } from '../../../src/engine/model/lora-merge.ts';
import { createLoraAdapter, namedLoraParameters, type LoraTarget } from '../../../src/engine/model/lora.ts';
import { uploadParams } from '../../../src/engine/model/params.ts';
import { Rng } from '../../../src/util/rng.ts';

export function loraWeightsOn(
  be: Backend,
  cfg: ModelConfig,
  weights: ModelWeights,
  fused: boolean,
  targets: LoraTarget[] = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'],
): ActiveWeights {
  const params = uploadParams(be, cfg, weights);
  const lora = createLoraAdapter(be, cfg, { name: 'a', rank: 2, alpha: 4, targets, seed: 3 });
  const rng = new Rng(8);
  for (const [name, t] of namedLoraParameters(lora))
    if (name.endsWith('lora_B.weight'))
      be.upload(
        t,
        Float32Array.from({ length: t.size }, () => 0.3 * rng.normal()),
      );
  if (!fused) return { params, lora };
  const merged = allocMerged(be, cfg, params, lora);
  return { params: merged.params, lora: null, fused: merged.fused };
}
