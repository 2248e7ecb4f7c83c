// CPU backend forward kernels vs the float64 references in kernels-cpu-reference.ts, on small odd shapes that do
// not divide the 4x4 matmul block; plus the backend's ledger, limits and error messages.
import { describe, expect, it } from 'vitest';
import type { DType, Tensor } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { logprob } from '../../../src/engine/kernels/cpu/logprob.ts';
import { Rng } from '../../../src/util/rng.ts';
import {
  randn,
  refAttention,
  refLogprob,
  refMatmul,
  refRmsnorm,
  refRope,
  relErr,
  silu,
} from '../../helpers/engine/kernels-cpu-reference.ts';

const TOL = 2e-6;

function put(cpu: CpuBackend, data: Float32Array | Int32Array, shape: number[], dtype: DType = 'f32'): Tensor {
  const t = cpu.alloc(shape, dtype);
  cpu.upload(t, data);
  return t;
}

describe('matmul', () => {
  const rng = new Rng(1);
  const shapes = [
    [3, 5, 7],
    [9, 13, 11],
    [1, 1, 1],
    [6, 4, 17],
  ];
  for (const [M, N, K] of shapes) {
    for (const transA of [0, 1] as const) {
      for (const transB of [0, 1] as const) {
        it(`M,N,K=${M},${N},${K} transA=${transA} transB=${transB}, alpha, beta and bias`, () => {
          const cpu = new CpuBackend();
          const a = randn(rng, M * K),
            b = randn(rng, K * N),
            c0 = randn(rng, M * N),
            bias = randn(rng, N);
          const ta = put(cpu, a, transA ? [K, M] : [M, K]);
          const tb = put(cpu, b, transB ? [N, K] : [K, N]);
          const tc = put(cpu, c0, [M, N]);
          const tbias = put(cpu, bias, [N]);
          cpu.run('matmul', {
            t: { a: ta, b: tb, c: tc, bias: tbias },
            p: { M, N, K, transA, transB, alpha: 0.7, beta: -0.3 },
          });
          expect(relErr(cpu.f32(tc), refMatmul(a, b, c0, bias, M, N, K, transA, transB, 0.7, -0.3))).toBeLessThan(TOL);
          // beta = 0 ignores the old contents even when they are NaN; no bias
          cpu.f32(tc).fill(NaN);
          cpu.run('matmul', { t: { a: ta, b: tb, c: tc }, p: { M, N, K, transA, transB, alpha: 1, beta: 0 } });
          expect(relErr(cpu.f32(tc), refMatmul(a, b, null, null, M, N, K, transA, transB, 1, 0))).toBeLessThan(TOL);
        });
      }
    }
  }

  it('names the tensor and the element count when a tensor is too small', () => {
    const cpu = new CpuBackend();
    const a = cpu.alloc([2, 3], 'f32', 'x'),
      b = cpu.alloc([3, 4]),
      c = cpu.alloc([2, 4]);
    expect(() =>
      cpu.run('matmul', { t: { a, b, c }, p: { M: 2, N: 4, K: 5, transA: 0, transB: 0, alpha: 1, beta: 0 } }),
    ).toThrow(/matmul: tensor 'a' \(x, shape \[2,3\]\) has 6 elements, the parameters need 10/);
  });
});

