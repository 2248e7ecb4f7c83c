// Test helper: the tolerances that depend on how the weights are stored, f32 or f16, in one place. A WebGPU
// device with `shader-f16` (lavapipe, wgpu, most GPUs) stores a LoRA policy's frozen base as halves by default, so
// a test compares against the tolerance of the storage the code under test actually used, never of the adapter.
//
// f32 storage: every weight exact, sums in f32 in another order than the reference (the CPU backend partly sums
// in float64; WebGPU's tiled, split-K and subgroup kernels each have their own order). Errors stay near f32's
// rounding: below 1e-5 of a tensor's max per kernel, a few 1e-6 through a tiny model.
// f16 storage: each weight rounded to 11 significant bits (relative error up to 2^-11 = 4.9e-4) before f32
// arithmetic, so the outputs move by about that much, times how many weights feed them. Measured worst on lavapipe:
// a tiny random LoRA policy's log-probs 1.0e-3 of their max and gradient norms 2.5e-4 against the CPU's f32
// (kernels-webgpu-policy, optimizer-stats); golden fixtures 1.1e-3 (outputs) and 4.6e-3 (LoRA gradients) against the
// float64 oracle (golden-f16.test.ts).
// Real bugs give errors of order 1, far above either.

import { GPU_CHECK_TOLERANCES, type StorageType } from '../../src/engine/gpu-check/tolerances.ts';

export type { StorageType };

export interface Tolerance {
  /** logits, log-probs, entropies: max|Δ| / max|reference| */
  outputs: number;
  /** gradients and gradient norms: max|Δ| / max|reference| */
  gradients: number;
}

/** The engine against itself on the CPU backend with f32 weights (policy tests, WebGPU or WASM vs CPU). */
export const VS_CPU: Record<StorageType, Tolerance> = {
  f32: { outputs: 1e-4, gradients: 1e-4 },
  f16: { outputs: 5e-3, gradients: 5e-3 },
};

/** WebGPU (and WASM) against the float64 PyTorch golden fixtures computed with f32 weights: the GPU self-test's
 *  bounds (src/engine/gpu-check/tolerances.ts); golden.test.ts holds the CPU backend to half the f32 ones. */
export const VS_GOLDEN = GPU_CHECK_TOLERANCES;

/** The storage type of a weight dtype, e.g. a policy's `baseDtype`. */
export function storageType(dtype: 'f32' | 'f16' | 'bf16'): StorageType {
  return dtype === 'f32' ? 'f32' : 'f16';
}
