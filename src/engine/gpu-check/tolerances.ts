// The GPU self-test's pass bounds, per storage type of the frozen base weights: the worst error a check may show,
// as max |engine - golden| over the golden tensor's max |value|. The golden oracle is float64 PyTorch on the f32
// weights, so f16 storage (every weight rounded to a half) gets looser bounds than f32 arithmetic alone. They are
// the bounds the golden suites hold every backend to (WebGPU's f32 with the factor 2 for FMA and summation order).

export type StorageType = 'f32' | 'f16';

export interface CheckTolerances {
  /** logits, token log-probs, entropies, decoded log-probs */
  outputs: number;
  /** parameter and LoRA gradients */
  gradients: number;
}

export const GPU_CHECK_TOLERANCES: Readonly<Record<StorageType, CheckTolerances>> = {
  f32: { outputs: 4e-5, gradients: 4e-4 },
  f16: { outputs: 2e-3, gradients: 2e-2 },
};
