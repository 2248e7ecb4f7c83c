// How many token rows one forward or backward pass may hold on a backend whose kernels bind at most
// maxStorageBufferBindingSize bytes of a tensor (the WebGPU spec's default is 128 MiB). Activations as wide as the
// MLP ([R, F], [R, 2F]) may be split over buffers by rows (the row-wise kernels and the matmuls walk the pieces);
// the attention side's are read whole by their kernels: x and its norms [R, D], q and o [R, H·Dh], and the fused
// path's [R, (H + 2Hkv)·Dh] projection. Scoring and training chunks (policy/engine-policy.ts) and prefill passes
// (model/generate.ts) are capped at passRowLimit rows, so each of those fits one binding.
import type { ModelConfig } from './config.ts';

/** Bytes of the widest activation row that a kernel needs in one buffer (f32). */
export function widestBoundRowBytes(cfg: ModelConfig): number {
  const { hiddenSize: D, numHeads: H, numKvHeads: Hkv, headDim: Dh } = cfg;
  return 4 * Math.max(D, H * Dh, (H + 2 * Hkv) * Dh);
}

/** The most rows (tokens over all sequences) one pass may hold under `bindingBytes` (Infinity when unbounded). */
export function passRowLimit(cfg: ModelConfig, bindingBytes: number): number {
  if (!Number.isFinite(bindingBytes)) return Infinity;
  return Math.max(1, Math.floor(bindingBytes / widestBoundRowBytes(cfg)));
}
