// AdamW over a list of (parameter, gradient) tensors on a backend, as a multi-tensor update: the slots are grouped
// by weight decay (at most two groups), each group's gradients and parameters are packed into one flat tensor
// (`packTensors`: buffer copies on WebGPU, no kernel), the global Σ g² is summed on the device (`sumSquares`) and
// the `adamwClipped` kernel updates a whole group with the clip factor and the non-finite skip decided on the device,
// then the parameters are unpacked. So a step is 3 kernels per group (≤ 6 dispatches on WebGPU, was 3 per
// tensor) and nothing is read back before the update: step() reads the 4-byte Σ g² only after the whole update
// has been recorded and submitted, to return the norm (the Policy contract) and to count applied steps (the bias
// correction's step number). Moments live in one flat tensor per group; save/load keep one tensor per slot.
// Also: a learning-rate schedule, and save/load of the moments as safetensors so runs can resume.
import type { Backend, Tensor } from '../backend.ts';
import { readF32, TensorScope, zeroTensor, zeros } from '../model/device-ops.ts';
import { assertFinite } from '../io/finite.ts';
import { parseSafetensors, toFloat32, writeSafetensors, type WritableTensor } from '../io/safetensors.ts';
import { learningRate, validateSchedule, type LrSchedule } from './schedule.ts';
import { clipScale } from '../kernels/cpu/adamw.ts';

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

/** Slots sharing a weight decay, with their flat moments. */
interface Group {
  decay: boolean;
  slots: ParamSlot[];
  /** element offset of each slot in the flat tensors */
  offsets: number[];
  n: number;
  m: Tensor;
  v: Tensor;
}

export class AdamW {
  private readonly groups: Group[];
  private readonly normScratch: Tensor;
  /** number of updates applied so far */
  stepCount = 0;

  constructor(
    private readonly be: Backend,
    readonly options: AdamWOptions,
    readonly slots: readonly ParamSlot[],
  ) {
    validateAdamW(options);
    this.groups = [true, false].flatMap((decay): Group[] => {
      const mine = slots.filter((s) => s.decay === decay);
      if (mine.length === 0) return [];
      const offsets: number[] = [];
      let n = 0;
      for (const s of mine) {
        offsets.push(n);
        n += s.param.size;
      }
      const tag = decay ? 'decay' : 'noDecay';
      return [
        { decay, slots: mine, offsets, n, m: zeros(be, [n], `adam.m:${tag}`), v: zeros(be, [n], `adam.v:${tag}`) },
      ];
    });
    this.normScratch = zeros(be, [1], 'adam.normSquared');
  }

  zeroGrad(): void {
    for (const s of this.slots) zeroTensor(this.be, s.grad);
  }

  /** Global L2 norm of all gradients (reads one scalar back). */
  async gradNorm(): Promise<number> {
    if (this.slots.length === 0) return 0;
    this.slots.forEach((s, i) => {
      this.be.run('sumSquares', {
        t: { x: s.grad, out: this.normScratch },
        p: { n: s.grad.size, accumulate: i === 0 ? 0 : 1 },
      });
    });
    return Math.sqrt((await readF32(this.be, this.normScratch))[0]);
  }

  /** L2 norm of each slot's gradient (reads every gradient back: for inspection, e.g. the per-layer norms of one step). */
  async slotGradNorms(): Promise<{ name: string; norm: number }[]> {
    const out: { name: string; norm: number }[] = [];
    for (const s of this.slots) {
      const g = await readF32(this.be, s.grad);
      let sq = 0;
      for (let i = 0; i < g.length; i++) sq += g[i] * g[i];
      out.push({ name: s.name, norm: Math.sqrt(sq) });
    }
    return out;
  }