describe('elementwise and reductions', () => {
  const rng = new Rng(2);
  it('sumRows with beta', () => {
    const cpu = new CpuBackend();
    const [M, N] = [7, 5];
    const x = randn(rng, M * N),
      out0 = randn(rng, N);
    const tx = put(cpu, x, [M, N]),
      tout = put(cpu, out0, [N]);
    cpu.run('sumRows', { t: { x: tx, out: tout }, p: { M, N, beta: 0.5 } });
    const ref = new Float64Array(N);
    for (let n = 0; n < N; n++) {
      ref[n] = 0.5 * out0[n];
      for (let m = 0; m < M; m++) ref[n] += x[m * N + n];
    }
    expect(relErr(cpu.f32(tout), ref)).toBeLessThan(TOL);
  });

  it('rmsnorm', () => {
    const cpu = new CpuBackend();
    const [R, D] = [5, 7];
    const x = randn(rng, R * D),
      w = randn(rng, D);
    const tx = put(cpu, x, [R, D]),
      tw = put(cpu, w, [D]),
      ty = cpu.alloc([R, D]),
      trstd = cpu.alloc([R]);
    cpu.run('rmsnorm', { t: { x: tx, w: tw, y: ty, rstd: trstd }, p: { R, D, eps: 1e-5 } });
    const ref = refRmsnorm(x, w, R, D, 1e-5);
    expect(relErr(cpu.f32(ty), ref.y)).toBeLessThan(TOL);
    expect(relErr(cpu.f32(trstd), ref.rstd)).toBeLessThan(TOL);
  });

  it('rope forward matches rotate_half, and inverse undoes it', () => {
    const cpu = new CpuBackend();
    const [R, nHeads, Dh] = [5, 3, 6];
    const x = randn(rng, R * nHeads * Dh);
    const pos = Int32Array.from([0, 1, 7, 300, 9000]); // 9000: past the cached cos/sin table
    const tx = put(cpu, x, [R, nHeads, Dh]),
      tpos = put(cpu, pos, [R], 'i32');
    cpu.run('rope', { t: { x: tx, pos: tpos }, p: { R, nHeads, Dh, theta: 10000, inverse: 0 } });
    expect(relErr(cpu.f32(tx), refRope(x, pos, R, nHeads, Dh, 10000, 0))).toBeLessThan(TOL);
    expect(relErr(cpu.f32(tx).subarray(0, nHeads * Dh), x.subarray(0, nHeads * Dh))).toBe(0); // position 0: identity
    cpu.run('rope', { t: { x: tx, pos: tpos }, p: { R, nHeads, Dh, theta: 10000, inverse: 1 } });
    expect(relErr(cpu.f32(tx), x)).toBeLessThan(TOL);
  });

  it('rope with explicit inverse frequencies (RoPE scaling) ignores theta', () => {
    const cpu = new CpuBackend();
    const [R, nHeads, Dh] = [3, 2, 4];
    const x = randn(rng, R * nHeads * Dh);
    const pos = Int32Array.from([1, 5, 9]);
    const invFreq = Float32Array.from([1, 10000 ** -0.5 / 8]); // a llama3-style scaled low frequency
    const tx = put(cpu, x, [R, nHeads, Dh]);
    const t = { x: tx, pos: put(cpu, pos, [R], 'i32'), invFreq: put(cpu, invFreq, [2]) };
    cpu.run('rope', { t, p: { R, nHeads, Dh, theta: 123, inverse: 0 } });
    const ref = Float64Array.from(x);
    for (let r = 0; r < R; r++)
      for (let h = 0; h < nHeads; h++)
        for (let i = 0; i < 2; i++) {
          const base = (r * nHeads + h) * Dh,
            a = pos[r] * invFreq[i];
          ref[base + i] = x[base + i] * Math.cos(a) - x[base + i + 2] * Math.sin(a);
          ref[base + i + 2] = x[base + i + 2] * Math.cos(a) + x[base + i] * Math.sin(a);
        }
    expect(relErr(cpu.f32(tx), ref)).toBeLessThan(TOL);
  });

  it('swiglu', () => {
    const cpu = new CpuBackend();
    const [R, F] = [3, 7];
    const g = randn(rng, R * F, 3),
      u = randn(rng, R * F);
    const tg = put(cpu, g, [R, F]),
      tu = put(cpu, u, [R, F]),
      th = cpu.alloc([R, F]);
    cpu.run('swiglu', { t: { g: tg, u: tu, h: th }, p: { R, F } });
    expect(
      relErr(
        cpu.f32(th),
        Array.from(g, (gv, i) => silu(gv) * u[i]),
      ),
    ).toBeLessThan(TOL);
  });

  it('embedding gathers rows and rejects ids outside the vocabulary', () => {
    const cpu = new CpuBackend();
    const [V, D] = [11, 5];
    const table = randn(rng, V * D),
      ids = Int32Array.from([3, 0, 10, 3]);
    const tt = put(cpu, table, [V, D]),
      tids = put(cpu, ids, [4], 'i32'),
      tout = cpu.alloc([4, D]);
    cpu.run('embedding', { t: { ids: tids, table: tt, out: tout }, p: { R: 4, D } });
    const ref = Array.from(ids).flatMap((id) => Array.from(table.subarray(id * D, id * D + D)));
    expect(relErr(cpu.f32(tout), ref)).toBe(0);
    cpu.i32(tids)[1] = 11;
    expect(() => cpu.run('embedding', { t: { ids: tids, table: tt, out: tout }, p: { R: 4, D } })).toThrow(
      /ids\[1\] = 11/,
    );
  });

  it('axpby, copyRows, sumSquares', () => {
    const cpu = new CpuBackend();
    const x = randn(rng, 9),
      y = randn(rng, 9);
    const tx = put(cpu, x, [9]),
      ty = put(cpu, y, [9]);
    cpu.run('axpby', { t: { x: tx, y: ty }, p: { n: 9, a: 2, b: -0.5 } });
    expect(
      relErr(
        cpu.f32(ty),
        Array.from(x, (v, i) => 2 * v - 0.5 * y[i]),
      ),
    ).toBeLessThan(TOL);

    const [B, T, W, Sdst] = [2, 3, 4, 7];
    const src = randn(rng, B * T * W);
    const tsrc = put(cpu, src, [B, T, W]),
      tdst = cpu.alloc([B, Sdst, W]);
    cpu.run('copyRows', { t: { src: tsrc, dst: tdst }, p: { B, T, W, Sdst, dstRow0: 4 } });
    const dst = cpu.f32(tdst);
    for (let b = 0; b < B; b++)
      for (let s = 0; s < Sdst; s++)
        for (let w = 0; w < W; w++) {
          const expected = s >= 4 ? src[(b * T + s - 4) * W + w] : 0;
          expect(dst[(b * Sdst + s) * W + w]).toBe(expected);
        }
    expect(() => cpu.run('copyRows', { t: { src: tsrc, dst: tdst }, p: { B, T, W, Sdst, dstRow0: 5 } })).toThrow(
      /do not fit/,
    );

    const tout = put(cpu, Float32Array.from([1.5]), [1]);
    cpu.run('sumSquares', { t: { x: tx, out: tout }, p: { n: 9, accumulate: 1 } });
    expect(cpu.f32(tout)[0]).toBeCloseTo(1.5 + x.reduce((s, v) => s + v * v, 0), 5);
  });
});

