// CPU backward kernels vs central finite differences of float64 reference forwards (kernels-cpu-reference.ts),
// and AdamW vs its formula written out by hand. Loss for a forward f: L = Σ dy ⊙ f(inputs) with random dy.
import { describe, expect, it } from 'vitest';
import type { DType, Tensor } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { logprobBackward } from '../../../src/engine/kernels/cpu/logprob.ts';
import { groupRowsById } from '../../../src/engine/model/batch.ts';
import { Rng } from '../../../src/util/rng.ts';
import {
  dot,
  numericGrad,
  randn,
  refAttention,
  refLogprob,
  refRmsnorm,
  refRope,
  relErr,
  silu,
} from '../../helpers/engine/kernels-cpu-reference.ts';

const FD_TOL = 1e-4; // f32 kernels vs f64 finite differences, relative to the gradient's max

function put(cpu: CpuBackend, data: Float32Array | Int32Array, shape: number[], dtype: DType = 'f32'): Tensor {
  const t = cpu.alloc(shape, dtype);
  cpu.upload(t, data);
  return t;
}

/** swiglu forward in f64: h = silu(g) * u */
function swigluRef(g: ArrayLike<number>, u: ArrayLike<number>): number[] {
  return Array.from(g, (v, i) => silu(v) * u[i]);
}

