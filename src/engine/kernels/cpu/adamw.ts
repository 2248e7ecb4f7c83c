// CPU AdamW (kernels `adamw`, `adamwClipped`): Adam with decoupled weight decay and bias correction (Loshchilov & Hutter;
// the same update as torch.optim.AdamW). On flat tensors p, g, m, v of n elements; step t is 1-based.
//   g' = gradScale * g                      (global-norm clipping folds into gradScale)
//   m  = beta1 m + (1 - beta1) g'           v = beta2 v + (1 - beta2) g'²
//   p  = p - lr * ( (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps) + weightDecay * p )

export function adamw(
  p: Float32Array,
  g: Float32Array,
  m: Float32Array,
  v: Float32Array,
  n: number,
  lr: number,
  beta1: number,
  beta2: number,
  eps: number,
  weightDecay: number,
  step: number,
  gradScale: number,
): void {
  if (!(step >= 1)) throw new Error(`adamw: step must be >= 1 (1-based), got ${step}`);
  const bc1 = 1 - Math.pow(beta1, step);
  const bc2 = 1 - Math.pow(beta2, step);
  for (let i = 0; i < n; i++) {
    const gi = g[i] * gradScale;
    const mi = beta1 * m[i] + (1 - beta1) * gi;
    const vi = beta2 * v[i] + (1 - beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    const pi = p[i];
    p[i] = pi - lr * (mi / bc1 / (Math.sqrt(vi / bc2) + eps) + weightDecay * pi);
  }
}

/** The clip factor of `adamwClipped` for a gradient norm (null: not finite, skip the update). */
export function clipScale(norm: number, clip: number): number | null {
  if (!Number.isFinite(norm)) return null;
  return clip > 0 && Number.isFinite(clip) && norm > clip ? clip / (norm + 1e-6) : 1;
}

/** `adamw` with the clip factor derived from normSq[0] = Σ g² (catalog `adamwClipped`). */
export function adamwClipped(
  p: Float32Array,
  g: Float32Array,
  m: Float32Array,
  v: Float32Array,
  normSq: Float32Array,
  n: number,
  lr: number,
  beta1: number,
  beta2: number,
  eps: number,
  weightDecay: number,
  step: number,
  clip: number,
): void {
  const scale = clipScale(Math.sqrt(normSq[0]), clip);
  if (scale === null) return;
  adamw(p, g, m, v, n, lr, beta1, beta2, eps, weightDecay, step, scale);
}
