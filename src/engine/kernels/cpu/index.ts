// The CPU kernel table: maps every kernel of the catalog (../catalog.ts) to its TypeScript implementation.
// CpuBackend runs this table after the size checks of ../arg-checks.ts; WasmBackend overrides some entries.

import type { Tensor } from '../../backend.ts';
import type { KernelArgs, KernelName } from '../catalog.ts';
import { adamw, adamwApply, adamwPrepare } from './adamw.ts';
import { attention, attentionBackward } from './attention.ts';
import { axpby, copyRows, sumSquares } from './elementwise.ts';
import { embedding, embeddingBackward } from './embedding.ts';
import { lmHead, logprob, logprobBackward } from './logprob.ts';
import { matmul, sumRows } from './matmul.ts';
import { rmsnorm, rmsnormBackward } from './rmsnorm.ts';
import { rope } from './rope.ts';
import { sample } from './sample.ts';
import { swiglu, swigluBackward, swigluPacked } from './swiglu.ts';
import { qkvRope } from './fused.ts';

/** Raw host arrays behind tensors (CpuBackend implements this). */
export interface CpuMemory {
  /** the Float32Array behind an f32 (or f16-stored-as-f32) tensor, no copy */
  f32(t: Tensor): Float32Array;
  /** the Int32Array behind an i32 or u32 tensor, no copy */
  i32(t: Tensor): Int32Array;
  /** counts values a write into an f16 KV cache clamped to ±65,504 (Backend.halfClamps) */
  halfClamped(n: number): void;
}

export type CpuKernel<K extends KernelName> = (mem: CpuMemory, t: KernelArgs<K>['t'], p: KernelArgs<K>['p']) => void;
export type CpuKernelTable = { [K in KernelName]: CpuKernel<K> };