describe('attention', () => {
  const rng = new Rng(3);
  const [B, T, H, Hkv, Dh] = [2, 5, 4, 2, 3];
  const keyStart = Int32Array.from([0, 2]); // sequence 1 has two left-padding positions

  it('prefill: GQA, causal mask and keyStart padding match the full-softmax reference; lse saved', () => {
    const cpu = new CpuBackend();
    const S = 7; // cache longer than the used rows
    const q = randn(rng, B * T * H * Dh),
      k = randn(rng, B * S * Hkv * Dh),
      v = randn(rng, B * S * Hkv * Dh);
    const tq = put(cpu, q, [B, T, H, Dh]),
      tk = put(cpu, k, [B, S, Hkv, Dh]),
      tv = put(cpu, v, [B, S, Hkv, Dh]);
    const tks = put(cpu, keyStart, [B], 'i32'),
      to = cpu.alloc([B, T, H, Dh]),
      tlse = cpu.alloc([B, H, T]);
    cpu.run('attention', {
      t: { q: tq, k: tk, v: tv, keyStart: tks, o: to, lse: tlse },
      p: { B, T, S, past: 0, H, Hkv, Dh },
    });
    const ref = refAttention(q, k, v, keyStart, B, T, S, 0, H, Hkv, Dh);
    expect(relErr(cpu.f32(to), ref.o)).toBeLessThan(TOL);
    expect(relErr(cpu.f32(tlse), ref.lse)).toBeLessThan(TOL);
    // sequence 1, query 0 and 1 are padding: no visible key -> zero output
    expect(Array.from(cpu.f32(to).subarray(T * H * Dh, (T + 2) * H * Dh)).every((x) => x === 0)).toBe(true);
  });

  it('decode with past > 0 equals the matching rows of a full forward', () => {
    const cpu = new CpuBackend();
    const S = 8,
      past = 5,
      Tnew = 2,
      Tall = past + Tnew;
    const qAll = randn(rng, B * Tall * H * Dh),
      k = randn(rng, B * S * Hkv * Dh),
      v = randn(rng, B * S * Hkv * Dh);
    const ks = put(cpu, keyStart, [B], 'i32');
    const tk = put(cpu, k, [B, S, Hkv, Dh]),
      tv = put(cpu, v, [B, S, Hkv, Dh]);
    const full = { q: put(cpu, qAll, [B, Tall, H, Dh]), o: cpu.alloc([B, Tall, H, Dh]), lse: cpu.alloc([B, H, Tall]) };
    cpu.run('attention', { t: { ...full, k: tk, v: tv, keyStart: ks }, p: { B, T: Tall, S, past: 0, H, Hkv, Dh } });
    const qNew = new Float32Array(B * Tnew * H * Dh);
    for (let b = 0; b < B; b++)
      qNew.set(qAll.subarray((b * Tall + past) * H * Dh, (b * Tall + Tall) * H * Dh), b * Tnew * H * Dh);
    const dec = { q: put(cpu, qNew, [B, Tnew, H, Dh]), o: cpu.alloc([B, Tnew, H, Dh]), lse: cpu.alloc([B, H, Tnew]) };
    cpu.run('attention', { t: { ...dec, k: tk, v: tv, keyStart: ks }, p: { B, T: Tnew, S, past, H, Hkv, Dh } });
    const oFull = cpu.f32(full.o),
      oDec = cpu.f32(dec.o),
      lFull = cpu.f32(full.lse),
      lDec = cpu.f32(dec.lse);
    for (let b = 0; b < B; b++) {
      for (let i = 0; i < Tnew; i++) {
        const row = (x: Float32Array, t: number, tt: number) =>
          Array.from(x.subarray((b * tt + t) * H * Dh, (b * tt + t + 1) * H * Dh));
        expect(relErr(row(oDec, i, Tnew), row(oFull, past + i, Tall))).toBeLessThan(1e-6);
        for (let h = 0; h < H; h++)
          expect(lDec[(b * H + h) * Tnew + i]).toBeCloseTo(lFull[(b * H + h) * Tall + past + i], 5);
      }
    }
  });
});

