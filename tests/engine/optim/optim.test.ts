// AdamW over backend tensors against a float64 host transcription of the algorithm (decoupled decay, bias
// correction, global-norm clipping, skipped non-finite steps), learning-rate schedules, optimiser state save/load,
// and the step results read later (readStats) than the steps were queued.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { AdamW, RECORD_CAPACITY, type AdamWOptions } from '../../../src/engine/optim/adamw.ts';
import { learningRate } from '../../../src/engine/optim/schedule.ts';
import { Rng } from '../../../src/util/rng.ts';

function reference(p: Float64Array[], grads: Float64Array[][], o: AdamWOptions, decay: boolean[]): Float64Array[] {
  const m = p.map((x) => new Float64Array(x.length));
  const v = p.map((x) => new Float64Array(x.length));
  const params = p.map((x) => Float64Array.from(x));
  let step = 0;
  grads.forEach((g) => {
    const norm = Math.sqrt(g.reduce((s, gi) => s + gi.reduce((a, x) => a + x * x, 0), 0));
    if (!Number.isFinite(norm)) return; // skipped: the step number (bias correction, schedule) does not advance
    step++;
    const scale = o.gradClip > 0 && norm > o.gradClip ? o.gradClip / (norm + 1e-6) : 1;
    const lr = learningRate(o.lr, o.schedule, step);
    params.forEach((x, i) => {
      for (let j = 0; j < x.length; j++) {
        const gj = g[i][j] * scale;
        m[i][j] = o.beta1 * m[i][j] + (1 - o.beta1) * gj;
        v[i][j] = o.beta2 * v[i][j] + (1 - o.beta2) * gj * gj;
        const mh = m[i][j] / (1 - o.beta1 ** step);
        const vh = v[i][j] / (1 - o.beta2 ** step);
        x[j] -= lr * ((decay[i] ? o.weightDecay : 0) * x[j] + mh / (Math.sqrt(vh) + o.eps));
      }
    });
  });
  return params;
}

