// Host side of the kernels over flat (possibly chunked) tensors on WebGPU: zero, axpby, the sum of squares, AdamW
// (per tensor, and the multi-tensor prepare / apply on packed groups) and the packing copies. Each walks the
// tensor's buffers chunk by chunk.
import { grid1d } from '../../kernels/wgsl/common.ts';
import { adamwProgram, axpbyProgram } from '../../kernels/wgsl/elementwise.ts';
import { adamwApplyProgram, adamwPrepareProgram } from '../../kernels/wgsl/adamw-device.ts';
import { ADAMW_STATE, adamwStateSize } from '../../kernels/cpu/adamw.ts';
import { sumSquaresFinalProgram, sumSquaresPartialProgram } from '../../kernels/wgsl/reduce.ts';
import { checked, elem, FLOATS, single, type KernelImpl } from './context.ts';
import type { GpuStorage } from './memory.ts';

/** Run `each(chunkIndex, count)` over the chunks of same-shaped flat tensors, for the first n elements. */
export function perChunk(
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

export const optimKernels: {
  [K in 'zero' | 'axpby' | 'sumSquares' | 'adamw' | 'packTensors' | 'adamwPrepare' | 'adamwApply']: KernelImpl<K>;
} = {
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
