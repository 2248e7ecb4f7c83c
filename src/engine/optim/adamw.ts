// AdamW over a list of (parameter, gradient) tensors on a backend, as a multi-tensor update: the slots are grouped
// by weight decay (at most two groups), each group's gradients and parameters are packed into one flat tensor
// (`packTensors`: buffer copies on WebGPU, no kernel), the global Σ g² is summed on the device (`sumSquares`),
// `adamwPrepare` (one thread) decides the step there: the clip factor, the non-finite skip and the step number (the
// bias correction's and the schedule's: applied updates only) live in a small state tensor, and `adamwApply` updates
// each group with them; then the parameters are unpacked. So a step is 2 + 2 kernels for one group (≤ 7 dispatches
// on WebGPU for two) and nothing is read back: step() queues the update, and the step's gradient norm and whether
// it applied are records in the state tensor, read by readStats() (once per training step, or by step() itself
// when RECORD_CAPACITY steps went unread). The host cannot know the step number without a read, so it uploads the
// lr and bias corrections of every step number the device may be at (one 12-byte table entry per step).
// Moments live in one flat tensor per group; save/load keep one tensor per slot.
// Also: a learning-rate schedule, and save/load of the moments as safetensors so runs can resume.
import type { Backend, Tensor } from '../backend.ts';
import { readF32, TensorScope, zeroTensor, zeros } from '../model/device-ops.ts';
import { assertFinite } from '../io/finite.ts';
import { parseSafetensors, toFloat32, writeSafetensors, type WritableTensor } from '../io/safetensors.ts';
import { learningRate, validateSchedule, type LrSchedule } from './schedule.ts';
import { ADAMW_STATE, adamwStateSize, adamwTableAt } from '../kernels/cpu/adamw.ts';

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

/** Steps whose records the state tensor holds; step() reads them itself when this many went unread. */
export const RECORD_CAPACITY = 64;

/** f32 values one AdamW keeps besides its moments (Σ g² and the state tensor), for the memory planner. */
export const ADAMW_SCALARS = 1 + adamwStateSize(RECORD_CAPACITY);

