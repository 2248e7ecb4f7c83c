// The multi-tensor AdamW (optim/adamw.ts): gradients and parameters packed per weight-decay group, the global norm,
// the clip and the non-finite skip computed on the device (`adamwClipped`), nothing read back before the update.
// CPU twins equal the kernels they compose (bit for bit); on WebGPU (Dawn) a step is 3 dispatches per group
// (counted by wrapping Dawn's objects, bench/gpu-counter.ts), every dispatch is recorded before the one 4-byte
// readback of Σ g², and a run of steps (clipping, a skipped non-finite step, two groups) equals the CPU's.
import { describe, expect, it } from 'vitest';
import { countGpuCalls, diffCounts } from '../../bench/gpu-counter.ts';
import { tryRequestDawnDevice } from '../../src/cli/webgpu-device.ts';
import type { Backend, Tensor } from '../../src/engine/backend.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WebGpuBackend } from '../../src/engine/backends/webgpu.ts';
import { AdamW, type AdamWOptions, type ParamSlot } from '../../src/engine/optim/adamw.ts';
import { Rng } from '../../src/util/rng.ts';
import { requireDawnDevice } from '../helpers/webgpu.ts';

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

describe('adamwClipped and packTensors: CPU twins', () => {
  it('adamwClipped equals adamw with the clip factor of sqrt(normSq) (bit for bit), and leaves everything untouched for a non-finite Σ g²', () => {
    const be = new CpuBackend();
    const n = 37;
    const [p0, g0, m0, v0] = [randn(n), randn(n, 3), randn(n, 0.1), randn(n, 0.1).map(Math.abs)];
    const sq = g0.reduce((s, x) => s + x * x, 0);
    for (const [normSq, clip] of [
      [sq, 1.5],
      [sq, 1e6],
      [sq, 0],
      [NaN, 1.5],
      [Infinity, 1.5],
    ]) {
      const [p, g, m, v] = [p0, g0, m0, v0].map((x, i) => put(be, x, `x${i}`));
      const ns = put(be, Float32Array.of(normSq), 'normSq');
      be.run('adamwClipped', {
        t: { p, g, m, v, normSq: ns },
        p: { n, lr: 0.01, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.1, step: 3, clip },
      });
      const norm = Math.sqrt(be.f32(ns)[0]);
      const [p2, g2, m2, v2] = [p0, g0, m0, v0].map((x, i) => put(be, x, `y${i}`));
      if (Number.isFinite(norm)) {
        const scale = clip > 0 && norm > clip ? clip / (norm + 1e-6) : 1;
        be.run('adamw', {
          t: { p: p2, g: g2, m: m2, v: v2 },
          p: { n, lr: 0.01, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.1, step: 3, gradScale: scale },
        });
      }
      for (const [a, b] of [
        [p, p2],
        [m, m2],
        [v, v2],
      ])
        expect(Array.from(be.f32(a))).toEqual(Array.from(be.f32(b)));
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
  it('records 3 dispatches per decay group and no readback before the update; the run equals the CPU (clipping, a skipped NaN step)', async () => {
    const dawn = requireDawnDevice(await tryRequestDawnDevice());
    const counted = countGpuCalls(dawn.device);
    const gpu = WebGpuBackend.create(dawn.device, { adapterInfo: dawn.description });
    const cpu = new CpuBackend();
    const sizes = [12, 7, 5, 300, 64, 3, 40];
    const init = sizes.map((n) => randn(n));
    const grads = Array.from({ length: 4 }, (_, step) => sizes.map((n) => randn(n, step === 1 ? 2 : 0.05)));
    grads[2][4][7] = NaN; // step 3 is skipped
    const results = [];
    for (const be of [cpu, gpu] as Backend[]) {
      const slots = makeSlots(be, init);
      const opt = new AdamW(be, options, slots);
      const steps = [];
      for (const g of grads) {
        opt.zeroGrad();
        slots.forEach((s, i) => be.upload(s.grad, g[i]));
        await be.sync();
        const c0 = counted.snapshot();
        const pending = opt.step();
        const recorded = diffCounts(c0, counted.snapshot()); // what step() recorded before its first await
        const r = await pending;
        const d = diffCounts(c0, counted.snapshot());
        if (be === gpu) {
          // two groups (decay, no decay): packs are copies; sumSquares (2) + adamwClipped (1) per group
          expect(d.dispatches).toBe(6);
          expect(recorded.dispatches).toBe(6);
          expect(d.readbacks).toBe(1);
          expect(d.readbackBytes).toBe(4);
        }
        steps.push(r);
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
  it('adamwClipped runs the SIMD adamw with the device-side clip factor: equal to its own adamw kernel (bit for bit)', async () => {
    const { WasmBackend } = await import('../../src/engine/backends/wasm.ts');
    const be = await WasmBackend.create();
    const n = 45;
    const [p0, g0, m0, v0] = [randn(n), randn(n, 3), randn(n, 0.1), randn(n, 0.1).map(Math.abs)];
    const sq = g0.reduce((s, x) => s + x * x, 0);
    const [p, g, m, v] = [p0, g0, m0, v0].map((x, i) => put(be, x, `x${i}`));
    be.run('adamwClipped', {
      t: { p, g, m, v, normSq: put(be, Float32Array.of(sq), 'normSq') },
      p: { n, lr: 0.01, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.1, step: 2, clip: 1.5 },
    });
    const [p2, g2, m2, v2] = [p0, g0, m0, v0].map((x, i) => put(be, x, `y${i}`));
    const norm = Math.sqrt(Math.fround(sq));
    be.run('adamw', {
      t: { p: p2, g: g2, m: m2, v: v2 },
      p: { n, lr: 0.01, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.1, step: 2, gradScale: 1.5 / (norm + 1e-6) },
    });
    expect(Array.from(await be.download(p))).toEqual(Array.from(await be.download(p2)));
    be.destroy();
  });
});
