// CPU AdamW (kernels `adamw`, `adamwPrepare`, `adamwApply`): Adam with decoupled weight decay and bias correction
// (Loshchilov & Hutter; the same update as torch.optim.AdamW). On flat tensors p, g, m, v of n elements; step t is
// 1-based. adamwPrepare / adamwApply are the optimiser's device-side step (optim/adamw.ts): the clip factor, the
// non-finite skip and the step number live in a small `state` tensor, so no backend reads anything back per step.
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
  adamwUpdate(
    p,
    g,
    m,
    v,
    n,
    lr,
    beta1,
    beta2,
    eps,
    weightDecay,
    1 - Math.pow(beta1, step),
    1 - Math.pow(beta2, step),
    gradScale,
  );
}

/** `adamw` with the bias corrections bc1 = 1 - beta1^t and bc2 = 1 - beta2^t given. */
export function adamwUpdate(
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
  bc1: number,
  bc2: number,
  gradScale: number,
): void {
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

/**
 * Layout of the optimiser's state tensor (f32), shared by the CPU, WASM and WGSL kernels:
 * - [STEP]: updates applied so far (the device's step count; exact in f32 up to 2^24)
 * - [APPLY .. APPLY+4]: the current step as adamwPrepare decided it: applied (1/0), gradScale, lr, bc1, bc2
 * - [RECORDS + 2j, +1]: Σ g² and applied (1/0) of the j-th step since the host last read the records
 * - [table(capacity) + 3i, +1, +2]: lr, bc1, bc2 of step `known + 1 + i` (uploaded by the host, one entry per step)
 */
export const ADAMW_STATE = { STEP: 0, APPLY: 1, RECORDS: 8 } as const;

/** Index of the lr / bias-correction table in a state tensor holding `capacity` records. */
export function adamwTableAt(capacity: number): number {
  return ADAMW_STATE.RECORDS + 2 * capacity;
}

/** Elements of a state tensor holding `capacity` records (and capacity + 1 table entries). */
export function adamwStateSize(capacity: number): number {
  return adamwTableAt(capacity) + 3 * (capacity + 1);
}

/** The clip factor for a gradient norm (null: not finite, skip the update). */
export function clipScale(norm: number, clip: number): number | null {
  if (!Number.isFinite(norm)) return null;
  return clip > 0 && Number.isFinite(clip) && norm > clip ? clip / (norm + 1e-6) : 1;
}

/**
 * One step's decision (catalog `adamwPrepare`), on one thread: records Σ g² = normSq[0] and whether it is finite
 * as record `record`; when finite, the step applies: gradScale from the clip, lr / bc1 / bc2 from table entry
 * (state[STEP] - known), and state[STEP] += 1; when not, applied = 0 and nothing else changes.
 */
export function adamwPrepare(
  normSq: Float32Array,
  state: Float32Array,
  known: number,
  record: number,
  capacity: number,
  clip: number,
): void {
  const { STEP, APPLY, RECORDS } = ADAMW_STATE;
  const sq = normSq[0];
  state[RECORDS + 2 * record] = sq;
  const scale = clipScale(Math.sqrt(sq), clip);
  state[RECORDS + 2 * record + 1] = scale === null ? 0 : 1;
  state[APPLY] = scale === null ? 0 : 1;
  if (scale === null) return;
  const entry = adamwTableAt(capacity) + 3 * (state[STEP] - known);
  state[APPLY + 1] = scale;
  state.copyWithin(APPLY + 2, entry, entry + 3);
  state[STEP] += 1;
}

/** `adamwUpdate` with what adamwPrepare decided (catalog `adamwApply`); nothing changes when the step is skipped. */
export function adamwApply(
  p: Float32Array,
  g: Float32Array,
  m: Float32Array,
  v: Float32Array,
  state: Float32Array,
  n: number,
  beta1: number,
  beta2: number,
  eps: number,
  weightDecay: number,
): void {
  const a = ADAMW_STATE.APPLY;
  if (state[a] === 0) return;
  adamwUpdate(p, g, m, v, n, state[a + 2], beta1, beta2, eps, weightDecay, state[a + 3], state[a + 4], state[a + 1]);
}
