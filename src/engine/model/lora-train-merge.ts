// Training passes of a small model run each LoRA projection on its merged weight W' = W + s·B·A: the forward
// y = x W'^T is one matmul instead of x W^T + s·(x A^T) B^T, and the input gradient dx = dy W' one instead of
// dy W + s·(dy B) A. The low-rank products the adapter's gradients need stay: xa = x A^T (for dB) and dy B (for dA).
// The merged weights are formed when a training pass starts (an adapter changes only at the optimiser step) and
// freed with the pass: per layer and target lora-merge.ts's mergeProjection, as the inference copy is formed, so
// both hold the same bits.
// Taken only where the base is f32 and each layer's targeted weights are small (TRAIN_MERGE_MAX_LAYER_FLOATS): there
// the two rank-r products per projection over the pass's rows cost more than the merge (both are memory-bound at
// r = 8: they stream [rows, in] and [rows, out] to do 1/8 of a row's multiply-adds), and the copy is a few hundred
// KiB. Over a large model the copy would take the memory the low-rank form saves, for little time.
import type { Backend, Tensor } from '../backend.ts';
import type { ModelConfig } from './config.ts';
import type { DecoderParams } from './params.ts';
import { projectionDims, type LoraAdapter, type LoraTarget } from './lora.ts';
import type { TensorScope } from './device-ops.ts';
import { mergeProjection } from './lora-merge.ts';

/** Largest Σ nIn·nOut over one layer's targeted projections that training merges (tiny-rema: 46k). */
export const TRAIN_MERGE_MAX_LAYER_FLOATS = 65536;

/** One layer's merged weights W' [nOut, nIn] per targeted projection. */
export type MergedLayer = Partial<Record<LoraTarget, Tensor>>;

/** Floats of one layer's merged weights for these targets. */
export function trainMergeLayerFloats(cfg: ModelConfig, targets: readonly LoraTarget[]): number {
  return targets.reduce((n, t) => {
    const { nIn, nOut } = projectionDims(cfg, t);
    return n + nIn * nOut;
  }, 0);
}

/** Whether training passes merge an adapter with these targets (the planner asks too, plan/memory.ts). */
export function mergesInTraining(cfg: ModelConfig, targets: readonly LoraTarget[], baseF32: boolean): boolean {
  return baseF32 && trainMergeLayerFloats(cfg, targets) <= TRAIN_MERGE_MAX_LAYER_FLOATS;
}

/** Every layer's merged weights as tensors of `scope`, or null where training does not merge this adapter. */
export function mergeForTraining(
  be: Backend,
  scope: TensorScope,
  cfg: ModelConfig,
  params: DecoderParams,
  adapter: LoraAdapter,
): MergedLayer[] | null {
  if (
    !mergesInTraining(
      cfg,
      adapter.targets,
      params.layers.every((l) => l.q.dtype === 'f32'),
    )
  )
    return null;
  return params.layers.map((layer, l) => {
    const merged: MergedLayer = {};
    for (const t of adapter.targets) {
      const pair = adapter.layers[l][t];
      if (!pair) continue;
      const { nIn, nOut } = projectionDims(cfg, t);
      merged[t] = scope.alloc([nOut, nIn], `trainMerge.${l}.${t}`);
      mergeProjection(be, layer[t], pair, adapter, merged[t]);
    }
    return merged;
  });
}
