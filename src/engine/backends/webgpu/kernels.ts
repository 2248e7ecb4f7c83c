// Host side of every catalog kernel on WebGPU: checks the arguments, picks the WGSL program (kernels/wgsl),
// walks tensors that are split over several buffers, and records the dispatches. Semantics are the catalog's
// (src/engine/kernels/catalog.ts); the CPU backend is the reference the tests compare against.
import type { KernelArgs, KernelName } from '../../kernels/catalog.ts';
import { grid1d, type ElemType } from '../../kernels/wgsl/common.ts';
import {
  adamwProgram,
  axpbyProgram,
  copyRowsHalfProgram,
  copyRowsProgram,
  swigluBackwardProgram,
  swigluProgram,
} from '../../kernels/wgsl/elementwise.ts';
import { rmsnormDwProgram, rmsnormDxProgram, rmsnormProgram, rmsnormRowsProgram } from '../../kernels/wgsl/norm.ts';
import { ropeProgram, ropeTurnTable } from '../../kernels/wgsl/rope.ts';
import { qkvRopeHalfProgram, qkvRopeProgram, swigluPackedProgram } from '../../kernels/wgsl/fused.ts';
import { adamwApplyProgram, adamwPrepareProgram } from '../../kernels/wgsl/adamw-device.ts';
import { ADAMW_STATE, adamwStateSize } from '../../kernels/cpu/adamw.ts';
import { attentionDecodeProgram } from '../../kernels/wgsl/attention-decode.ts';
import {
  attentionDkDvTiledProgram,
  attentionDqTiledProgram,
  backwardBlocks,
} from '../../kernels/wgsl/attention-backward-tiled.ts';
import {
  attentionDeltaProgram,
  attentionDkProgram,
  attentionDqProgram,
  attentionDvProgram,
  attentionProgram,
} from '../../kernels/wgsl/attention.ts';
import { attentionMergeProgram, attentionPartialProgram } from '../../kernels/wgsl/attention-split.ts';
import { embeddingBackwardProgram, embeddingHalfRowsProgram, embeddingProgram } from '../../kernels/wgsl/embedding.ts';
import { sumRowsProgram, sumSquaresFinalProgram, sumSquaresPartialProgram } from '../../kernels/wgsl/reduce.ts';
import { sampleProgram } from '../../kernels/wgsl/sample.ts';
import { checked, single, view, type GpuContext } from './context.ts';
import { runMatmul } from './matmul.ts';
import type { GpuStorage } from './memory.ts';
import { runLmHead, runLogprob, runLogprobBackward } from './logprob.ts';
import { attentionPlan, AttentionVariant, checkHeads, copyRowsPlan, qkvRopePlan, samplePlan } from './step-plans.ts';

const IDS = ['i32', 'u32'];
const FLOATS = ['f32', 'f16'];

/** The element type of a KV cache's k and v (f32, or f16 halves: both the same). */
function kvElem(
  kernel: string,
  k: { dtype: string; label: string },
  v: { dtype: string; label: string },
): 'f32' | 'f16' {
  if (k.dtype !== v.dtype || (k.dtype !== 'f32' && k.dtype !== 'f16'))
    throw new Error(
      `WebGPU ${kernel}: k (${k.label}, ${k.dtype}) and v (${v.label}, ${v.dtype}) must both be f32 or both f16`,
    );
  return k.dtype;
}

/** Run `each(chunkIndex, count)` over the chunks of same-shaped flat tensors, for the first n elements. */
function perChunk(
  kernel: string,
  storages: Array<[string, GpuStorage]>,
  n: number,
  each: (i: number, count: number) => void,
): void {
  const [, first] = storages[0];
  for (const [name, s] of storages) {
    const same = s.chunks.length === first.chunks.length && s.chunks.every((c, i) => c.elems === first.chunks[i].elems);
    if (!same) throw new Error(`WebGPU ${kernel}: tensor '${name}' is split differently from '${storages[0][0]}'`);
  }
  first.chunks.forEach((c, i) => {
    const count = Math.min(c.elems, Math.max(0, n - c.firstElem));
    if (count > 0) each(i, count);
  });
}

function elem(dtype: string): ElemType {
  return dtype as ElemType;
}

type Impl<K extends KernelName> = (ctx: GpuContext, args: KernelArgs<K>) => void;

