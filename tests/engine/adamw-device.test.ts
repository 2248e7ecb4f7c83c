// The multi-tensor AdamW (optim/adamw.ts): gradients and parameters packed per weight-decay group, the global norm,
// the clip, the non-finite skip and the step number decided on the device (`adamwPrepare`, `adamwApply`), nothing
// read back per step. CPU twins equal the kernels they compose (bit for bit); on WebGPU (Dawn) a step is
// sumSquares (2) per group + adamwPrepare (1) + adamwApply (1) per group (counted by wrapping Dawn's objects,
// bench/gpu-counter.ts) with no readback at all; readStats is one small readback; a run of steps (clipping, a
// skipped non-finite step, two groups) equals the CPU's.
import { describe, expect, it } from 'vitest';
import { countGpuCalls, diffCounts } from '../../bench/gpu-counter.ts';
import type { Backend, Tensor } from '../../src/engine/backend.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { AdamW, RECORD_CAPACITY, type AdamWOptions, type ParamSlot } from '../../src/engine/optim/adamw.ts';
import { ADAMW_STATE, adamwStateSize, adamwTableAt, adamwUpdate } from '../../src/engine/kernels/cpu/adamw.ts';
import { Rng } from '../../src/util/rng.ts';
import { getTestDevice, testBackend } from '../helpers/webgpu.ts';

const options: AdamWOptions = {
  lr: 0.05,
  beta1: 0.9,
  beta2: 0.99,
  eps: 1e-8,
  weightDecay: 0.1,
  gradClip: 1.5,
  schedule: { kind: 'constant' },
};
const rng = new Rng(9);
const randn = (n: number, s = 1) => Float32Array.from({ length: n }, () => s * rng.normal());

function put(be: Backend, data: Float32Array, label: string): Tensor {
  const t = be.alloc([data.length], 'f32', label);
  be.upload(t, data);
  return t;
}

/** A state tensor whose table entry `entry` holds (lr, bc1, bc2), at step count `stepNow`. */
function stateWith(be: Backend, stepNow: number, entry: number, lr: number, bc1: number, bc2: number): Tensor {
  const s = new Float32Array(adamwStateSize(RECORD_CAPACITY));
  s[ADAMW_STATE.STEP] = stepNow;
  s.set([lr, bc1, bc2], adamwTableAt(RECORD_CAPACITY) + 3 * entry);
  return put(be, s, 'state');
}

describe('adamwPrepare, adamwApply and packTensors: CPU twins', () => {
  it('adamwPrepare + adamwApply equal the update with table entry (step - known) and the clip factor of sqrt(normSq) (bit for bit), and leave everything untouched for a non-finite Σ g²', () => {
    const be = new CpuBackend();
    const n = 37;
    const [p0, g0, m0, v0] = [randn(n), randn(n, 3), randn(n, 0.1), randn(n, 0.1).map(Math.abs)];
    const sq = g0.reduce((s, x) => s + x * x, 0);
    const [b1, b2] = [0.9, 0.99];
    for (const [normSq, clip] of [
      [sq, 1.5],
      [sq, 1e6],
      [sq, 0],
      [NaN, 1.5],
      [Infinity, 1.5],
    ]) {
      const [p, g, m, v] = [p0, g0, m0, v0].map((x, i) => put(be, x, `x${i}`));
      const ns = put(be, Float32Array.of(normSq), 'normSq');
      // the device is at step 2 of a read made at step 1: table entry 1 is step 3's
      const state = stateWith(be, 2, 1, 0.01, 1 - b1 ** 3, 1 - b2 ** 3);
      be.run('adamwPrepare', { t: { normSq: ns, state }, p: { known: 1, record: 5, capacity: RECORD_CAPACITY, clip } });
      be.run('adamwApply', {
        t: { p, g, m, v, state },
        p: { n, beta1: b1, beta2: b2, eps: 1e-8, weightDecay: 0.1 },
      });
      const norm = Math.sqrt(be.f32(ns)[0]);
      const s = be.f32(state);
      const rec = ADAMW_STATE.RECORDS + 2 * 5;
      expect(Object.is(s[rec], Math.fround(normSq))).toBe(true);
      expect(s[rec + 1]).toBe(Number.isFinite(norm) ? 1 : 0);
      expect(s[ADAMW_STATE.STEP]).toBe(Number.isFinite(norm) ? 3 : 2);
      const [p2, m2, v2] = [p0, m0, v0].map((x) => x.slice());
      if (Number.isFinite(norm)) {
        const scale = clip > 0 && norm > clip ? clip / (norm + 1e-6) : 1;
        // the state holds lr, bc1, bc2 and the scale as f32
        const f = Math.fround;
        adamwUpdate(p2, g0, m2, v2, n, f(0.01), b1, b2, 1e-8, 0.1, f(1 - b1 ** 3), f(1 - b2 ** 3), f(scale));
      }
      for (const [a, b] of [
        [p, p2],
        [m, m2],
        [v, v2],
      ] as const)
        expect(Array.from(be.f32(a))).toEqual(Array.from(b));
      if (!Number.isFinite(norm)) expect(Array.from(be.f32(p))).toEqual(Array.from(p0));
    }
  });

  it('packTensors packs in order and unpacks back', () => {
    const be = new CpuBackend();
    const parts = [randn(3), randn(5), randn(1)].map((x, i) => put(be, x, `part${i}`));
    const flat = be.alloc([9]);
    be.run('packTensors', { t: { parts, flat }, p: { unpack: 0 } });
    expect(Array.from(be.f32(flat))).toEqual(parts.flatMap((t) => Array.from(be.f32(t))));
    const back = parts.map((t) => be.alloc([t.size]));
    be.run('packTensors', { t: { parts: back, flat }, p: { unpack: 1 } });
    back.forEach((t, i) => expect(Array.from(be.f32(t))).toEqual(Array.from(be.f32(parts[i]))));
    expect(() => be.run('packTensors', { t: { parts, flat: be.alloc([8]) }, p: { unpack: 0 } })).toThrow(
      /packTensors: tensor 'flat'.*the parameters need 9/,
    );
  });
});