  async step(): Promise<AdamWStepResult> {
    const o = this.options;
    const lr = learningRate(o.lr, o.schedule, this.stepCount + 1);
    if (this.slots.length === 0) {
      this.stepCount++;
      return { gradNorm: 0, lr, applied: true };
    }
    const be = this.be;
    const scope = new TensorScope(be);
    try {
      const flats = this.groups.map((g, i) => {
        const grad = scope.alloc([g.n], `adam.flatGrad.${i}`);
        be.run('packTensors', { t: { parts: g.slots.map((s) => s.grad), flat: grad }, p: { unpack: 0 } });
        be.run('sumSquares', { t: { x: grad, out: this.normScratch }, p: { n: g.n, accumulate: i === 0 ? 0 : 1 } });
        return grad;
      });
      this.groups.forEach((g, i) => {
        const params = g.slots.map((s) => s.param);
        const flat = scope.alloc([g.n], `adam.flatParam.${i}`);
        be.run('packTensors', { t: { parts: params, flat }, p: { unpack: 0 } });
        be.run('adamwClipped', {
          t: { p: flat, g: flats[i], m: g.m, v: g.v, normSq: this.normScratch },
          p: {
            n: g.n,
            lr,
            beta1: o.beta1,
            beta2: o.beta2,
            eps: o.eps,
            weightDecay: g.decay ? o.weightDecay : 0,
            step: this.stepCount + 1,
            clip: o.gradClip > 0 && Number.isFinite(o.gradClip) ? o.gradClip : 0,
          },
        });
        be.run('packTensors', { t: { parts: params, flat }, p: { unpack: 1 } });
      });
    } finally {
      scope.freeAll();
    }
    // recorded and submitted above; the norm is read after the update, only to report it
    const gradNorm = Math.sqrt((await readF32(be, this.normScratch))[0]);
    const applied = clipScale(gradNorm, o.gradClip) !== null;
    if (applied) this.stepCount++;
    return { gradNorm, lr, applied };
  }

  /** The flat moment tensors and the element range of a slot in them. */
  private locate(i: number): { g: Group; at: number } {
    const slot = this.slots[i];
    const g = this.groups.find((x) => x.slots.includes(slot))!;
    return { g, at: g.offsets[g.slots.indexOf(slot)] };
  }

  /** Moments and step count as safetensors (keys m.<name>, v.<name>; metadata step). */
  async saveState(extraMetadata: Record<string, string> = {}): Promise<Uint8Array> {
    const tensors = new Map<string, WritableTensor>();
    const host = new Map<Tensor, Float32Array>();
    for (const g of this.groups) for (const t of [g.m, g.v]) host.set(t, await readF32(this.be, t));
    for (let i = 0; i < this.slots.length; i++) {
      const s = this.slots[i];
      const { g, at } = this.locate(i);
      tensors.set(`m.${s.name}`, {
        dtype: 'F32',
        shape: s.param.shape,
        data: host.get(g.m)!.slice(at, at + s.param.size),
      });
      tensors.set(`v.${s.name}`, {
        dtype: 'F32',
        shape: s.param.shape,
        data: host.get(g.v)!.slice(at, at + s.param.size),
      });
    }
    return writeSafetensors(tensors, { ...extraMetadata, step: String(this.stepCount), format: 'rema-adamw' });
  }

  /** Inverse of saveState; every slot must be present with its shape and finite. Returns the file's metadata. */
  loadState(bytes: Uint8Array, fileName = 'optimizer.safetensors'): Record<string, string> {
    const file = parseSafetensors(bytes, fileName);
    const step = Number(file.metadata['step']);
    if (!Number.isInteger(step) || step < 0)
      throw new Error(`${fileName}: metadata "step" is missing or not an integer`);
    const loaded: Array<[Tensor, Float32Array, number]> = [];
    this.slots.forEach((s, i) => {
      const { g, at } = this.locate(i);
      for (const [kind, dst] of [
        ['m', g.m],
        ['v', g.v],
      ] as const) {
        const key = `${kind}.${s.name}`;
        const t = file.tensors.get(key);
        if (!t) throw new Error(`${fileName}: missing tensor "${key}"`);
        if (t.shape.length !== s.param.shape.length || t.shape.some((d, j) => d !== s.param.shape[j])) {
          throw new Error(
            `${fileName}: "${key}" has shape [${t.shape.join(', ')}], expected [${s.param.shape.join(', ')}]`,
          );
        }
        const values = toFloat32(t, fileName, key);
        assertFinite(values, fileName, key);
        loaded.push([dst, values, at]);
      }
    });
    for (const [dst, data, at] of loaded) this.be.upload(dst, data, at);
    this.stepCount = step;
    return file.metadata;
  }

  free(): void {
    for (const t of [...this.groups.flatMap((g) => [g.m, g.v]), this.normScratch]) this.be.free(t);
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