describe('logprob', () => {
  const rng = new Rng(4);
  it('chunked online log-sum-exp matches the full softmax for every chunk size, padding rows give logp 0', () => {
    const [R, D, V] = [5, 6, 37];
    const h = randn(rng, R * D),
      w = randn(rng, V * D);
    const target = Int32Array.from([0, 36, -1, 17, 5]);
    const ref = refLogprob(h, w, target, R, D, V);
    for (const chunk of [1, 5, 16, 37]) {
      const logp = new Float32Array(R),
        entropy = new Float32Array(R),
        lse = new Float32Array(R);
      logprob(h, w, target, logp, entropy, lse, R, D, V, chunk);
      expect(relErr(logp, ref.logp)).toBeLessThan(TOL);
      expect(relErr(entropy, ref.entropy)).toBeLessThan(1e-5);
      expect(relErr(lse, ref.lse)).toBeLessThan(TOL);
      expect(logp[2]).toBe(0);
    }
  });

  it('through the backend with a vocabulary that needs several chunks; lmHead gives the same logits', () => {
    const cpu = new CpuBackend();
    const [R, D, V] = [70, 8, 4001];
    const h = randn(rng, R * D),
      w = randn(rng, V * D, 0.5);
    const target = Int32Array.from({ length: R }, (_, r) => (r * 613) % V);
    const t = {
      h: put(cpu, h, [R, D]),
      w: put(cpu, w, [V, D]),
      target: put(cpu, target, [R], 'i32'),
      logp: cpu.alloc([R]),
      entropy: cpu.alloc([R]),
      lse: cpu.alloc([R]),
    };
    cpu.run('logprob', { t, p: { R, D, V } });
    const ref = refLogprob(h, w, target, R, D, V);
    expect(relErr(cpu.f32(t.logp), ref.logp)).toBeLessThan(1e-5);
    expect(relErr(cpu.f32(t.entropy), ref.entropy)).toBeLessThan(1e-5);
    const logits = cpu.alloc([3, V]);
    cpu.run('lmHead', { t: { h: t.h, w: t.w, logits }, p: { R: 3, D, V } });
    expect(relErr(cpu.f32(logits), refMatmul(h.subarray(0, 3 * D), w, null, null, 3, V, D, 0, 1, 1, 0))).toBeLessThan(
      TOL,
    );
    cpu.i32(t.target)[4] = V;
    expect(() => cpu.run('logprob', { t, p: { R, D, V } })).toThrow(/target\[4\] = 4001 is outside the vocabulary/);
  });
});