describe('AdamW', () => {
  const options: AdamWOptions = {
    lr: 0.05,
    beta1: 0.9,
    beta2: 0.99,
    eps: 1e-8,
    weightDecay: 0.1,
    gradClip: 1.5,
    schedule: { kind: 'warmup-cosine', warmupSteps: 2, totalSteps: 6, minLrRatio: 0.1 },
  };

  it('matches a float64 transcription with clipping, decay only on matrices, and the schedule', async () => {
    const be = new CpuBackend();
    const rng = new Rng(3);
    const shapes = [[3, 4], [5]];
    const init = shapes.map((s) => Float64Array.from({ length: s.reduce((a, b) => a * b) }, () => rng.normal()));
    const slots = shapes.map((shape, i) => {
      const param = be.alloc(shape, 'f32', `p${i}`);
      be.upload(param, Float32Array.from(init[i]));
      const grad = be.alloc(shape, 'f32', `g${i}`);
      return { name: `p${i}`, param, grad, decay: shape.length >= 2 };
    });
    const opt = new AdamW(be, options, slots);
    const grads: Float64Array[][] = [];
    const lrs: number[] = [];
    for (let step = 0; step < 5; step++) {
      const g = shapes.map((_, i) =>
        Float64Array.from({ length: init[i].length }, () => (step === 1 ? 3 : 0.5) * rng.normal()),
      );
      grads.push(g);
      opt.zeroGrad();
      slots.forEach((s, i) => be.upload(s.grad, Float32Array.from(g[i])));
      await opt.step();
      const [r] = await opt.readStats();
      const norm = Math.sqrt(g.reduce((s, gi) => s + gi.reduce((a, x) => a + x * x, 0), 0));
      expect(r.gradNorm).toBeCloseTo(norm, 4);
      lrs.push(r.lr);
    }
    expect(lrs.slice(0, 2)).toEqual([0.025, 0.05]);
    // step 5 of 6 after 2 warm-up steps: the cosine at the 2 of 4 steps taken since warm-up
    expect(lrs[4]).toBeCloseTo(0.05 * (0.1 + 0.9 * 0.5 * (1 + Math.cos((Math.PI * 2) / 4))), 12);
    const want = reference(
      init,
      grads,
      options,
      slots.map((s) => s.decay),
    );
    slots.forEach((s, i) => {
      const got = be.f32(s.param);
      for (let j = 0; j < got.length; j++) expect(Math.abs(got[j] - want[i][j])).toBeLessThan(1e-5);
    });
  });

  it('skips the update when the gradient is not finite', async () => {
    const be = new CpuBackend();
    const param = be.alloc([2], 'f32', 'p');
    be.upload(param, Float32Array.of(1, 2));
    const grad = be.alloc([2], 'f32', 'g');
    be.upload(grad, Float32Array.of(Number.NaN, 1));
    const opt = new AdamW(be, { ...options, schedule: { kind: 'constant' } }, [
      { name: 'p', param, grad, decay: false },
    ]);
    await opt.step();
    const [r] = await opt.readStats();
    expect(r.applied).toBe(false);
    expect(Array.from(be.f32(param))).toEqual([1, 2]);
    expect(opt.stepCount).toBe(0);
  });

  it('saves and restores moments and the step count; rejects mismatched state', async () => {
    const be = new CpuBackend();
    const mk = () => {
      const param = be.alloc([4], 'f32', 'p');
      be.upload(param, Float32Array.of(1, -1, 0.5, 2));
      const grad = be.alloc([4], 'f32', 'g');
      be.upload(grad, Float32Array.of(0.1, 0.2, -0.3, 0.4));
      return { name: 'w', param, grad, decay: true };
    };
    const a = mk();
    const b = mk();
    const optA = new AdamW(be, options, [a]);
    await optA.step();
    await optA.step();
    const optB = new AdamW(be, options, [b]);
    be.upload(b.param, be.f32(a.param).slice());
    optB.loadState(await optA.saveState());
    expect(optB.stepCount).toBe(2);
    expect((await optA.readStats()).map((r) => r.applied)).toEqual([true, true]);
    await optA.step();
    await optB.step();
    expect(Array.from(be.f32(b.param))).toEqual(Array.from(be.f32(a.param)));
    const other = new AdamW(be, options, [{ ...mk(), name: 'other' }]);
    await expect(async () => other.loadState(await optA.saveState(), 'opt.safetensors')).rejects.toThrow(
      /opt.safetensors: missing tensor "m.other"/,
    );
  });

  it('steps queued without a read (a skipped one among them) equal reading after every step and the transcription', async () => {
    const rng = new Rng(11);
    const shapes = [[3, 4], [5]];
    const init = shapes.map((s) => Float64Array.from({ length: s.reduce((a, b) => a * b) }, () => rng.normal()));
    const grads = Array.from({ length: 6 }, (_, step) =>
      shapes.map((_s, i) => Float64Array.from({ length: init[i].length }, () => (step === 3 ? 4 : 0.5) * rng.normal())),
    );
    grads[1][1][2] = Number.POSITIVE_INFINITY; // the second step is skipped: warm-up and cosine wait for it
    const run = async (readEvery: boolean) => {
      const be = new CpuBackend();
      const slots = shapes.map((shape, i) => {
        const param = be.alloc(shape, 'f32', `p${i}`);
        be.upload(param, Float32Array.from(init[i]));
        return { name: `p${i}`, param, grad: be.alloc(shape, 'f32', `g${i}`), decay: shape.length >= 2 };
      });
      const opt = new AdamW(be, options, slots);
      const stats = [];
      for (const g of grads) {
        opt.zeroGrad();
        slots.forEach((s, i) => be.upload(s.grad, Float32Array.from(g[i])));
        await opt.step();
        if (readEvery) stats.push(...(await opt.readStats()));
      }
      if (!readEvery) {
        expect(opt.stepCount).toBe(0); // not read yet
        stats.push(...(await opt.readStats()));
      }
      expect(opt.stepCount).toBe(5);
      return { stats, params: slots.map((s) => Array.from(be.f32(s.param))) };
    };
    const each = await run(true);
    const late = await run(false);
    expect(late).toEqual(each);
    expect(late.stats.map((r) => r.applied)).toEqual([true, false, true, true, true, true]);
    // the skipped step reports the lr it would have had; the next applied step takes that same lr
    expect(late.stats.map((r) => r.lr)).toEqual([1, 2, 2, 3, 4, 5].map((k) => learningRate(0.05, options.schedule, k)));
    expect(Number.isFinite(late.stats[1].gradNorm)).toBe(false);
    const want = reference(init, grads, options, [true, false]);
    late.params.forEach((got, i) => got.forEach((x, j) => expect(Math.abs(x - want[i][j])).toBeLessThan(1e-5)));
  });

  it(`more than ${RECORD_CAPACITY} unread steps: step() reads the records itself, none is lost`, async () => {
    const be = new CpuBackend();
    const param = be.alloc([3], 'f32', 'p');
    be.upload(param, Float32Array.of(1, 2, 3));
    const grad = be.alloc([3], 'f32', 'g');
    const opt = new AdamW(be, { ...options, schedule: { kind: 'constant' } }, [
      { name: 'p', param, grad, decay: true },
    ]);
    const n = RECORD_CAPACITY + 5;
    for (let k = 0; k < n; k++) {
      be.upload(grad, Float32Array.of(k === 66 ? Number.NaN : k + 1, 0, 0));
      await opt.step();
    }
    const stats = await opt.readStats();
    expect(stats.map((r) => r.gradNorm)).toEqual(
      Array.from({ length: n }, (_, k) => (k === 66 ? Number.NaN : Math.fround(Math.sqrt(Math.fround((k + 1) ** 2))))),
    );
    expect(stats.filter((r) => !r.applied)).toHaveLength(1);
    expect(opt.stepCount).toBe(n - 1);
    expect(await opt.readStats()).toEqual([]);
    await expect(async () => {
      await opt.step();
      opt.loadState(await new AdamW(be, options, opt.slots).saveState());
    }).rejects.toThrow(/1 optimiser steps were not read yet/);
  });

  it('validates its options', () => {
    const be = new CpuBackend();
    expect(() => new AdamW(be, { ...options, beta1: 1 }, [])).toThrow(/beta1 must be in \[0, 1\)/);
    expect(
      () => new AdamW(be, { ...options, schedule: { kind: 'warmup-cosine', warmupSteps: 1, totalSteps: 0 } }, []),
    ).toThrow(/totalSteps/);
  });
});

describe('learning-rate schedules', () => {
  it('constant with warm-up, and warm-up + cosine to a floor', () => {
    expect([1, 2, 3, 10].map((s) => learningRate(1, { kind: 'constant', warmupSteps: 2 }, s))).toEqual([0.5, 1, 1, 1]);
    const cos = { kind: 'warmup-cosine' as const, warmupSteps: 0, totalSteps: 4, minLrRatio: 0 };
    // the cosine at the steps taken before this one: full at step 1, half way at step 3, positive at the last
    expect(learningRate(2, cos, 1)).toBeCloseTo(2, 12);
    expect(learningRate(2, cos, 3)).toBeCloseTo(1, 12);
    expect(learningRate(2, cos, 4)).toBeCloseTo(1 + Math.cos((Math.PI * 3) / 4), 12);
    expect(learningRate(2, cos, 9)).toBeCloseTo(0, 12);
  });
});
