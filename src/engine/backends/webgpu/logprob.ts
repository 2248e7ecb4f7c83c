// Host side of the LM-head kernels on WebGPU: lmHead (plain logits), logprob and logprobBackward, which walk
// the vocabulary in chunks of Vc rows of W so [R, V] logits never exist at once (only [R, Vc] scratch).
// Per chunk v0..v0+n:
//   logprob:          z = h W_c^T (matmul) -> sliceStats -> mergeStats (running max / sum / entropy term)
//   logprobBackward:  z = h W_c^T -> dlogits in place -> dh (+)= dl W_c  -> dw_c += dl^T h (when dw is given)
// W (and dw) may themselves be split over several buffers; the matmul runner handles that.
import type { KernelArgs } from '../../kernels/catalog.ts';
import { grid1d } from '../../kernels/wgsl/common.ts';
import { dlogitsProgram, LOGPROB_SLICE, mergeStatsProgram, sliceStatsProgram } from '../../kernels/wgsl/logprob.ts';
import { checked, single, view, type GpuContext } from './context.ts';
import { runMatmul, type MatView } from './matmul.ts';

const IDS = ['i32', 'u32'];
const FLOATS = ['f32', 'f16'];

/** Vocabulary rows per chunk so that the [R, Vc] logits fit the scratch budget; a multiple of the slice. */
export function vocabChunk(R: number, V: number, scratchBytes: number): number {
  const fit = Math.floor(scratchBytes / (4 * Math.max(R, 1)));
  if (fit >= V) return V;
  return Math.max(1, fit >= LOGPROB_SLICE ? fit - (fit % LOGPROB_SLICE) : fit);
}

function scratchView(buffer: GPUBuffer, ld: number, name: string): MatView {
  return {
    chunks: [{ buffer, firstElem: 0, elems: buffer.size / 4, firstRow: 0, rows: 0 }],
    dtype: 'f32',
    elem0: 0,
    ld,
    name,
  };
}

export function runLmHead(ctx: GpuContext, { t, p }: KernelArgs<'lmHead'>): void {
  const { R, D, V } = p;
  const h = checked(ctx, 'lmHead', 'h', t.h, R * D);
  const w = checked(ctx, 'lmHead', 'w', t.w, V * D, FLOATS);
  const logits = checked(ctx, 'lmHead', 'logits', t.logits, R * V);
  runMatmul(
    ctx.runtime,
    ctx.dummy,
    {
      a: view(h, 'h', D),
      b: view(w, 'w', D),
      c: view(logits, 'logits', V),
      M: R,
      N: V,
      K: D,
      transA: 0,
      transB: 1,
      alpha: 1,
      beta: 0,
    },
    ctx.tuning,
  );
}

export function runLogprob(ctx: GpuContext, { t, p }: KernelArgs<'logprob'>): void {
  const wg = ctx.tuning.wg;
  const { R, D, V } = p;
  const k = 'logprob';
  const h = checked(ctx, k, 'h', t.h, R * D);
  const w = checked(ctx, k, 'w', t.w, V * D, FLOATS);
  const target = single(ctx, k, 'target', t.target, R, IDS);
  const logp = single(ctx, k, 'logp', t.logp, R);
  const entropy = single(ctx, k, 'entropy', t.entropy, R);
  const lse = single(ctx, k, 'lse', t.lse, R);
  if (R === 0) return;
  if (V === 0) throw new Error('WebGPU logprob: V must be at least 1');
  const Vc = vocabChunk(R, V, ctx.scratchBytes);
  const maxSlices = Math.ceil(Vc / LOGPROB_SLICE);
  const z = ctx.scratch(R * Vc * 4, 'logprob logits');
  const partial = ctx.scratch(R * maxSlices * 3 * 4, 'logprob partials');
  const stats = ctx.scratch(R * 4 * 4, 'logprob stats');
  for (let v0 = 0; v0 < V; v0 += Vc) {
    const n = Math.min(Vc, V - v0);
    const slices = Math.ceil(n / LOGPROB_SLICE);
    runMatmul(
      ctx.runtime,
      ctx.dummy,
      {
        a: view(h, 'h', D),
        b: view(w, 'w', D, v0 * D),
        c: scratchView(z, n, 'logits chunk'),
        M: R,
        N: n,
        K: D,
        transA: 0,
        transB: 1,
        alpha: 1,
        beta: 0,
      },
      ctx.tuning,
    );
    ctx.runtime.dispatch(sliceStatsProgram(wg), [z, partial], { R, n, slices }, grid1d(R * slices, wg));
    ctx.runtime.dispatch(
      mergeStatsProgram(wg),
      [z, partial, target, stats, logp, entropy, lse],
      { R, n, slices, v0, first: v0 === 0 ? 1 : 0, last: v0 + n >= V ? 1 : 0 },
      grid1d(R, wg),
    );
  }
  ctx.releaseScratch(z);
  ctx.releaseScratch(partial);
  ctx.releaseScratch(stats);
}

