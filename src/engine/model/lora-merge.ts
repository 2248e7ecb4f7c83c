// Inference copies of LoRA-adapted weights: W' = W + (alpha/r)·B·A for every targeted projection, so generation
// and scoring run the plain decoder (no extra low-rank matmuls per projection and step). Untargeted tensors are
// shared with the base. The copy is refreshed after each optimiser step; training still uses the unmerged form.
import type { Backend, Tensor } from '../backend.ts';
import type { ModelConfig } from './config.ts';
import type { DecoderParams, LayerParams } from './params.ts';
import { projectionDims, type LoraAdapter } from './lora.ts';
import { copyTensor } from './device-ops.ts';

export interface MergedWeights {
  params: DecoderParams;
  /** tensors owned by the merged copy (the targeted projections) */
  owned: Tensor[];
}

/** Bytes a merged copy of `adapter`'s targets costs. */
export function mergedBytes(cfg: ModelConfig, adapter: LoraAdapter): number {
  return 4 * cfg.numLayers * adapter.targets.reduce((s, t) => {
    const { nIn, nOut } = projectionDims(cfg, t);
    return s + nIn * nOut;
  }, 0);
}

export function allocMerged(be: Backend, base: DecoderParams, adapter: LoraAdapter): MergedWeights {
  const owned: Tensor[] = [];
  const layers = base.layers.map((layer, l): LayerParams => {
    const copy = { ...layer };
    for (const t of adapter.targets) {
      const w = be.alloc(layer[t].shape, 'f32', `merged:${adapter.name}:layers.${l}.${t}`);
      owned.push(w);
      copy[t] = w;
    }
    return copy;
  });
  return { params: { ...base, layers }, owned };
}

/** merged W := base W + s·B·A for every target (B[out,r] @ A[r,in]). */
export function refreshMerged(be: Backend, cfg: ModelConfig, base: DecoderParams, adapter: LoraAdapter, merged: MergedWeights): void {
  base.layers.forEach((layer, l) => {
    for (const t of adapter.targets) {
      const dst = merged.params.layers[l][t];
      const pair = adapter.layers[l][t]!;
      const { nIn, nOut } = projectionDims(cfg, t);
      copyTensor(be, layer[t], dst);
      be.run('matmul', {
        t: { a: pair.B, b: pair.A, c: dst },
        p: { M: nOut, N: nIn, K: adapter.rank, transA: 0, transB: 0, alpha: adapter.scale, beta: 1 },
      });
    }
  });
}
