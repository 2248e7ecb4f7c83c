// Host side of every catalog kernel on WebGPU: checks the arguments, picks the WGSL program (kernels/wgsl),
// walks tensors that are split over several buffers, and records the dispatches. Semantics are the catalog's
// (src/engine/kernels/catalog.ts); the CPU backend is the reference the tests compare against. The attention
// kernels live in kernels-attention.ts, those over flat tensors (zero, axpby, AdamW, packing) in kernels-optim.ts.
import type { KernelName } from '../../kernels/catalog.ts';
import { grid1d } from '../../kernels/wgsl/common.ts';
import {
  copyRowsHalfProgram,
  copyRowsProgram,
  swigluBackwardProgram,
  swigluProgram,
} from '../../kernels/wgsl/elementwise.ts';
import { rmsnormDwProgram, rmsnormDxProgram, rmsnormProgram, rmsnormRowsProgram } from '../../kernels/wgsl/norm.ts';
import { DW_COLS, rmsnormDwColsProgram, rmsnormDxRowsProgram } from '../../kernels/wgsl/norm-rows.ts';
import { ropeProgram, ropeTurnTable } from '../../kernels/wgsl/rope.ts';
import { swigluPackedProgram } from '../../kernels/wgsl/fused.ts';
import { embeddingBackwardProgram, embeddingHalfRowsProgram, embeddingProgram } from '../../kernels/wgsl/embedding.ts';
import { sumRowsProgram } from '../../kernels/wgsl/reduce.ts';
import { sampleProgram } from '../../kernels/wgsl/sample.ts';
import { checked, elem, FLOATS, IDS, single, view, type KernelImpl } from './context.ts';
import { runMatmul } from './matmul.ts';
import { runLmHead, runLogprob, runLogprobBackward } from './logprob.ts';
import { attentionKernels } from './kernels-attention.ts';
import { optimKernels, perChunk } from './kernels-optim.ts';
import type { GpuStorage } from './memory.ts';
import { rowSpans } from './row-spans.ts';
import { copyRowsPlan, samplePlan } from './step-plans.ts';

export const webgpuKernels: { [K in KernelName]: KernelImpl<K> } = {
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
    if (ctx.tuning.rowReduce) {
      // one workgroup per row (a workgroup-memory reduction of Σ x²)
      ctx.runtime.dispatch(rmsnormRowsProgram(elem(t.w.dtype)), [x, w, y, rstd], p, grid1d(R, 1));
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
    const rows = ctx.tuning.rowReduce;
    // rows: one workgroup per row for dx, 4 row lanes per feature for dw (workgroup-memory reductions)
    if (rows) ctx.runtime.dispatch(rmsnormDxRowsProgram(elem(t.w.dtype)), [x, w, rstd, dy, dx], p, grid1d(R, 1));
    else ctx.runtime.dispatch(rmsnormDxProgram(elem(t.w.dtype), wg), [x, w, rstd, dy, dx], p, grid1d(R, wg));
    if (t.dw) {
      const dw = single(ctx, k, 'dw', t.dw, D);
      if (rows)
        ctx.runtime.dispatch(rmsnormDwColsProgram(), [x, rstd, dy, dw], { R, D }, [Math.ceil(D / DW_COLS), 1, 1]);
      else ctx.runtime.dispatch(rmsnormDwProgram(wg), [x, rstd, dy, dw], { R, D }, grid1d(D, wg));
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

  swigluPacked(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const { R, F } = p;
    const gu = checked(ctx, 'swigluPacked', 'gu', t.gu, 2 * R * F);
    const h = checked(ctx, 'swigluPacked', 'h', t.h, R * F);
    // gu [R, 2F] and h [R, F] split over buffers at different rows: one dispatch per span of rows
    const spans = rowSpans('swigluPacked', R, [
      { name: 'gu', storage: gu, width: 2 * F },
      { name: 'h', storage: h, width: F },
    ]);
    for (const { r0, r1, buffers, offsets } of spans) {
      const n = (r1 - r0) * F;
      const params = { n, F, offGu: offsets[0], offH: offsets[1] };
      ctx.runtime.dispatch(swigluPackedProgram(wg), buffers, params, grid1d(n, wg));
    }
  },

  swiglu(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const n = p.R * p.F;
    const k = 'swiglu';
    // g, u, h [R, F] split alike over buffers (activations above maxStorageBufferBindingSize): chunk by chunk
    const parts = (['g', 'u', 'h'] as const).map((name): [string, GpuStorage] => [
      name,
      checked(ctx, k, name, t[name], n),
    ]);
    perChunk(k, parts, n, (i, count) =>
      ctx.runtime.dispatch(
        swigluProgram(wg),
        parts.map(([, s]) => s.chunks[i].buffer),
        { n: count },
        grid1d(count, wg),
      ),
    );
  },

  swigluBackward(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const n = p.R * p.F;
    const k = 'swigluBackward';
    const parts = (['g', 'u', 'dh', 'dg', 'du'] as const).map((name): [string, GpuStorage] => [
      name,
      checked(ctx, k, name, t[name], n),
    ]);
    perChunk(k, parts, n, (i, count) =>
      ctx.runtime.dispatch(
        swigluBackwardProgram(wg),
        parts.map(([, s]) => s.chunks[i].buffer),
        { n: count },
        grid1d(count, wg),
      ),
    );
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

  copyRows(ctx, { t, p }) {
    const { B, T, W, Sdst } = p;
    const half = t.dst.dtype === 'f16'; // halves packed in pairs: rounded to nearest even by pack2x16float
    const [d] = copyRowsPlan(ctx.tuning.wg, p, half).list;
    const src = single(ctx, 'copyRows', 'src', t.src, B * T * W);
    const dst = single(ctx, 'copyRows', 'dst', t.dst, ((p.dstB0 ?? 0) + B) * Sdst * W, half ? ['f16'] : ['f32']);
    const buffers = half ? [src, dst, ctx.halfClamps] : [src, dst];
    ctx.runtime.dispatch((half ? copyRowsHalfProgram : copyRowsProgram)(ctx.tuning.wg), buffers, d.params, d.grid);
  },
  ...attentionKernels,
  ...optimKernels,
};
