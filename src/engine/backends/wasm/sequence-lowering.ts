// Which catalog kernel runs a WasmBackend.bySequence body may share as a program (sequence-program.ts), and as what:
// each lowering reproduces the call the kernel table (kernels.ts) would make, with the bytes each pointer moves by
// per sequence, or returns null (another storage, another path, parameters the kernel would reject), and the body
// then runs kernel by kernel. A lowered kernel must read and write only its own sequences' rows: a matmul's rows of
// a and c, a norm's rows, a sequence's cache rows and keys.
import type { Tensor } from '../../backend.ts';
import type { KernelArgs, KernelName } from '../../kernels/catalog.ts';
import type { CpuMemory } from '../../kernels/cpu/index.ts';
import { checkAttention, type FormatOf, type RopeTableOf } from './kernels.ts';
import { WasmRuntime, type PointerOf } from './runtime.ts';
import { type LoweredRun, SeqOp } from './sequence-program.ts';

/** A recorded kernel run. */
export interface KernelRun {
  kernel: KernelName;
  args: KernelArgs<KernelName>;
}

export type LowerRun = (mem: CpuMemory, run: KernelRun, B: number) => LoweredRun | null;

export function wasmSequenceLowering(
  rt: WasmRuntime,
  ptr: PointerOf,
  formatOf: FormatOf,
  ropeTable: RopeTableOf,
): LowerRun {
  const f32 = (...ts: Tensor[]) => ts.every((t) => formatOf(t) === 'f32' && t.dtype === 'f32');
  /** a [M, K] x op(B) few-rows matmul of M = B * per rows (the path matmulAt takes for such M), as a run */
  const fewRows = (
    a: Tensor,
    b: Tensor,
    c: Tensor,
    bias: Tensor | undefined,
    M: number,
    N: number,
    K: number,
    transB: 0 | 1,
    alpha: number,
    beta: number,
    B: number,
  ): LoweredRun | null => {
    if (!f32(a, b, c) || (bias && !f32(bias)) || M % B !== 0 || !WasmRuntime.usesFewRows(M, 0, transB)) return null;
    const per = M / B;
    return {
      op: SeqOp.FewRows,
      rowsPerSeq: per,
      args: [ptr(a), ptr(b), ptr(c), bias ? ptr(bias) : 0, N, K, transB],
      strides: [per * K * 4, 0, per * N * 4, 0, 0, 0, 0],
      floats: [alpha, beta],
    };
  };

  return (mem, run, B) => {
    switch (run.kernel) {
      case 'rmsnorm': {
        const { t, p } = run.args as KernelArgs<'rmsnorm'>;
        if (p.R % B !== 0 || !f32(t.x, t.w, t.y)) return null;
        const per = p.R / B;
        return {
          op: SeqOp.Rmsnorm,
          rowsPerSeq: per,
          args: [ptr(t.x), ptr(t.w), ptr(t.y), ptr(t.rstd), p.D],
          strides: [per * p.D * 4, 0, per * p.D * 4, per * 4, 0],
          floats: [p.eps, 0],
        };
      }
      case 'matmul': {
        const { t, p } = run.args as KernelArgs<'matmul'>;
        if (p.transA !== 0) return null;
        return fewRows(t.a, t.b, t.c, t.bias, p.M, p.N, p.K, p.transB, p.alpha, p.beta, B);
      }
      case 'lmHead': {
        const { t, p } = run.args as KernelArgs<'lmHead'>;
        return fewRows(t.h, t.w, t.logits, undefined, p.R, p.V, p.D, 1, 1, 0, B);
      }
      case 'qkvRope': {
        const { t, p } = run.args as KernelArgs<'qkvRope'>;
        const { T, H, Hkv, Dh, Sdst, dstRow0 } = p;
        if (p.B !== B || !f32(t.qkv, t.q, t.k, t.v) || dstRow0 < 0 || dstRow0 + T > Sdst) return null;
        const table = ropeTable(mem, t.invFreq, t.pos, B * T, Dh, p.theta);
        if (table === null) return null;
        const cacheRows = Sdst * Hkv * Dh * 4;
        return {
          op: SeqOp.QkvRope,
          rowsPerSeq: 1,
          args: [
            ptr(t.qkv),
            ptr(t.q),
            ptr(t.k),
            ptr(t.v),
            ptr(t.pos),
            table.cos,
            table.sin,
            T,
            H,
            Hkv,
            Dh,
            Sdst,
            dstRow0,
          ],
          strides: [T * (H + 2 * Hkv) * Dh * 4, T * H * Dh * 4, cacheRows, cacheRows, T * 4, 0, 0, 0, 0, 0, 0, 0, 0],
        };
      }
      case 'attention': {
        const { t, p } = run.args as KernelArgs<'attention'>;
        const { T, S, past, H, Hkv, Dh } = p;
        if (p.B !== B || !f32(t.q, t.k, t.v, t.o)) return null;
        try {
          checkAttention(H, Hkv, past + T, S);
        } catch {
          return null; // the kernel run alone reports it
        }
        const scores = rt.reserve('attention.scores', 2 * S * 4);
        const helperScores = rt.reserve('attention.scores.helper', 2 * S * 4);
        const rows = T * H * Dh * 4;
        const keys = S * Hkv * Dh * 4;
        return {
          op: SeqOp.Attention,
          rowsPerSeq: 1,
          args: [
            ptr(t.q),
            ptr(t.k),
            ptr(t.v),
            ptr(t.keyStart),
            ptr(t.o),
            ptr(t.lse),
            scores,
            helperScores,
            T,
            S,
            past,
            H,
            Hkv,
            Dh,
          ],
          strides: [rows, keys, keys, 4, rows, H * T * 4, 0, 0, 0, 0, 0, 0, 0, 0],
        };
      }
      case 'swigluPacked': {
        const { t, p } = run.args as KernelArgs<'swigluPacked'>;
        if (p.R % B !== 0 || !f32(t.gu, t.h)) return null;
        const per = p.R / B;
        return {
          op: SeqOp.SwigluPacked,
          rowsPerSeq: per,
          args: [ptr(t.gu), ptr(t.h), p.F],
          strides: [per * 2 * p.F * 4, per * p.F * 4, 0],
        };
      }
      default:
        return null;
    }
  };
}