describe('backward kernels vs finite differences', () => {
  const rng = new Rng(11);

  it('rmsnormBackward: dx (overwrite and accumulate) and dw (accumulated)', () => {
    const cpu = new CpuBackend();
    const [R, D, eps] = [3, 7, 1e-5];
    const x = randn(rng, R * D),
      w = randn(rng, D),
      dy = randn(rng, R * D);
    const tx = put(cpu, x, [R, D]),
      tw = put(cpu, w, [D]),
      ty = cpu.alloc([R, D]),
      trstd = cpu.alloc([R]);
    cpu.run('rmsnorm', { t: { x: tx, w: tw, y: ty, rstd: trstd }, p: { R, D, eps } });
    const dx0 = randn(rng, R * D),
      dw0 = randn(rng, D);
    const tdy = put(cpu, dy, [R, D]),
      tdx = put(cpu, dx0, [R, D]),
      tdw = put(cpu, dw0, [D]);
    cpu.run('rmsnormBackward', {
      t: { x: tx, w: tw, rstd: trstd, dy: tdy, dx: tdx, dw: tdw },
      p: { R, D, accumulate: 1 },
    });
    const gx = numericGrad((xx) => dot(dy, refRmsnorm(xx, w, R, D, eps).y), x);
    const gw = numericGrad((ww) => dot(dy, refRmsnorm(x, ww, R, D, eps).y), w);
    expect(
      relErr(
        Array.from(cpu.f32(tdx), (v, i) => v - dx0[i]),
        gx,
      ),
    ).toBeLessThan(FD_TOL);
    expect(
      relErr(
        Array.from(cpu.f32(tdw), (v, i) => v - dw0[i]),
        gw,
      ),
    ).toBeLessThan(FD_TOL);
    cpu.run('rmsnormBackward', { t: { x: tx, w: tw, rstd: trstd, dy: tdy, dx: tdx }, p: { R, D, accumulate: 0 } });
    expect(relErr(cpu.f32(tdx), gx)).toBeLessThan(FD_TOL);
  });

  it('rope inverse is the backward of rope', () => {
    const cpu = new CpuBackend();
    const [R, nHeads, Dh, theta] = [4, 2, 8, 500];
    const x = randn(rng, R * nHeads * Dh),
      dy = randn(rng, R * nHeads * Dh);
    const pos = Int32Array.from([3, 0, 11, 42]);
    const tdy = put(cpu, dy, [R, nHeads, Dh]),
      tpos = put(cpu, pos, [R], 'i32');
    cpu.run('rope', { t: { x: tdy, pos: tpos }, p: { R, nHeads, Dh, theta, inverse: 1 } });
    const gx = numericGrad((xx) => dot(dy, refRope(xx, pos, R, nHeads, Dh, theta, 0)), x);
    expect(relErr(cpu.f32(tdy), gx)).toBeLessThan(FD_TOL);
  });

  it('swigluBackward', () => {
    const cpu = new CpuBackend();
    const [R, F] = [3, 5];
    const g = randn(rng, R * F, 2),
      u = randn(rng, R * F),
      dh = randn(rng, R * F);
    const t = {
      g: put(cpu, g, [R, F]),
      u: put(cpu, u, [R, F]),
      dh: put(cpu, dh, [R, F]),
      dg: cpu.alloc([R, F]),
      du: cpu.alloc([R, F]),
    };
    cpu.run('swigluBackward', { t, p: { R, F } });
    expect(
      relErr(
        cpu.f32(t.dg),
        numericGrad((gg) => dot(dh, swigluRef(gg, u)), g),
      ),
    ).toBeLessThan(FD_TOL);
    expect(
      relErr(
        cpu.f32(t.du),
        numericGrad((uu) => dot(dh, swigluRef(g, uu)), u),
      ),
    ).toBeLessThan(FD_TOL);
  });

  it('attentionBackward: GQA (H=4, Hkv=2), causal, keyStart > 0', () => {
    const cpu = new CpuBackend();
    const [B, T, H, Hkv, Dh] = [2, 5, 4, 2, 3];
    const keyStart = Int32Array.from([0, 2]);
    const q = randn(rng, B * T * H * Dh),
      k = randn(rng, B * T * Hkv * Dh),
      v = randn(rng, B * T * Hkv * Dh);
    const dout = randn(rng, B * T * H * Dh);
    const t = {
      q: put(cpu, q, [B, T, H, Dh]),
      k: put(cpu, k, [B, T, Hkv, Dh]),
      v: put(cpu, v, [B, T, Hkv, Dh]),
      keyStart: put(cpu, keyStart, [B], 'i32'),
      o: cpu.alloc([B, T, H, Dh]),
      lse: cpu.alloc([B, H, T]),
    };
    cpu.run('attention', { t, p: { B, T, S: T, past: 0, H, Hkv, Dh } });
    const grads = {
      dout: put(cpu, dout, [B, T, H, Dh]),
      dq: cpu.alloc([B, T, H, Dh]),
      dk: cpu.alloc([B, T, Hkv, Dh]),
      dv: cpu.alloc([B, T, Hkv, Dh]),
    };
    cpu.f32(grads.dk).fill(NaN); // overwritten, never accumulated
    cpu.run('attentionBackward', { t: { ...t, ...grads }, p: { B, T, S: T, past: 0, H, Hkv, Dh } });
    const loss = (qq: ArrayLike<number>, kk: ArrayLike<number>, vv: ArrayLike<number>) =>
      dot(dout, refAttention(qq, kk, vv, keyStart, B, T, T, 0, H, Hkv, Dh).o);
    expect(
      relErr(
        cpu.f32(grads.dq),
        numericGrad((x) => loss(x, k, v), q),
      ),
    ).toBeLessThan(FD_TOL);
    expect(
      relErr(
        cpu.f32(grads.dk),
        numericGrad((x) => loss(q, x, v), k),
      ),
    ).toBeLessThan(FD_TOL);
    expect(
      relErr(
        cpu.f32(grads.dv),
        numericGrad((x) => loss(q, k, x), v),
      ),
    ).toBeLessThan(FD_TOL);
  });

  it('logprobBackward with an entropy coefficient and a padding row: dh, dw (accumulated), several chunks', () => {
    const [R, D, V] = [4, 5, 23];
    const h = randn(rng, R * D),
      w = randn(rng, V * D);
    const target = Int32Array.from([3, -1, 22, 0]);
    const coef = Float32Array.from([0.7, 1.3, -0.4, 1]),
      entCoef = Float32Array.from([0.05, -0.2, 0, 0.3]);
    const ref = refLogprob(h, w, target, R, D, V);
    const loss = (hh: ArrayLike<number>, ww: ArrayLike<number>) => {
      const r = refLogprob(hh, ww, target, R, D, V);
      return dot(coef, r.logp) + dot(entCoef, r.entropy);
    };
    const gh = numericGrad((x) => loss(x, w), h),
      gw = numericGrad((x) => loss(h, x), w);
    for (const chunk of [4, 23]) {
      const dh = new Float32Array(R * D).fill(NaN),
        dw0 = randn(rng, V * D),
        dw = Float32Array.from(dw0);
      logprobBackward(
        h,
        w,
        target,
        Float32Array.from(ref.lse),
        Float32Array.from(ref.entropy),
        coef,
        entCoef,
        dh,
        dw,
        R,
        D,
        V,
        chunk,
      );
      expect(relErr(dh, gh)).toBeLessThan(FD_TOL);
      expect(
        relErr(
          Array.from(dw, (x, i) => x - dw0[i]),
          gw,
        ),
      ).toBeLessThan(FD_TOL);
    }
    // through the backend, forward first (its lse/entropy feed the backward), no dw
    const cpu = new CpuBackend();
    const t = {
      h: put(cpu, h, [R, D]),
      w: put(cpu, w, [V, D]),
      target: put(cpu, target, [R], 'i32'),
      logp: cpu.alloc([R]),
      entropy: cpu.alloc([R]),
      lse: cpu.alloc([R]),
    };
    cpu.run('logprob', { t, p: { R, D, V } });
    const tdh = cpu.alloc([R, D]);
    cpu.run('logprobBackward', {
      t: { ...t, coef: put(cpu, coef, [R]), entCoef: put(cpu, entCoef, [R]), dh: tdh },
      p: { R, D, V },
    });
    expect(relErr(cpu.f32(tdh), gh)).toBeLessThan(FD_TOL);
  });
});