describe('CpuBackend', () => {
  it('keeps a ledger of live and peak bytes', () => {
    const cpu = new CpuBackend();
    const a = cpu.alloc([10, 10]);
    const b = cpu.alloc([5], 'i32');
    expect(cpu.ledger()).toEqual({ liveBytes: 420, peakBytes: 420, liveTensors: 2 });
    cpu.free(a);
    expect(cpu.ledger()).toEqual({ liveBytes: 20, peakBytes: 420, liveTensors: 1 });
    expect(() => cpu.free(a)).toThrow(/not live/);
    cpu.free(b);
    expect(cpu.ledger().liveBytes).toBe(0);
  });

  it('refuses an allocation over maxTotalBytes, saying needed vs available bytes', () => {
    const cpu = new CpuBackend({ maxTotalBytes: 1000 });
    cpu.alloc([100], 'f32', 'first');
    expect(() => cpu.alloc([200], 'f32', 'second')).toThrow(
      /'second' \[200\] f32: needs 800 bytes but only 600 of 1000 bytes are available \(400 bytes live in 1 tensors\)/,
    );
    expect(cpu.ledger().liveBytes).toBe(400);
  });

  it('download returns a copy; u32 comes back as Uint32Array; f16 bits are decoded', async () => {
    const cpu = new CpuBackend();
    const t = put(cpu, Float32Array.from([1, 2, 3]), [3]);
    const copy = (await cpu.download(t)) as Float32Array;
    copy[0] = 99;
    expect(cpu.f32(t)[0]).toBe(1);
    const u = cpu.alloc([2], 'u32');
    cpu.upload(u, Uint32Array.from([4294967295, 7]));
    expect(Array.from(await cpu.download(u))).toEqual([4294967295, 7]);
    const half = cpu.alloc([4], 'f16');
    cpu.upload(half, Uint16Array.from([0x3c00, 0xc000, 0x3555, 0x0001]));
    expect(Array.from(cpu.f32(half))).toEqual([1, -2, 0.333251953125, 2 ** -24]);
    expect(() => cpu.upload(t, Int32Array.from([1]))).toThrow(/Int32Array cannot fill a f32 tensor/);
    expect(() => cpu.upload(t, Float32Array.from([1, 2]), 2)).toThrow(/do not fit 3 elements/);
  });
});