export const cpuKernels: CpuKernelTable = {
  matmul(mem, t, p) {
    const bias = t.bias ? mem.f32(t.bias) : null;
    matmul(mem.f32(t.a), mem.f32(t.b), mem.f32(t.c), bias, p.M, p.N, p.K, p.transA, p.transB, p.alpha, p.beta);
  },
  sumRows(mem, t, p) {
    sumRows(mem.f32(t.x), mem.f32(t.out), p.M, p.N, p.beta);
  },
  rmsnorm(mem, t, p) {
    rmsnorm(mem.f32(t.x), mem.f32(t.w), mem.f32(t.y), mem.f32(t.rstd), p.R, p.D, p.eps);
  },
  rmsnormBackward(mem, t, p) {
    const dw = t.dw ? mem.f32(t.dw) : null;
    rmsnormBackward(
      mem.f32(t.x),
      mem.f32(t.w),
      mem.f32(t.rstd),
      mem.f32(t.dy),
      mem.f32(t.dx),
      dw,
      p.R,
      p.D,
      p.accumulate,
    );
  },
  rope(mem, t, p) {
    rope(mem.f32(t.x), mem.i32(t.pos), p.R, p.nHeads, p.Dh, p.theta, p.inverse, t.invFreq ? mem.f32(t.invFreq) : null);
  },
  attention(mem, t, p) {
    attention(
      mem.f32(t.q),
      mem.f32(t.k),
      mem.f32(t.v),
      mem.i32(t.keyStart),
      mem.f32(t.o),
      mem.f32(t.lse),
      p.B,
      p.T,
      p.S,
      p.past,
      p.H,
      p.Hkv,
      p.Dh,
    );
  },
  attentionBackward(mem, t, p) {
    attentionBackward(
      mem.f32(t.q),
      mem.f32(t.k),
      mem.f32(t.v),
      mem.i32(t.keyStart),
      mem.f32(t.o),
      mem.f32(t.lse),
      mem.f32(t.dout),
      mem.f32(t.dq),
      mem.f32(t.dk),
      mem.f32(t.dv),
      p.B,
      p.T,
      p.S,
      p.past,
      p.H,
      p.Hkv,
      p.Dh,
    );
  },
  swiglu(mem, t, p) {
    swiglu(mem.f32(t.g), mem.f32(t.u), mem.f32(t.h), p.R, p.F);
  },
  swigluBackward(mem, t, p) {
    swigluBackward(mem.f32(t.g), mem.f32(t.u), mem.f32(t.dh), mem.f32(t.dg), mem.f32(t.du), p.R, p.F);
  },
  qkvRope(mem, t, p) {
    const clamped = qkvRope(
      mem.f32(t.qkv),
      mem.i32(t.pos),
      t.invFreq ? mem.f32(t.invFreq) : null,
      mem.f32(t.q),
      mem.f32(t.k),
      mem.f32(t.v),
      p,
      t.k.dtype === 'f16',
    );
    mem.halfClamped(clamped);
  },
  swigluPacked(mem, t, p) {
    swigluPacked(mem.f32(t.gu), mem.f32(t.h), p.R, p.F);
  },
  embedding(mem, t, p) {
    // an f16 out (an f16 KV cache compacted) gathers halves, already rounded: the values are copied as they are
    if (t.out.dtype === 'f16' && t.table.dtype !== 'f16')
      throw new Error(`embedding: an f16 out needs an f16 table, got ${t.table.dtype} ('${t.table.label}')`);
    embedding(mem.i32(t.ids), mem.f32(t.table), mem.f32(t.out), p.R, p.D);
  },
  embeddingBackward(mem, t, p) {
    embeddingBackward(
      mem.f32(t.dout),
      mem.i32(t.uniqueIds),
      mem.i32(t.rowStart),
      mem.i32(t.rowList),
      mem.f32(t.dtable),
      p.U,
      p.D,
    );
  },
  logprob(mem, t, p) {
    logprob(
      mem.f32(t.h),
      mem.f32(t.w),
      mem.i32(t.target),
      mem.f32(t.logp),
      mem.f32(t.entropy),
      mem.f32(t.lse),
      p.R,
      p.D,
      p.V,
    );
  },
  logprobBackward(mem, t, p) {
    logprobBackward(
      mem.f32(t.h),
      mem.f32(t.w),
      mem.i32(t.target),
      mem.f32(t.lse),
      mem.f32(t.entropy),
      mem.f32(t.coef),
      mem.f32(t.entCoef),
      mem.f32(t.dh),
      t.dw ? mem.f32(t.dw) : null,
      p.R,
      p.D,
      p.V,
    );
  },
  lmHead(mem, t, p) {
    lmHead(mem.f32(t.h), mem.f32(t.w), mem.f32(t.logits), p.R, p.D, p.V);
  },
  sample(mem, t, p) {
    sample(
      mem.f32(t.logits),
      mem.i32(t.rowOf),
      mem.i32(t.stream),
      mem.i32(t.out),
      p.R,
      p.L,
      p.V,
      p,
      t.mask ? mem.i32(t.mask) : null,
    );
  },
  zero(mem, t, p) {
    mem.f32(t.x).fill(0, 0, p.n);
  },
  axpby(mem, t, p) {
    axpby(mem.f32(t.x), mem.f32(t.y), p.n, p.a, p.b);
  },
  copyRows(mem, t, p) {
    const half = t.dst.dtype === 'f16';
    mem.halfClamped(copyRows(mem.f32(t.src), mem.f32(t.dst), p.B, p.T, p.W, p.Sdst, p.dstRow0, p.dstB0 ?? 0, half));
  },
  sumSquares(mem, t, p) {
    sumSquares(mem.f32(t.x), mem.f32(t.out), p.n, p.accumulate);
  },
  packTensors(mem, t, p) {
    const flat = mem.f32(t.flat);
    let at = 0;
    for (const part of t.parts) {
      const x = mem.f32(part).subarray(0, part.size);
      if (p.unpack) x.set(flat.subarray(at, at + part.size));
      else flat.set(x, at);
      at += part.size;
    }
  },
  adamwPrepare(mem, t, p) {
    adamwPrepare(mem.f32(t.normSq), mem.f32(t.state), p.known, p.record, p.capacity, p.clip);
  },
  adamwApply(mem, t, p) {
    adamwApply(
      mem.f32(t.p),
      mem.f32(t.g),
      mem.f32(t.m),
      mem.f32(t.v),
      mem.f32(t.state),
      p.n,
      p.beta1,
      p.beta2,
      p.eps,
      p.weightDecay,
    );
  },
  adamw(mem, t, p) {
    adamw(
      mem.f32(t.p),
      mem.f32(t.g),
      mem.f32(t.m),
      mem.f32(t.v),
      p.n,
      p.lr,
      p.beta1,
      p.beta2,
      p.eps,
      p.weightDecay,
      p.step,
      p.gradScale,
    );
  },
};