describe('embeddingBackward and adamw', () => {
  const rng = new Rng(12);

  it('embeddingBackward sums the rows of repeated ids into the table gradient', () => {
    const cpu = new CpuBackend();
    const [V, D] = [9, 4];
    const ids = [5, 2, 5, 7, 5, 2];
    const R = ids.length;
    const dout = randn(rng, R * D),
      dtable0 = randn(rng, V * D);
    // the host-side grouping the kernel expects (unique ids, and for each the list of rows holding it), as the model builds it
    const { uniqueIds, rowStart, rowList } = groupRowsById(Int32Array.from(ids));
    const U = uniqueIds.length;
    const t = {
      dout: put(cpu, dout, [R, D]),
      uniqueIds: put(cpu, uniqueIds, [U], 'i32'),
      rowStart: put(cpu, rowStart, [U + 1], 'i32'),
      rowList: put(cpu, rowList, [R], 'i32'),
      dtable: put(cpu, dtable0, [V, D]),
    };
    cpu.run('embeddingBackward', { t, p: { U, D } });
    const expected = Float64Array.from(dtable0);
    ids.forEach((id, r) => {
      for (let d = 0; d < D; d++) expected[id * D + d] += dout[r * D + d];
    });
    expect(relErr(cpu.f32(t.dtable), expected)).toBeLessThan(1e-6);
  });

  it('adamw matches the written-out formula over three steps (weight decay, bias correction, grad scale)', () => {
    const cpu = new CpuBackend();
    const n = 7;
    const p0 = randn(rng, n);
    const hp = { lr: 1e-2, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.1, gradScale: 0.5 };
    const t = { p: put(cpu, p0, [n]), g: cpu.alloc([n]), m: cpu.alloc([n]), v: cpu.alloc([n]) };
    const p = Float64Array.from(p0),
      m = new Float64Array(n),
      v = new Float64Array(n);
    for (let step = 1; step <= 3; step++) {
      const g = randn(rng, n);
      cpu.upload(t.g, g);
      cpu.run('adamw', { t, p: { n, step, ...hp } });
      for (let i = 0; i < n; i++) {
        const gi = g[i] * hp.gradScale;
        m[i] = hp.beta1 * m[i] + (1 - hp.beta1) * gi;
        v[i] = hp.beta2 * v[i] + (1 - hp.beta2) * gi * gi;
        const mHat = m[i] / (1 - hp.beta1 ** step),
          vHat = v[i] / (1 - hp.beta2 ** step);
        p[i] = p[i] * (1 - hp.lr * hp.weightDecay) - (hp.lr * mHat) / (Math.sqrt(vHat) + hp.eps);
      }
      expect(relErr(cpu.f32(t.p), p)).toBeLessThan(1e-6);
      expect(relErr(cpu.f32(t.m), m)).toBeLessThan(1e-6);
    }
    expect(() => cpu.run('adamw', { t, p: { n, step: 0, ...hp } })).toThrow(/step must be >= 1/);
  });
});