export class AdamW {
  private readonly groups: Group[];
  private readonly normScratch: Tensor;
  /** ADAMW_STATE layout (kernels/cpu/adamw.ts): the device's step count, the current step, records, lr table */
  private readonly state: Tensor;
  /** applied updates as of the last read of the state (the device's step count then) */
  private known = 0;
  /** steps queued since that read (their records are in the state tensor) */
  private unreadSteps = 0;
  /** results read but not yet returned by readStats (step() reads when the records are full) */
  private readonly held: AdamWStepResult[] = [];

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
    this.state = zeros(be, [adamwStateSize(RECORD_CAPACITY)], 'adam.state');
  }

  /** Updates applied as of the last readStats (or saveState / loadState): the step count of the bias correction. */
  get stepCount(): number {
    return this.known;
  }

  zeroGrad(): void {
    for (const s of this.slots) zeroTensor(this.be, s.grad);
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

  /** Each slot's gradient, read back by name (for inspection: comparing gradients with a reference). */
  async slotGradients(): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    for (const s of this.slots) out.set(s.name, await readF32(this.be, s.grad));
    return out;
  }

  /** The learning rate of update number `step` (1-based, applied updates). */
  private lrAt(step: number): number {
    const o = this.options;
    return learningRate(o.lr, o.schedule, step);
  }

  /** Queues one update over the accumulated gradients; reads nothing back unless RECORD_CAPACITY steps went unread
   *  (then it reads their records first, and readStats returns them later). */
  async step(): Promise<void> {
    if (this.unreadSteps === RECORD_CAPACITY) this.held.push(...(await this.collect()));
    const o = this.options;
    const be = this.be;
    const r = this.unreadSteps;
    // the device is at step known + j for some j <= r; table entry r is that of step known + r + 1
    const step = this.known + r + 1;
    be.upload(
      this.state,
      Float32Array.of(this.lrAt(step), 1 - Math.pow(o.beta1, step), 1 - Math.pow(o.beta2, step)),
      adamwTableAt(RECORD_CAPACITY) + 3 * r,
    );
    this.unreadSteps++;
    const clip = o.gradClip > 0 && Number.isFinite(o.gradClip) ? o.gradClip : 0;
    const scope = new TensorScope(be);
    try {
      const flats = this.groups.map((g, i) => {
        const grad = scope.alloc([g.n], `adam.flatGrad.${i}`);
        be.run('packTensors', { t: { parts: g.slots.map((s) => s.grad), flat: grad }, p: { unpack: 0 } });
        be.run('sumSquares', { t: { x: grad, out: this.normScratch }, p: { n: g.n, accumulate: i === 0 ? 0 : 1 } });
        return grad;
      });
      be.run('adamwPrepare', {
        t: { normSq: this.normScratch, state: this.state },
        p: { known: this.known, record: r, capacity: RECORD_CAPACITY, clip },
      });
      this.groups.forEach((g, i) => {
        const params = g.slots.map((s) => s.param);
        const flat = scope.alloc([g.n], `adam.flatParam.${i}`);
        be.run('packTensors', { t: { parts: params, flat }, p: { unpack: 0 } });
        be.run('adamwApply', {
          t: { p: flat, g: flats[i], m: g.m, v: g.v, state: this.state },
          p: { n: g.n, beta1: o.beta1, beta2: o.beta2, eps: o.eps, weightDecay: g.decay ? o.weightDecay : 0 },
        });
        be.run('packTensors', { t: { parts: params, flat }, p: { unpack: 1 } });
      });
    } finally {
      scope.freeAll();
    }
  }

  /** The results of the steps since the last call, oldest first: one read of the small state tensor. */
  async readStats(): Promise<AdamWStepResult[]> {
    const out = [...this.held, ...(await this.collect())];
    this.held.length = 0;
    return out;
  }

  /** Results that readStats returns before the next ones (kept over a loadState, or from a replaced optimiser). */
  hold(results: readonly AdamWStepResult[]): void {
    this.held.unshift(...results);
  }

  /** Reads the records of the unread steps and the device's step count. */
  private async collect(): Promise<AdamWStepResult[]> {
    if (this.unreadSteps === 0) return [];
    const s = await readF32(this.be, this.state);
    const out: AdamWStepResult[] = [];
    let k = this.known;
    for (let j = 0; j < this.unreadSteps; j++) {
      const at = ADAMW_STATE.RECORDS + 2 * j;
      const applied = s[at + 1] === 1;
      out.push({ gradNorm: Math.sqrt(s[at]), lr: this.lrAt(k + 1), applied });
      if (applied) k++;
    }
    if (s[ADAMW_STATE.STEP] !== k)
      throw new Error(`AdamW: the device counts ${s[ADAMW_STATE.STEP]} applied updates, its records ${k}`);
    this.known = k;
    this.unreadSteps = 0;
    return out;
  }

  /** The flat moment tensors and the element range of a slot in them. */
  private locate(i: number): { g: Group; at: number } {
    const slot = this.slots[i];
    const g = this.groups.find((x) => x.slots.includes(slot))!;
    return { g, at: g.offsets[g.slots.indexOf(slot)] };
  }

  /** Moments and step count as safetensors (keys m.<name>, v.<name>; metadata step). */
  async saveState(extraMetadata: Record<string, string> = {}): Promise<Uint8Array> {
    this.held.push(...(await this.collect()));
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

  /** Inverse of saveState; every slot must be present with its shape and finite. Returns the file's metadata.
   *  Steps queued since the last readStats must be read first (their records would be lost). */
  loadState(bytes: Uint8Array, fileName = 'optimizer.safetensors'): Record<string, string> {
    if (this.unreadSteps > 0)
      throw new Error(
        `${fileName}: ${this.unreadSteps} optimiser steps were not read yet (readStats before loadState)`,
      );
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
    this.be.upload(this.state, Float32Array.of(step), ADAMW_STATE.STEP);
    this.known = step;
    return file.metadata;
  }

  free(): void {
    for (const t of [...this.groups.flatMap((g) => [g.m, g.v]), this.normScratch, this.state]) this.be.free(t);
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
