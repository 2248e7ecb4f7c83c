// WasmBackend (WebAssembly SIMD kernels) vs the float64 references and the TypeScript CPU kernels, on odd shapes
// that do not divide the 4x8 register block; the heap and memory growth; the committed module is up to date.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Backend, DType, Tensor } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../../src/engine/backends/wasm.ts';
import { WasmRuntime } from '../../../src/engine/backends/wasm/runtime.ts';
import { WASM_SOURCE_HASH } from '../../../src/engine/kernels/wasm/modules.generated.ts';
import { Rng } from '../../../src/util/rng.ts';
import { randn, refAttention, refLogprob, refMatmul, relErr } from '../../helpers/engine/kernels-cpu-reference.ts';

function put(be: CpuBackend, data: Float32Array | Int32Array, shape: number[], dtype: DType = 'f32'): Tensor {
  const t = be.alloc(shape, dtype);
  be.upload(t, data);
  return t;
}

async function read(be: Backend, t: Tensor): Promise<Float32Array> {
  return (await be.download(t)) as Float32Array;
}

describe('WasmBackend', async () => {
  const wasm = await WasmBackend.create();
  const rng = new Rng(21);

  it('reports its variant and kind', () => {
    expect(wasm.kind).toBe('wasm');
    expect(['simd', 'relaxed-simd']).toContain(wasm.variant);
    expect(WasmBackend.support().simd).toBe(true);
  });

  describe('matmul in SIMD', () => {
    // odd shapes, the LoRA shapes (rank 4: x[R,D] @ A[r,D]^T, then [R,r] @ B[D,r]^T) and a tiny-model projection
    const shapes = [
      [3, 5, 7],
      [9, 13, 11],
      [1, 1, 1],
      [17, 19, 23],
      [5, 4, 33],
      [37, 4, 64],
      [37, 64, 4],
      [64, 96, 64],
      [133, 10, 6],
      [130, 21, 37],
      [150, 12, 700],
    ];
    // M > 32 (B [K,N]) or M > 128 (B [N,K]) or transA: packed A and B; [150, 12, 700] spans three row groups of the kernel
    for (const [M, N, K] of shapes) {
      it(`M,N,K=${M},${N},${K}, all four layouts, alpha, beta, bias`, async () => {
        for (const transA of [0, 1] as const) {
          for (const transB of [0, 1] as const) {
            const a = randn(rng, M * K),
              b = randn(rng, K * N),
              c0 = randn(rng, M * N),
              bias = randn(rng, N);
            const t = {
              a: put(wasm, a, [M * K]),
              b: put(wasm, b, [K * N]),
              c: put(wasm, c0, [M, N]),
              bias: put(wasm, bias, [N]),
            };
            const before = wasm.runtime.stats.wasmMatmuls;
            wasm.run('matmul', { t, p: { M, N, K, transA, transB, alpha: 0.5, beta: 1.5 } });
            expect(wasm.runtime.stats.wasmMatmuls).toBe(before + 1);
            const ref = refMatmul(a, b, c0, bias, M, N, K, transA, transB, 0.5, 1.5);
            expect(relErr(await read(wasm, t.c), ref)).toBeLessThan(2e-6);
            wasm.f32(t.c).fill(NaN); // beta = 0 ignores old contents
            wasm.run('matmul', { t: { a: t.a, b: t.b, c: t.c }, p: { M, N, K, transA, transB, alpha: 1, beta: 0 } });
            expect(
              relErr(await read(wasm, t.c), refMatmul(a, b, null, null, M, N, K, transA, transB, 1, 0)),
            ).toBeLessThan(2e-6);
            for (const x of Object.values(t)) wasm.free(x);
          }
        }
      });
    }
  });

  it('embedding gathers the TypeScript kernel rows (runs of consecutive ids as one copy) and rejects ids outside the vocabulary', () => {
    const cpu = new CpuBackend();
    const [V, D] = [13, 6];
    const table = randn(rng, V * D);
    const ids = Int32Array.from([3, 4, 5, 0, 12, 11, 12, 7, 8, 9, 10, 11, 12, 2]);
    const R = ids.length;
    const gather = (be: CpuBackend, rows: Int32Array) => {
      const t = { ids: put(be, rows, [R], 'i32'), table: put(be, table, [V, D]), out: be.alloc([R, D]) };
      be.run('embedding', { t, p: { R, D } });
      return be.f32(t.out).slice();
    };
    const want = gather(cpu, ids);
    expect(gather(wasm, ids)).toEqual(want);
    for (const [at, id] of [
      [5, V],
      [0, -1],
      [R - 1, 1 << 30],
    ]) {
      const bad = ids.slice();
      bad[at] = id;
      expect(() => gather(wasm, bad)).toThrow(`embedding: ids[${at}] = ${id} is outside the vocabulary [0, ${V})`);
    }
  });

  it("op(A) stored [K,M] is read in place with the packed kernel's bits (B packed or read in place)", () => {
    const rt = wasm.runtime;
    for (const [M, N, K, transB] of [
      [66, 40, 301, 0], // B [K,N] read in place
      [37, 12, 64, 0], // N % 8: B packed
      [8, 64, 130, 1],
      [133, 8, 9, 0],
    ] as const) {
      rt.reserveMatmul(M, N, K);
      const a = rt.heap.alloc(M * K * 4),
        b = rt.heap.alloc(K * N * 4),
        c = rt.heap.alloc(M * N * 4),
        packed = rt.heap.alloc(M * N * 4);
      const pa = rt.heap.alloc(WasmRuntime.packABytes(M, K)),
        pb = rt.heap.alloc(WasmRuntime.packBytes(N, K));
      rt.f32At(a, M * K).set(randn(rng, M * K));
      rt.f32At(b, K * N).set(randn(rng, K * N));
      const c0 = randn(rng, M * N);
      rt.f32At(c, M * N).set(c0);
      rt.f32At(packed, M * N).set(c0);
      rt.matmulAt(a, b, c, 0, M, N, K, 1, transB, 0.7, 0.3);
      rt.exports.packA(a, pa, M, K, 1);
      rt.exports.packB(b, pb, N, K, transB);
      rt.exports.matmul(pa, pb, packed, 0, M, N, K, 0.7, 0.3);
      const got = rt.f32At(c, M * N),
        want = rt.f32At(packed, M * N);
      expect(
        got.findIndex((x, i) => !Object.is(x, want[i])),
        `${M}x${N}x${K} transB ${transB}`,
      ).toBe(-1);
      for (const p of [a, b, c, packed, pa, pb]) rt.heap.release(p);
    }
  });

  it('attention: heads of a GQA group run in pairs with the bits each head gets alone (its keys copied per head)', async () => {
    const [B, T, S, past, Dh, H, Hkv] = [2, 3, 9, 6, 7, 6, 2]; // groups of 3: a pair and one head alone
    const q = randn(rng, B * T * H * Dh),
      k = randn(rng, B * S * Hkv * Dh),
      v = randn(rng, B * S * Hkv * Dh);
    // the same keys and values once per query head: Hkv = H, every head alone
    const perHead = (x: Float32Array) => {
      const out = new Float32Array(B * S * H * Dh);
      for (let r = 0; r < B * S; r++)
        for (let h = 0; h < H; h++)
          out.set(
            x.subarray((r * Hkv + Math.floor(h / (H / Hkv))) * Dh, (r * Hkv + Math.floor(h / (H / Hkv)) + 1) * Dh),
            (r * H + h) * Dh,
          );
      return out;
    };
    const run = async (kk: Float32Array, vv: Float32Array, heads: number) => {
      const t = {
        q: put(wasm, q, [B, T, H, Dh]),
        k: put(wasm, kk, [B, S, heads, Dh]),
        v: put(wasm, vv, [B, S, heads, Dh]),
        keyStart: put(wasm, Int32Array.from([0, 2]), [B], 'i32'),
        o: wasm.alloc([B, T, H, Dh]),
        lse: wasm.alloc([B, H, T]),
      };
      wasm.run('attention', { t, p: { B, T, S, past, H, Hkv: heads, Dh } });
      return [await read(wasm, t.o), await read(wasm, t.lse)];
    };
    const [o, lse] = await run(k, v, Hkv);
    const [oAlone, lseAlone] = await run(perHead(k), perHead(v), H);
    expect(o.findIndex((x, i) => !Object.is(x, oAlone[i]))).toBe(-1);
    expect(lse.findIndex((x, i) => !Object.is(x, lseAlone[i]))).toBe(-1);
  });

  it('attention (GQA 2 and 3, MHA, keyStart, decode with past) and its backward match the TypeScript kernels', async () => {
    const cpu = new CpuBackend();
    const [B, T, Dh] = [2, 6, 7]; // Dh not a multiple of 4: exercises the scalar tail
    const keyStart = Int32Array.from([0, 3]);
    for (const [H, Hkv, S, past, Tq] of [
      [4, 2, 6, 0, 6],
      [4, 2, 9, 5, 3],
      [6, 2, 6, 0, 6],
      [3, 3, 6, 0, 6],
    ]) {
      const q = randn(rng, B * Tq * H * Dh),
        k = randn(rng, B * S * Hkv * Dh),
        v = randn(rng, B * S * Hkv * Dh);
      const p = { B, T: Tq, S, past, H, Hkv, Dh };
      const run = (be: CpuBackend) => {
        const t = {
          q: put(be, q, [B, Tq, H, Dh]),
          k: put(be, k, [B, S, Hkv, Dh]),
          v: put(be, v, [B, S, Hkv, Dh]),
          keyStart: put(be, keyStart, [B], 'i32'),
          o: be.alloc([B, Tq, H, Dh]),
          lse: be.alloc([B, H, Tq]),
        };
        be.run('attention', { t, p });
        return t;
      };
      const tw = run(wasm);
      const ref = refAttention(q, k, v, keyStart, B, Tq, S, past, H, Hkv, Dh);
      expect(relErr(await read(wasm, tw.o), ref.o)).toBeLessThan(2e-6);
      expect(relErr(await read(wasm, tw.lse), ref.lse)).toBeLessThan(2e-6);
      if (past === 0) {
        const tc = run(cpu);
        const dout = randn(rng, B * T * H * Dh);
        const grads = (be: CpuBackend, t: typeof tw) => {
          const g = {
            dout: put(be, dout, [B, T, H, Dh]),
            dq: be.alloc([B, T, H, Dh]),
            dk: be.alloc([B, T, Hkv, Dh]),
            dv: be.alloc([B, T, Hkv, Dh]),
          };
          be.f32(g.dk).fill(NaN);
          be.run('attentionBackward', { t: { ...t, ...g }, p: { B, T, S: T, past: 0, H, Hkv, Dh } });
          return g;
        };
        const gw = grads(wasm, tw),
          gc = grads(cpu, tc);
        for (const name of ['dq', 'dk', 'dv'] as const) {
          expect(relErr(await read(wasm, gw[name]), await read(cpu, gc[name]))).toBeLessThan(1e-5);
        }
      }
    }
  });

  // R = 67: h packed once, each W chunk packed; R = 20: few rows, W read in place. V = 4099: several chunks, the
  // last one not a multiple of the 8-column panel
  it.each([
    [67, 24, 4099],
    [20, 36, 4099],
  ])(
    'logprob and logprobBackward (R %i, D %i, V %i) over several vocabulary chunks match the TypeScript kernels',
    async (R, D, V) => {
      const cpu = new CpuBackend();
      const h = randn(rng, R * D),
        w = randn(rng, V * D, 0.3);
      const target = Int32Array.from({ length: R }, (_, r) => (r % 7 === 3 ? -1 : (r * 977) % V));
      const coef = randn(rng, R),
        entCoef = randn(rng, R, 0.1);
      const dw0 = randn(rng, V * D);
      const run = (be: CpuBackend) => {
        const t = {
          h: put(be, h, [R, D]),
          w: put(be, w, [V, D]),
          target: put(be, target, [R], 'i32'),
          logp: be.alloc([R]),
          entropy: be.alloc([R]),
          lse: be.alloc([R]),
        };
        be.run('logprob', { t, p: { R, D, V } });
        const g = {
          coef: put(be, coef, [R]),
          entCoef: put(be, entCoef, [R]),
          dh: be.alloc([R, D]),
          dw: put(be, dw0, [V, D]),
        };
        be.run('logprobBackward', { t: { ...t, ...g }, p: { R, D, V } });
        return { ...t, ...g };
      };
      const before = wasm.runtime.stats.tsMatmuls;
      const tw = run(wasm),
        tc = run(cpu);
      expect(wasm.runtime.stats.tsMatmuls).toBe(before); // every chunk matmul ran in SIMD
      const ref = refLogprob(h, w, target, R, D, V);
      expect(relErr(await read(wasm, tw.logp), ref.logp)).toBeLessThan(1e-5);
      expect(relErr(await read(wasm, tw.entropy), ref.entropy)).toBeLessThan(1e-5);
      expect(relErr(await read(wasm, tw.dh), await read(cpu, tc.dh))).toBeLessThan(1e-5);
      expect(relErr(await read(wasm, tw.dw), await read(cpu, tc.dw))).toBeLessThan(1e-5);

      const logits = wasm.alloc([2, V]);
      wasm.run('lmHead', { t: { h: tw.h, w: tw.w, logits }, p: { R: 2, D, V } });
      expect(
        relErr(await read(wasm, logits), refMatmul(h.subarray(0, 2 * D), w, null, null, 2, V, D, 0, 1, 1, 0)),
      ).toBeLessThan(2e-6);
    },
  );

  it('rmsnorm, swiglu (and backwards, and packed), axpby, adamw, rope, qkvRope, sumSquares in SIMD match the TypeScript kernels', async () => {
    const cpu = new CpuBackend();
    const [R, D, F] = [5, 9, 7]; // odd: the 4-lane loops and their scalar tails
    const x = randn(rng, R * D),
      w = randn(rng, D),
      dy = randn(rng, R * D),
      dx0 = randn(rng, R * D),
      dw0 = randn(rng, D);
    const g = randn(rng, R * F, 4),
      u = randn(rng, R * F),
      dh = randn(rng, R * F);
    const p0 = randn(rng, 13),
      grads = [randn(rng, 13), randn(rng, 13), randn(rng, 13)];
    const pos = Int32Array.from([0, 3, 1, 17, 2]);
    const run = (be: CpuBackend) => {
      const n = { x: put(be, x, [R, D]), w: put(be, w, [D]), y: be.alloc([R, D]), rstd: be.alloc([R]) };
      be.run('rmsnorm', { t: n, p: { R, D, eps: 1e-6 } });
      const b = { dy: put(be, dy, [R, D]), dx: put(be, dx0, [R, D]), dw: put(be, dw0, [D]) };
      be.run('rmsnormBackward', { t: { ...n, ...b }, p: { R, D, accumulate: 1 } });
      const sw = {
        g: put(be, g, [R, F]),
        u: put(be, u, [R, F]),
        h: be.alloc([R, F]),
        dh: put(be, dh, [R, F]),
        dg: be.alloc([R, F]),
        du: be.alloc([R, F]),
      };
      be.run('swiglu', { t: sw, p: { R, F } });
      be.run('swigluBackward', { t: sw, p: { R, F } });
      // [gate | up] rows of 2F (F odd: each row's scalar tail)
      const hp = be.alloc([R, F]);
      be.run('swigluPacked', { t: { gu: put(be, Float32Array.from([...g, ...u]), [R, 2 * F]), h: hp }, p: { R, F } });
      // q, k, v of 2 sequences x 2 rows (H 3, Hkv 1, Dh 8) into cache rows [1, 3) of 4
      const qkvIn = {
        qkv: put(be, x.subarray(0, 4 * 40), [4, 40]),
        pos: put(be, Int32Array.from([3, 4, 0, 1]), [4], 'i32'),
        q: be.alloc([4, 24]),
        k: put(be, dx0.subarray(0, 32), [2, 4, 1, 8]),
        v: be.alloc([2, 4, 1, 8]),
      };
      be.run('qkvRope', { t: qkvIn, p: { B: 2, T: 2, H: 3, Hkv: 1, Dh: 8, Sdst: 4, dstRow0: 1, theta: 1e4 } });
      const yNaN = be.alloc([R, D]);
      be.f32(yNaN).fill(NaN);
      be.run('axpby', { t: { x: n.y, y: yNaN }, p: { n: R * D, a: -2, b: 0 } });
      be.run('axpby', { t: { x: n.x, y: b.dx }, p: { n: R * D - 1, a: 0.5, b: 1.5 } });
      const opt = { p: put(be, p0, [13]), g: be.alloc([13]), m: be.alloc([13]), v: be.alloc([13]) };
      grads.forEach((gr, i) => {
        be.upload(opt.g, gr);
        be.run('adamw', {
          t: opt,
          p: { n: 13, lr: 0.01, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, step: i + 1, gradScale: 0.7 },
        });
      });
      const rot = put(be, x.subarray(0, R * 8), [R, 1, 8]);
      be.run('rope', {
        t: { x: rot, pos: put(be, pos, [R], 'i32') },
        p: { R, nHeads: 1, Dh: 8, theta: 100, inverse: 0 },
      });
      // head dim 6 (scalar tail), 3 heads, inverse, explicit frequencies, then a position past the cached table
      const rot6 = put(be, x.subarray(0, R * 18), [R, 3, 6]);
      const t6 = { x: rot6, pos: put(be, pos, [R], 'i32'), invFreq: put(be, Float32Array.from([1, 0.1, 0.01]), [3]) };
      be.run('rope', { t: t6, p: { R, nHeads: 3, Dh: 6, theta: 1, inverse: 1 } });
      be.i32(t6.pos)[2] = 20000;
      be.run('rope', { t: t6, p: { R, nHeads: 3, Dh: 6, theta: 1, inverse: 0 } });
      const ss = put(be, Float32Array.from([0.25]), [1]);
      be.run('sumSquares', { t: { x: n.x, out: ss }, p: { n: R * D - 2, accumulate: 1 } });
      return { ...n, ...b, ...sw, hp, q: qkvIn.q, k: qkvIn.k, vc: qkvIn.v, yNaN, ...opt, rot, rot6, ss };
    };
    const tw = run(wasm),
      tc = run(cpu);
    for (const name of [
      'y',
      'rstd',
      'dx',
      'dw',
      'h',
      'dg',
      'du',
      'hp',
      'q',
      'k',
      'vc',
      'yNaN',
      'p',
      'm',
      'v',
      'rot',
      'rot6',
      'ss',
    ] as const) {
      expect(relErr(await read(wasm, tw[name]), await read(cpu, tc[name])), name).toBeLessThan(2e-6);
    }
  });

  it('keeps data and refreshes views when the memory grows; reuses freed blocks; refuses over the cap', async () => {
    const be = await WasmBackend.create({ variant: 'simd', maxTotalBytes: 64 * 1024 * 1024 });
    const small = put(be, Float32Array.from([1, 2, 3]), [3]);
    const bufferBefore = be.runtime.memory.buffer;
    const big = be.alloc([6 * 1024 * 1024]); // 24 MiB > the initial 16 MiB memory: grows
    expect(be.runtime.memory.buffer).not.toBe(bufferBefore);
    expect(Array.from(be.f32(small))).toEqual([1, 2, 3]);
    expect(be.ledger().liveBytes).toBe(12 + 24 * 1024 * 1024);
    const heapTop = be.runtime.heap.bytesInUse;
    be.free(big);
    const again = be.alloc([6 * 1024 * 1024]);
    expect(be.runtime.heap.bytesInUse).toBe(heapTop);
    expect(be.f32(again).every((v) => v === 0)).toBe(true); // fresh tensors are zero even on reused memory
    expect(() => be.alloc([12 * 1024 * 1024], 'f32', 'huge')).toThrow(
      /'huge' \[12582912\] f32: needs 50331648 bytes but only/,
    );
  });
});

describe('generated WebAssembly module', () => {
  it('was built from the current AssemblyScript sources (else run npm run build:wasm)', () => {
    const asDir = resolve(import.meta.dirname, '../../../src/engine/kernels/wasm/as');
    const h = createHash('sha256');
    for (const f of readdirSync(asDir)
      .filter((n) => n.endsWith('.ts'))
      .toSorted()) {
      h.update(f)
        .update('\0')
        .update(readFileSync(join(asDir, f)))
        .update('\0');
    }
    expect(WASM_SOURCE_HASH).toBe(h.digest('hex'));
  });
});
