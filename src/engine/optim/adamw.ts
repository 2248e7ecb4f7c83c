// AdamW over a list of (parameter, gradient) tensors on a backend: global gradient-norm clipping (sumSquares,
// one scalar read back), decoupled weight decay and bias correction (the `adamw` kernel), a learning-rate
// schedule, and save/load of the moments as safetensors so runs can resume.
import type { Backend, Tensor } from '../backend.ts';
import { readF32, zeroTensor, zeros } from '../model/device-ops.ts';
import { assertFinite } from '../io/finite.ts';
import { parseSafetensors, toFloat32, writeSafetensors, type WritableTensor } from '../io/safetensors.ts';
import { learningRate, validateSchedule, type LrSchedule } from './schedule.ts';

export interface AdamWOptions {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  /** decoupled weight decay; applied only to slots with decay = true (matrices, not norms or biases) */
  weightDecay: number;
  /** clip the global gradient L2 norm to this value; 0 or Infinity disables */
  gradClip: number;
  schedule: LrSchedule;
}

export interface ParamSlot {
  name: string;
  param: Tensor;
  grad: Tensor;
  decay: boolean;
}

export interface AdamWStepResult {
  /** global L2 norm of the gradients before clipping */
  gradNorm: number;
  lr: number;
  /** false when the gradient norm was not finite and the update was skipped */
  applied: boolean;
}

export class AdamW {
  private readonly m: Tensor[];
  private readonly v: Tensor[];
  private readonly normScratch: Tensor;
  /** number of updates applied so far */
  stepCount = 0;

  constructor(
    private readonly be: Backend,
    readonly options: AdamWOptions,
    readonly slots: readonly ParamSlot[],
  ) {
    validateAdamW(options);
    this.m = slots.map((s) => zeros(be, s.param.shape, `adam.m:${s.name}`));
    this.v = slots.map((s) => zeros(be, s.param.shape, `adam.v:${s.name}`));
    this.normScratch = zeros(be, [1], 'adam.normSquared');
  }

  zeroGrad(): void {
    for (const s of this.slots) zeroTensor(this.be, s.grad);
  }

  /** Global L2 norm of all gradients. */
  async gradNorm(): Promise<number> {
    this.slots.forEach((s, i) => {
      this.be.run('sumSquares', { t: { x: s.grad, out: this.normScratch }, p: { n: s.grad.size, accumulate: i === 0 ? 0 : 1 } });
    });
    if (this.slots.length === 0) return 0;
    const sq = (await readF32(this.be, this.normScratch))[0];
    return Math.sqrt(sq);
  }

  async step(): Promise<AdamWStepResult> {
    const o = this.options;
    const gradNorm = await this.gradNorm();
    const lr = learningRate(o.lr, o.schedule, this.stepCount + 1);
    if (!Number.isFinite(gradNorm)) return { gradNorm, lr, applied: false };
    const clip = o.gradClip > 0 && Number.isFinite(o.gradClip) && gradNorm > o.gradClip ? o.gradClip / (gradNorm + 1e-6) : 1;
    this.stepCount++;
    this.slots.forEach((s, i) => {
      this.be.run('adamw', {
        t: { p: s.param, g: s.grad, m: this.m[i], v: this.v[i] },
        p: {
          n: s.param.size, lr, beta1: o.beta1, beta2: o.beta2, eps: o.eps,
          weightDecay: s.decay ? o.weightDecay : 0, step: this.stepCount, gradScale: clip,
        },
      });
    });
    return { gradNorm, lr, applied: true };
  }

  /** Moments and step count as safetensors (keys m.<name>, v.<name>; metadata step). */
  async saveState(extraMetadata: Record<string, string> = {}): Promise<Uint8Array> {
    const tensors = new Map<string, WritableTensor>();
    for (let i = 0; i < this.slots.length; i++) {
      const s = this.slots[i];
      tensors.set(`m.${s.name}`, { dtype: 'F32', shape: s.param.shape, data: await readF32(this.be, this.m[i]) });
      tensors.set(`v.${s.name}`, { dtype: 'F32', shape: s.param.shape, data: await readF32(this.be, this.v[i]) });
    }
    return writeSafetensors(tensors, { ...extraMetadata, step: String(this.stepCount), format: 'rema-adamw' });
  }

  /** Inverse of saveState; every slot must be present with its shape and finite. Returns the file's metadata. */
  loadState(bytes: Uint8Array, fileName = 'optimizer.safetensors'): Record<string, string> {
    const file = parseSafetensors(bytes, fileName);
    const step = Number(file.metadata['step']);
    if (!Number.isInteger(step) || step < 0) throw new Error(`${fileName}: metadata "step" is missing or not an integer`);
    const loaded: Array<[Tensor, Float32Array]> = [];
    this.slots.forEach((s, i) => {
      for (const [kind, dst] of [['m', this.m[i]], ['v', this.v[i]]] as const) {
        const key = `${kind}.${s.name}`;
        const t = file.tensors.get(key);
        if (!t) throw new Error(`${fileName}: missing tensor "${key}"`);
        if (t.shape.length !== s.param.shape.length || t.shape.some((d, j) => d !== s.param.shape[j])) {
          throw new Error(`${fileName}: "${key}" has shape [${t.shape.join(', ')}], expected [${s.param.shape.join(', ')}]`);
        }
        const values = toFloat32(t, fileName, key);
        assertFinite(values, fileName, key);
        loaded.push([dst, values]);
      }
    });
    for (const [dst, data] of loaded) this.be.upload(dst, data);
    this.stepCount = step;
    return file.metadata;
  }

  free(): void {
    for (const t of [...this.m, ...this.v, this.normScratch]) this.be.free(t);
  }
}

function bad(field: string, value: number, rule: string): Error {
  return new Error(`optimizer: ${field} ${rule}, got ${value}`);
}

export function validateAdamW(o: AdamWOptions): void {
  if (!(o.lr >= 0)) throw bad('lr', o.lr, 'must be >= 0');
  if (!(o.beta1 >= 0 && o.beta1 < 1)) throw bad('beta1', o.beta1, 'must be in [0, 1)');
  if (!(o.beta2 >= 0 && o.beta2 < 1)) throw bad('beta2', o.beta2, 'must be in [0, 1)');
  if (!(o.eps > 0)) throw bad('eps', o.eps, 'must be > 0');
  if (!(o.weightDecay >= 0)) throw bad('weightDecay', o.weightDecay, 'must be >= 0');
  if (!(o.gradClip >= 0)) throw bad('gradClip', o.gradClip, 'must be >= 0 (0 disables)');
  validateSchedule(o.schedule);
}