/** Slots of these sizes on `be` (matrices decay, vectors do not), from fixed initial values. */
function makeSlots(be: Backend, init: Float32Array[]): ParamSlot[] {
  return init.map((x, i) => ({
    name: `s${i}`,
    param: put(be, x, `p${i}`),
    grad: be.alloc([x.length], 'f32', `g${i}`),
    decay: i % 3 !== 2,
  }));
}

describe('multi-tensor AdamW on WebGPU', () => {
  it('records sumSquares (2) per decay group, adamwPrepare and adamwApply per group and reads nothing back; readStats reads once; the run equals the CPU (clipping, a skipped NaN step)', async () => {
    const dawn = await getTestDevice();
    const counted = countGpuCalls(dawn.device);
    const gpu = testBackend(dawn);
    const cpu = new CpuBackend();
    const sizes = [12, 7, 5, 300, 64, 3, 40];
    const init = sizes.map((n) => randn(n));
    const grads = Array.from({ length: 4 }, (_, step) => sizes.map((n) => randn(n, step === 1 ? 2 : 0.05)));
    grads[2][4][7] = NaN; // step 3 is skipped
    const results = [];
    for (const be of [cpu, gpu] as Backend[]) {
      const slots = makeSlots(be, init);
      const opt = new AdamW(be, options, slots);
      for (const g of grads) {
        opt.zeroGrad();
        slots.forEach((s, i) => be.upload(s.grad, g[i]));
        await be.sync();
        const c0 = counted.snapshot();
        await opt.step();
        await be.sync();
        const d = diffCounts(c0, counted.snapshot());
        if (be === gpu) {
          // two groups (decay, no decay): packs are copies; sumSquares (2) per group, adamwPrepare, adamwApply per group
          expect(d.dispatches).toBe(7);
          expect(d.readbacks).toBe(0);
          expect(d.readbackBytes).toBe(0);
        }
      }
      expect(opt.stepCount).toBe(0); // nothing read yet
      const c0 = counted.snapshot();
      const steps = await opt.readStats();
      const d = diffCounts(c0, counted.snapshot());
      if (be === gpu) {
        expect(d.readbacks).toBe(1);
        expect(d.dispatches).toBe(0);
      }
      expect(steps.map((r) => r.applied)).toEqual([true, true, false, true]);
      expect(opt.stepCount).toBe(3);
      results.push({
        steps,
        params: await Promise.all(slots.map(async (s) => Array.from(await be.download(s.param)))),
      });
      opt.free();
    }
    const [c, g] = results;
    expect(g.steps.map((r) => r.lr)).toEqual(c.steps.map((r) => r.lr));
    g.steps.forEach((r, i) => {
      if (Number.isFinite(c.steps[i].gradNorm))
        expect(Math.abs(r.gradNorm - c.steps[i].gradNorm)).toBeLessThan(1e-5 * c.steps[i].gradNorm);
      else expect(Number.isFinite(r.gradNorm)).toBe(false);
    });
    // step 2 was clipped (norm well above 1.5)
    expect(c.steps[1].gradNorm).toBeGreaterThan(3);
    g.params.forEach((p, i) =>
      p.forEach((x, j) => expect(Math.abs(x - c.params[i][j]), `slot ${i}[${j}]`).toBeLessThan(1e-5)),
    );
    gpu.destroy();
  });
});

describe('multi-tensor AdamW on the WASM backend', () => {
  it('adamwApply runs the SIMD adamw with the device-side clip factor: equal to its own adamw kernel (bit for bit)', async () => {
    const { WasmBackend } = await import('../../src/engine/backends/wasm.ts');
    const be = await WasmBackend.create();
    const n = 45;
    const [p0, g0, m0, v0] = [randn(n), randn(n, 3), randn(n, 0.1), randn(n, 0.1).map(Math.abs)];
    const sq = g0.reduce((s, x) => s + x * x, 0);
    const [p, g, m, v] = [p0, g0, m0, v0].map((x, i) => put(be, x, `x${i}`));
    const state = stateWith(be, 1, 0, 0.01, 1 - 0.9 ** 2, 1 - 0.99 ** 2);
    be.run('adamwPrepare', {
      t: { normSq: put(be, Float32Array.of(sq), 'normSq'), state },
      p: { known: 1, record: 0, capacity: RECORD_CAPACITY, clip: 1.5 },
    });
    be.run('adamwApply', { t: { p, g, m, v, state }, p: { n, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.1 } });
    const [p2, g2, m2, v2] = [p0, g0, m0, v0].map((x, i) => put(be, x, `y${i}`));
    const norm = Math.sqrt(Math.fround(sq));
    be.run('adamw', {
      t: { p: p2, g: g2, m: m2, v: v2 },
      p: {
        n,
        lr: Math.fround(0.01),
        beta1: 0.9,
        beta2: 0.99,
        eps: 1e-8,
        weightDecay: 0.1,
        step: 2,
        gradScale: Math.fround(1.5 / (norm + 1e-6)),
      },
    });
    expect(Array.from(await be.download(p))).toEqual(Array.from(await be.download(p2)));
    be.destroy();
  });
});