export const webgpuKernels: { [K in KernelName]: Impl<K> } = {
  matmul(ctx, { t, p }) {
    const { M, N, K, transA, transB } = p;
    const a = checked(ctx, 'matmul', 'a', t.a, M * K, FLOATS);
    const b = checked(ctx, 'matmul', 'b', t.b, K * N, FLOATS);
    const c = checked(ctx, 'matmul', 'c', t.c, M * N);
    let bias;
    if (t.bias) bias = { buffer: single(ctx, 'matmul', 'bias', t.bias, N, FLOATS), dtype: t.bias.dtype, elem0: 0 };
    runMatmul(
      ctx.runtime,
      ctx.dummy,
      {
        a: view(a, 'a', transA ? M : K),
        b: view(b, 'b', transB ? K : N),
        c: view(c, 'c', N),
        bias,
        M,
        N,
        K,
        transA,
        transB,
        alpha: p.alpha,
        beta: p.beta,
      },
      ctx.tuning,
      { take: (bytes) => ctx.scratch(bytes, 'matmul split-K partials'), give: (buffer) => ctx.releaseScratch(buffer) },
    );
  },

  sumRows(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const x = single(ctx, 'sumRows', 'x', t.x, p.M * p.N);
    const out = single(ctx, 'sumRows', 'out', t.out, p.N);
    ctx.runtime.dispatch(sumRowsProgram(wg), [x, out], p, grid1d(p.N, wg));
  },

  rmsnorm(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const { R, D } = p;
    const x = single(ctx, 'rmsnorm', 'x', t.x, R * D);
    const w = single(ctx, 'rmsnorm', 'w', t.w, D, FLOATS);
    const y = single(ctx, 'rmsnorm', 'y', t.y, R * D);
    const rstd = single(ctx, 'rmsnorm', 'rstd', t.rstd, R);
    if (ctx.tuning.rowReduce && R <= 1024) {
      // few rows (decode): one workgroup per row
      ctx.runtime.dispatch(rmsnormRowsProgram(elem(t.w.dtype)), [x, w, y, rstd], p, [R, 1, 1]);
      return;
    }
    ctx.runtime.dispatch(rmsnormProgram(elem(t.w.dtype), wg), [x, w, y, rstd], p, grid1d(R, wg));
  },

  rmsnormBackward(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const { R, D } = p;
    const k = 'rmsnormBackward';
    const x = single(ctx, k, 'x', t.x, R * D);
    const w = single(ctx, k, 'w', t.w, D, FLOATS);
    const rstd = single(ctx, k, 'rstd', t.rstd, R);
    const dy = single(ctx, k, 'dy', t.dy, R * D);
    const dx = single(ctx, k, 'dx', t.dx, R * D);
    ctx.runtime.dispatch(rmsnormDxProgram(elem(t.w.dtype), wg), [x, w, rstd, dy, dx], p, grid1d(R, wg));
    if (t.dw) {
      const dw = single(ctx, k, 'dw', t.dw, D);
      ctx.runtime.dispatch(rmsnormDwProgram(wg), [x, rstd, dy, dw], { R, D }, grid1d(D, wg));
    }
  },

  rope(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const { R, nHeads, Dh, theta } = p;
    if (Dh % 2 !== 0) throw new Error(`WebGPU rope: head dim Dh=${Dh} must be even`);
    const half = Dh / 2;
    const x = single(ctx, 'rope', 'x', t.x, R * nHeads * Dh);
    const pos = single(ctx, 'rope', 'pos', t.pos, R, IDS);
    const freq = t.invFreq
      ? single(ctx, 'rope', 'invFreq', t.invFreq, half)
      : ctx.constant(`rope:${theta}:${Dh}`, () => ropeTurnTable(theta, Dh));
    const n = R * nHeads * half;
    ctx.runtime.dispatch(
      ropeProgram(t.invFreq ? 'tensor' : 'fixed', wg),
      [x, pos, freq],
      { n, nHeads, half, Dh, sign: p.inverse ? -1 : 1 },
      grid1d(n, wg),
    );
  },

  qkvRope(ctx, { t, p }) {
    const { B, T, H, Hkv, Dh, Sdst, theta } = p;
    const k = 'qkvRope';
    const [d] = qkvRopePlan(ctx.tuning.wg, p).list;
    const R = B * T;
    const qkv = single(ctx, k, 'qkv', t.qkv, R * (H + 2 * Hkv) * Dh);
    const pos = single(ctx, k, 'pos', t.pos, R, IDS);
    const freq = t.invFreq
      ? single(ctx, k, 'invFreq', t.invFreq, Dh / 2)
      : ctx.constant(`rope:${theta}:${Dh}`, () => ropeTurnTable(theta, Dh));
    const q = single(ctx, k, 'q', t.q, R * H * Dh);
    const kv = kvElem(k, t.k, t.v);
    const kc = single(ctx, k, 'k', t.k, B * Sdst * Hkv * Dh, [kv]);
    const vc = single(ctx, k, 'v', t.v, B * Sdst * Hkv * Dh, [kv]);
    ctx.runtime.dispatch(
      (kv === 'f16' ? qkvRopeHalfProgram : qkvRopeProgram)(t.invFreq ? 'tensor' : 'fixed', ctx.tuning.wg),
      [qkv, pos, freq, q, kc, vc],
      d.params,
      d.grid,
    );
  },

  swigluPacked(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const n = p.R * p.F;
    const gu = single(ctx, 'swigluPacked', 'gu', t.gu, 2 * n);
    const h = single(ctx, 'swigluPacked', 'h', t.h, n);
    ctx.runtime.dispatch(swigluPackedProgram(wg), [gu, h], { n, F: p.F }, grid1d(n, wg));
  },

  attention(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const { B, T, S, H, Hkv, Dh } = p;
    const plan = attentionPlan(ctx.tuning, p);
    const k = 'attention';
    const q = single(ctx, k, 'q', t.q, B * T * H * Dh);
    const kv = kvElem(k, t.k, t.v); // f16: a KV cache in halves, widened as read
    if (kv === 'f16' && Dh % 2 !== 0) throw new Error(`WebGPU attention: an f16 KV cache needs an even Dh, got ${Dh}`);
    const kk = single(ctx, k, 'k', t.k, B * S * Hkv * Dh, [kv]);
    const v = single(ctx, k, 'v', t.v, B * S * Hkv * Dh, [kv]);
    const ks = single(ctx, k, 'keyStart', t.keyStart, B, IDS);
    const o = single(ctx, k, 'o', t.o, B * T * H * Dh);
    const lse = single(ctx, k, 'lse', t.lse, B * H * T);
    const [d0, d1] = plan.list;
    const G = H / Hkv;
    switch (plan.variant) {
      case AttentionVariant.Plain:
        ctx.runtime.dispatch(attentionProgram(Dh, wg, kv), [q, kk, v, ks, o, lse], d0.params, d0.grid);
        return;
      case AttentionVariant.Flash:
        ctx.runtime.dispatch(attentionDecodeProgram(Dh, G, true, kv), [q, kk, v, ks, o, lse], d0.params, d0.grid);
        return;
    }
    // split over key ranges: partials into scratch, then a merge
    const part = ctx.scratch(plan.partBytes, 'attention partials');
    const partial =
      plan.variant === AttentionVariant.FlashSplit
        ? attentionDecodeProgram(Dh, G, false, kv)
        : attentionPartialProgram(Dh, wg, kv);
    ctx.runtime.dispatch(partial, [q, kk, v, ks, part], d0.params, d0.grid);
    ctx.runtime.dispatch(attentionMergeProgram(Dh, wg), [part, o, lse], d1.params, d1.grid);
    ctx.releaseScratch(part);
  },

  attentionBackward(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const { B, T, H, Hkv, Dh } = p;
    checkHeads('attentionBackward', H, Hkv);
    const k = 'attentionBackward';
    const qn = B * T * H * Dh,
      kvn = B * T * Hkv * Dh;
    const q = single(ctx, k, 'q', t.q, qn);
    const kk = single(ctx, k, 'k', t.k, kvn);
    const v = single(ctx, k, 'v', t.v, kvn);
    const ks = single(ctx, k, 'keyStart', t.keyStart, B, IDS);
    const o = single(ctx, k, 'o', t.o, qn);
    const lse = single(ctx, k, 'lse', t.lse, B * H * T);
    const dout = single(ctx, k, 'dout', t.dout, qn);
    const dq = single(ctx, k, 'dq', t.dq, qn);
    const dk = single(ctx, k, 'dk', t.dk, kvn);
    const dv = single(ctx, k, 'dv', t.dv, kvn);
    const params = { B, T, S: T, past: 0, H, Hkv, scale: 1 / Math.sqrt(Dh) };
    const delta = ctx.scratch(B * H * T * 4, 'attention delta');
    const nq = B * T * H,
      nk = B * T * Hkv;
    ctx.runtime.dispatch(attentionDeltaProgram(Dh, wg), [o, dout, delta], { ...params, n: nq }, grid1d(nq, wg));
    if (ctx.tuning.tiledAttention) {
      // query and key rows staged in workgroup memory per block of 64 (attention-backward-tiled.ts); dk and dv in one kernel
      const nBlocks = backwardBlocks(T);
      const tp = { B, T, H, Hkv, scale: params.scale, nBlocks };
      ctx.runtime.dispatch(attentionDqTiledProgram(Dh), [q, kk, v, ks, lse, dout, delta, dq], tp, [
        B * H * nBlocks,
        1,
        1,
      ]);
      ctx.runtime.dispatch(attentionDkDvTiledProgram(Dh), [q, kk, v, ks, lse, dout, delta, dk, dv], tp, [
        B * Hkv * nBlocks,
        1,
        1,
      ]);
      ctx.releaseScratch(delta);
      return;
    }
    ctx.runtime.dispatch(
      attentionDqProgram(Dh, wg),
      [q, kk, v, ks, lse, dout, delta, dq],
      { ...params, n: nq },
      grid1d(nq, wg),
    );
    ctx.runtime.dispatch(
      attentionDkProgram(Dh, wg),
      [q, kk, v, ks, lse, dout, delta, dk],
      { ...params, n: nk },
      grid1d(nk, wg),
    );
    ctx.runtime.dispatch(attentionDvProgram(Dh, wg), [q, kk, ks, lse, dout, dv], { ...params, n: nk }, grid1d(nk, wg));
    ctx.releaseScratch(delta);
  },

  swiglu(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const n = p.R * p.F;
    const bufs = [
      single(ctx, 'swiglu', 'g', t.g, n),
      single(ctx, 'swiglu', 'u', t.u, n),
      single(ctx, 'swiglu', 'h', t.h, n),
    ];
    ctx.runtime.dispatch(swigluProgram(wg), bufs, { n }, grid1d(n, wg));
  },

  swigluBackward(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const n = p.R * p.F;
    const k = 'swigluBackward';
    const bufs = [
      single(ctx, k, 'g', t.g, n),
      single(ctx, k, 'u', t.u, n),
      single(ctx, k, 'dh', t.dh, n),
      single(ctx, k, 'dg', t.dg, n),
      single(ctx, k, 'du', t.du, n),
    ];
    ctx.runtime.dispatch(swigluBackwardProgram(wg), bufs, { n }, grid1d(n, wg));
  },

  embedding(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const { R, D } = p;
    const ids = single(ctx, 'embedding', 'ids', t.ids, R, IDS);
    const table = checked(ctx, 'embedding', 'table', t.table, D, FLOATS);
    if (table.rowElems !== D && table.chunks.length > 1) {
      throw new Error(`WebGPU embedding: split table '${t.table.label}' must have rows of D=${D} elements`);
    }
    const rowsTotal = t.table.size / D;
    if (t.out.dtype === 'f16') {
      // halves to halves (an f16 KV cache gathered to its live rows): words of two halves copied bit for bit
      if (t.table.dtype !== 'f16' || D % 2 !== 0)
        throw new Error(`WebGPU embedding: an f16 out needs an f16 table and an even D (got ${t.table.dtype}, D=${D})`);
      const out = single(ctx, 'embedding', 'out', t.out, R * D, ['f16']);
      for (const c of table.chunks) {
        const rows = table.chunks.length === 1 ? rowsTotal : c.rows;
        const n = (R * D) / 2;
        ctx.runtime.dispatch(
          embeddingHalfRowsProgram(wg),
          [ids, c.buffer, out],
          { n, D2: D / 2, row0: c.firstRow, rows },
          grid1d(n, wg),
        );
      }
      return;
    }
    const out = single(ctx, 'embedding', 'out', t.out, R * D);
    const program = embeddingProgram(elem(t.table.dtype), wg);
    for (const c of table.chunks) {
      const rows = table.chunks.length === 1 ? rowsTotal : c.rows;
      ctx.runtime.dispatch(program, [ids, c.buffer, out], { n: R * D, D, row0: c.firstRow, rows }, grid1d(R * D, wg));
    }
  },

  embeddingBackward(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const { U, D } = p;
    const k = 'embeddingBackward';
    const uniqueIds = single(ctx, k, 'uniqueIds', t.uniqueIds, U, IDS);
    const rowStart = single(ctx, k, 'rowStart', t.rowStart, U + 1, IDS);
    const rowList = single(ctx, k, 'rowList', t.rowList, 0, IDS);
    const dout = single(ctx, k, 'dout', t.dout, 0);
    const dtable = checked(ctx, k, 'dtable', t.dtable, D);
    if (dtable.rowElems !== D && dtable.chunks.length > 1) {
      throw new Error(`WebGPU embeddingBackward: split dtable '${t.dtable.label}' must have rows of D=${D} elements`);
    }
    const rowsTotal = t.dtable.size / D;
    for (const c of dtable.chunks) {
      const rows = dtable.chunks.length === 1 ? rowsTotal : c.rows;
      ctx.runtime.dispatch(
        embeddingBackwardProgram(wg),
        [dout, uniqueIds, rowStart, rowList, c.buffer],
        { n: U * D, D, row0: c.firstRow, rows },
        grid1d(U * D, wg),
      );
    }
  },

  logprob: runLogprob,
  logprobBackward: runLogprobBackward,
  lmHead: runLmHead,

  sample(ctx, { t, p }) {
    const logits = single(ctx, 'sample', 'logits', t.logits, p.L * p.V);
    const rowOf = single(ctx, 'sample', 'rowOf', t.rowOf, p.R, IDS);
    const stream = single(ctx, 'sample', 'stream', t.stream, p.R, IDS);
    const out = single(ctx, 'sample', 'out', t.out, p.R * 4, IDS);
    const mask = t.mask ? single(ctx, 'sample', 'mask', t.mask, p.R * Math.ceil(p.V / 32), IDS) : null;
    const [d] = samplePlan(p).list;
    ctx.runtime.dispatch(
      sampleProgram(mask ? 'masked' : 'plain'),
      mask ? [logits, rowOf, stream, out, mask] : [logits, rowOf, stream, out],
      d.params,
      d.grid,
    );
  },

  zero(ctx, { t, p }) {
    const x = checked(ctx, 'zero', 'x', t.x, p.n, FLOATS);
    // an f16 tensor (a KV cache in halves) holds 2 bytes per element; buffers are padded to whole words
    const bytes = (count: number) => (t.x.dtype === 'f16' ? Math.ceil(count / 2) * 4 : count * 4);
    perChunk('zero', [['x', x]], p.n, (i, count) => ctx.runtime.clear(x.chunks[i].buffer, 0, bytes(count)));
  },

  axpby(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const x = checked(ctx, 'axpby', 'x', t.x, p.n, FLOATS);
    const y = checked(ctx, 'axpby', 'y', t.y, p.n);
    perChunk(
      'axpby',
      [
        ['x', x],
        ['y', y],
      ],
      p.n,
      (i, count) => {
        ctx.runtime.dispatch(
          axpbyProgram(elem(t.x.dtype), wg),
          [x.chunks[i].buffer, y.chunks[i].buffer],
          { n: count, a: p.a, b: p.b },
          grid1d(count, wg),
        );
      },
    );
  },

  copyRows(ctx, { t, p }) {
    const { B, T, W, Sdst } = p;
    const half = t.dst.dtype === 'f16'; // halves packed in pairs: rounded to nearest even by pack2x16float
    const [d] = copyRowsPlan(ctx.tuning.wg, p, half).list;
    const src = single(ctx, 'copyRows', 'src', t.src, B * T * W);
    const dst = single(ctx, 'copyRows', 'dst', t.dst, ((p.dstB0 ?? 0) + B) * Sdst * W, half ? ['f16'] : ['f32']);
    ctx.runtime.dispatch((half ? copyRowsHalfProgram : copyRowsProgram)(ctx.tuning.wg), [src, dst], d.params, d.grid);
  },

  sumSquares(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const x = checked(ctx, 'sumSquares', 'x', t.x, p.n);
    const out = single(ctx, 'sumSquares', 'out', t.out, 1);
    const plan: Array<[number, number]> = [];
    let parts = 0;
    perChunk('sumSquares', [['x', x]], p.n, (i, count) => {
      const chunkParts = Math.min(4096, Math.ceil(count / 64));
      plan.push([i, count]);
      parts += chunkParts;
    });
    const partial = ctx.scratch(Math.max(1, parts) * 4, 'sumSquares partials');
    let base = 0;
    for (const [i, count] of plan) {
      const chunkParts = Math.min(4096, Math.ceil(count / 64));
      ctx.runtime.dispatch(
        sumSquaresPartialProgram(wg),
        [x.chunks[i].buffer, partial],
        { n: count, parts: chunkParts, base },
        grid1d(chunkParts, wg),
      );
      base += chunkParts;
    }
    ctx.runtime.dispatch(sumSquaresFinalProgram(), [partial, out], { parts, accumulate: p.accumulate }, [1, 1, 1]);
    ctx.releaseScratch(partial);
  },

  adamw(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    if (!(p.step >= 1)) throw new Error(`WebGPU adamw: step must be >= 1 (1-based), got ${p.step}`);
    const ps = checked(ctx, 'adamw', 'p', t.p, p.n);
    const g = checked(ctx, 'adamw', 'g', t.g, p.n);
    const m = checked(ctx, 'adamw', 'm', t.m, p.n);
    const v = checked(ctx, 'adamw', 'v', t.v, p.n);
    const bc1 = 1 - Math.pow(p.beta1, p.step);
    const bc2 = 1 - Math.pow(p.beta2, p.step);
    perChunk(
      'adamw',
      [
        ['p', ps],
        ['g', g],
        ['m', m],
        ['v', v],
      ],
      p.n,
      (i, count) => {
        ctx.runtime.dispatch(
          adamwProgram(wg),
          [ps.chunks[i].buffer, g.chunks[i].buffer, m.chunks[i].buffer, v.chunks[i].buffer],
          { ...p, n: count, bc1, bc2 },
          grid1d(count, wg),
        );
      },
    );
  },

  packTensors(ctx, { t, p }) {
    const total = t.parts.reduce((n, x) => n + x.size, 0);
    const flat = checked(ctx, 'packTensors', 'flat', t.flat, total, ['f32']);
    let at = 0;
    t.parts.forEach((part, i) => {
      const s = checked(ctx, 'packTensors', `parts[${i}]`, part, part.size, ['f32']);
      // copy chunk by chunk: a part or the flat tensor may be split over several buffers
      for (const c of s.chunks) {
        let done = 0;
        while (done < c.elems) {
          const flatElem = at + c.firstElem + done;
          const fc = flat.chunks.find((x) => flatElem >= x.firstElem && flatElem < x.firstElem + x.elems)!;
          const count = Math.min(c.elems - done, fc.firstElem + fc.elems - flatElem);
          const [src, srcOff, dst, dstOff] = p.unpack
            ? [fc.buffer, flatElem - fc.firstElem, c.buffer, done]
            : [c.buffer, done, fc.buffer, flatElem - fc.firstElem];
          ctx.runtime.copy(src, srcOff * 4, dst, dstOff * 4, count * 4);
          done += count;
        }
      }
      at += part.size;
    });
  },

  adamwPrepare(ctx, { t, p }) {
    const k = 'adamwPrepare';
    const normSq = single(ctx, k, 'normSq', t.normSq, 1);
    const state = single(ctx, k, 'state', t.state, adamwStateSize(p.capacity));
    if (!(p.record < p.capacity))
      throw new Error(`WebGPU adamwPrepare: record ${p.record} is outside the state's ${p.capacity} records`);
    const clip = p.clip > 0 && Number.isFinite(p.clip) ? p.clip : 0;
    ctx.runtime.dispatch(adamwPrepareProgram(), [normSq, state], { ...p, clip }, [1, 1, 1]);
  },

  adamwApply(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const k = 'adamwApply';
    const ps = checked(ctx, k, 'p', t.p, p.n);
    const g = checked(ctx, k, 'g', t.g, p.n);
    const m = checked(ctx, k, 'm', t.m, p.n);
    const v = checked(ctx, k, 'v', t.v, p.n);
    const state = single(ctx, k, 'state', t.state, ADAMW_STATE.RECORDS);
    perChunk(
      k,
      [
        ['p', ps],
        ['g', g],
        ['m', m],
        ['v', v],
      ],
      p.n,
      (i, count) => {
        ctx.runtime.dispatch(
          adamwApplyProgram(wg),
          [ps.chunks[i].buffer, g.chunks[i].buffer, m.chunks[i].buffer, v.chunks[i].buffer, state],
          { ...p, n: count },
          grid1d(count, wg),
        );
      },
    );
  },
};