export function runLogprobBackward(ctx: GpuContext, { t, p }: KernelArgs<'logprobBackward'>): void {
  const wg = ctx.tuning.wg;
  const { R, D, V } = p;
  const k = 'logprobBackward';
  const h = checked(ctx, k, 'h', t.h, R * D);
  const w = checked(ctx, k, 'w', t.w, V * D, FLOATS);
  const target = single(ctx, k, 'target', t.target, R, IDS);
  const lse = single(ctx, k, 'lse', t.lse, R);
  const entropy = single(ctx, k, 'entropy', t.entropy, R);
  const coef = single(ctx, k, 'coef', t.coef, R);
  const entCoef = single(ctx, k, 'entCoef', t.entCoef, R);
  const dh = checked(ctx, k, 'dh', t.dh, R * D);
  const dw = t.dw ? checked(ctx, k, 'dw', t.dw, V * D) : undefined;
  if (R === 0) return;
  const Vc = vocabChunk(R, V, ctx.scratchBytes);
  const z = ctx.scratch(R * Vc * 4, 'logprobBackward dlogits');
  for (let v0 = 0; v0 < V; v0 += Vc) {
    const n = Math.min(Vc, V - v0);
    const dl = scratchView(z, n, 'dlogits chunk');
    runMatmul(
      ctx.runtime,
      ctx.dummy,
      {
        a: view(h, 'h', D),
        b: view(w, 'w', D, v0 * D),
        c: dl,
        M: R,
        N: n,
        K: D,
        transA: 0,
        transB: 1,
        alpha: 1,
        beta: 0,
      },
      ctx.tuning,
    );
    ctx.runtime.dispatch(dlogitsProgram(wg), [z, target, lse, entropy, coef, entCoef], { R, n, v0 }, grid1d(R * n, wg));
    // dh[R,D] (+)= dl[R,n] @ W_c[n,D]
    runMatmul(
      ctx.runtime,
      ctx.dummy,
      {
        a: dl,
        b: view(w, 'w', D, v0 * D),
        c: view(dh, 'dh', D),
        M: R,
        N: D,
        K: n,
        transA: 0,
        transB: 0,
        alpha: 1,
        beta: v0 === 0 ? 0 : 1,
      },
      ctx.tuning,
    );
    // dw[v0:v0+n, D] += dl^T[n,R] @ h[R,D]
    if (dw) {
      runMatmul(
        ctx.runtime,
        ctx.dummy,
        {
          a: dl,
          b: view(h, 'h', D),
          c: view(dw, 'dw', D, v0 * D),
          M: n,
          N: D,
          K: R,
          transA: 1,
          transB: 0,
          alpha: 1,
          beta: 1,
        },
        ctx.tuning,
      );
    }
  }
  if (V === 0) {
    runMatmul(
      ctx.runtime,
      ctx.dummy,
      {
        a: view(h, 'h', D),
        b: view(h, 'h', D),
        c: view(dh, 'dh', D),
        M: R,
        N: D,
        K: 0,
        transA: 0,
        transB: 0,
        alpha: 0,
        beta: 0,
      },
      ctx.tuning,
    );
  }
  ctx.releaseScratch(z);
}
