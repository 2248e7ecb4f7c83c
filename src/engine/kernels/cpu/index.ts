// The CPU kernel table: maps every kernel of the catalog (../catalog.ts) to its TypeScript implementation,
// after checking that each tensor holds at least the elements the scalar parameters imply (a clear error
// instead of silently reading past the end). CpuBackend runs this table; WasmBackend overrides some entries.

import type { Tensor } from '../../backend.ts';
import type { KernelArgs, KernelName } from '../catalog.ts';
import { adamw } from './adamw.ts';
import { attention, attentionBackward } from './attention.ts';
import { axpby, copyRows, sumSquares } from './elementwise.ts';
import { embedding, embeddingBackward } from './embedding.ts';
import { lmHead, logprob, logprobBackward } from './logprob.ts';
import { matmul, sumRows } from './matmul.ts';
import { rmsnorm, rmsnormBackward } from './rmsnorm.ts';
import { rope } from './rope.ts';
import { swiglu, swigluBackward } from './swiglu.ts';

/** Raw host arrays behind tensors (CpuBackend implements this). */
export interface CpuMemory {
  /** the Float32Array behind an f32 (or f16-stored-as-f32) tensor, no copy */
  f32(t: Tensor): Float32Array;
  /** the Int32Array behind an i32 or u32 tensor, no copy */
  i32(t: Tensor): Int32Array;
}

export type CpuKernel<K extends KernelName> = (mem: CpuMemory, t: KernelArgs<K>['t'], p: KernelArgs<K>['p']) => void;
export type CpuKernelTable = { [K in KernelName]: CpuKernel<K> };

/** Throws when tensor `t` (argument `name` of `kernel`) has fewer than `n` elements. */
export function need(kernel: string, name: string, t: Tensor, n: number): void {
  if (t.size < n) {
    throw new Error(
      `${kernel}: tensor '${name}' (${t.label || `#${t.id}`}, shape [${t.shape.join(',')}]) has ${t.size} elements, ` +
        `the parameters need ${n}`,
    );
  }
}

export const cpuKernels: CpuKernelTable = {
  matmul(mem, t, p) {
    need('matmul', 'a', t.a, p.M * p.K);
    need('matmul', 'b', t.b, p.K * p.N);
    need('matmul', 'c', t.c, p.M * p.N);
    if (t.bias) need('matmul', 'bias', t.bias, p.N);
    const bias = t.bias ? mem.f32(t.bias) : null;
    matmul(mem.f32(t.a), mem.f32(t.b), mem.f32(t.c), bias, p.M, p.N, p.K, p.transA, p.transB, p.alpha, p.beta);
  },
  sumRows(mem, t, p) {
    need('sumRows', 'x', t.x, p.M * p.N);
    need('sumRows', 'out', t.out, p.N);
    sumRows(mem.f32(t.x), mem.f32(t.out), p.M, p.N, p.beta);
  },
  rmsnorm(mem, t, p) {
    for (const [n, x] of [['x', t.x], ['y', t.y]] as const) need('rmsnorm', n, x, p.R * p.D);
    need('rmsnorm', 'w', t.w, p.D);
    need('rmsnorm', 'rstd', t.rstd, p.R);
    rmsnorm(mem.f32(t.x), mem.f32(t.w), mem.f32(t.y), mem.f32(t.rstd), p.R, p.D, p.eps);
  },
  rmsnormBackward(mem, t, p) {
    for (const [n, x] of [['x', t.x], ['dy', t.dy], ['dx', t.dx]] as const) need('rmsnormBackward', n, x, p.R * p.D);
    need('rmsnormBackward', 'w', t.w, p.D);
    need('rmsnormBackward', 'rstd', t.rstd, p.R);
    if (t.dw) need('rmsnormBackward', 'dw', t.dw, p.D);
    const dw = t.dw ? mem.f32(t.dw) : null;
    rmsnormBackward(mem.f32(t.x), mem.f32(t.w), mem.f32(t.rstd), mem.f32(t.dy), mem.f32(t.dx), dw, p.R, p.D, p.accumulate);
  },
  rope(mem, t, p) {
    need('rope', 'x', t.x, p.R * p.nHeads * p.Dh);
    need('rope', 'pos', t.pos, p.R);
    if (t.invFreq) need('rope', 'invFreq', t.invFreq, p.Dh / 2);
    rope(mem.f32(t.x), mem.i32(t.pos), p.R, p.nHeads, p.Dh, p.theta, p.inverse, t.invFreq ? mem.f32(t.invFreq) : null);
  },
  attention(mem, t, p) {
    need('attention', 'q', t.q, p.B * p.T * p.H * p.Dh);
    need('attention', 'o', t.o, p.B * p.T * p.H * p.Dh);
    need('attention', 'k', t.k, p.B * p.S * p.Hkv * p.Dh);
    need('attention', 'v', t.v, p.B * p.S * p.Hkv * p.Dh);
    need('attention', 'keyStart', t.keyStart, p.B);
    need('attention', 'lse', t.lse, p.B * p.H * p.T);
    attention(
      mem.f32(t.q), mem.f32(t.k), mem.f32(t.v), mem.i32(t.keyStart), mem.f32(t.o), mem.f32(t.lse),
      p.B, p.T, p.S, p.past, p.H, p.Hkv, p.Dh,
    );
  },
  attentionBackward(mem, t, p) {
    const nq = p.B * p.T * p.H * p.Dh, nkv = p.B * p.T * p.Hkv * p.Dh;
    for (const [n, x] of [['q', t.q], ['o', t.o], ['dout', t.dout], ['dq', t.dq]] as const) need('attentionBackward', n, x, nq);
    for (const [n, x] of [['k', t.k], ['v', t.v], ['dk', t.dk], ['dv', t.dv]] as const) need('attentionBackward', n, x, nkv);
    need('attentionBackward', 'keyStart', t.keyStart, p.B);
    need('attentionBackward', 'lse', t.lse, p.B * p.H * p.T);
    attentionBackward(
      mem.f32(t.q), mem.f32(t.k), mem.f32(t.v), mem.i32(t.keyStart), mem.f32(t.o), mem.f32(t.lse), mem.f32(t.dout),
      mem.f32(t.dq), mem.f32(t.dk), mem.f32(t.dv), p.B, p.T, p.H, p.Hkv, p.Dh,
    );
  },
  swiglu(mem, t, p) {
    for (const [n, x] of [['g', t.g], ['u', t.u], ['h', t.h]] as const) need('swiglu', n, x, p.R * p.F);
    swiglu(mem.f32(t.g), mem.f32(t.u), mem.f32(t.h), p.R, p.F);
  },
  swigluBackward(mem, t, p) {
    for (const [n, x] of [['g', t.g], ['u', t.u], ['dh', t.dh], ['dg', t.dg], ['du', t.du]] as const) {
      need('swigluBackward', n, x, p.R * p.F);
    }
    swigluBackward(mem.f32(t.g), mem.f32(t.u), mem.f32(t.dh), mem.f32(t.dg), mem.f32(t.du), p.R, p.F);
  },
  embedding(mem, t, p) {
    need('embedding', 'ids', t.ids, p.R);
    need('embedding', 'out', t.out, p.R * p.D);
    embedding(mem.i32(t.ids), mem.f32(t.table), mem.f32(t.out), p.R, p.D);
  },
  embeddingBackward(mem, t, p) {
    need('embeddingBackward', 'uniqueIds', t.uniqueIds, p.U);
    need('embeddingBackward', 'rowStart', t.rowStart, p.U + 1);
    embeddingBackward(
      mem.f32(t.dout), mem.i32(t.uniqueIds), mem.i32(t.rowStart), mem.i32(t.rowList), mem.f32(t.dtable), p.U, p.D,
    );
  },
  logprob(mem, t, p) {
    need('logprob', 'h', t.h, p.R * p.D);
    need('logprob', 'w', t.w, p.V * p.D);
    for (const [n, x] of [['target', t.target], ['logp', t.logp], ['entropy', t.entropy], ['lse', t.lse]] as const) {
      need('logprob', n, x, p.R);
    }
    logprob(mem.f32(t.h), mem.f32(t.w), mem.i32(t.target), mem.f32(t.logp), mem.f32(t.entropy), mem.f32(t.lse), p.R, p.D, p.V);
  },
  logprobBackward(mem, t, p) {
    need('logprobBackward', 'h', t.h, p.R * p.D);
    need('logprobBackward', 'dh', t.dh, p.R * p.D);
    need('logprobBackward', 'w', t.w, p.V * p.D);
    if (t.dw) need('logprobBackward', 'dw', t.dw, p.V * p.D);
    const rowTensors = [['target', t.target], ['lse', t.lse], ['entropy', t.entropy], ['coef', t.coef], ['entCoef', t.entCoef]] as const;
    for (const [n, x] of rowTensors) need('logprobBackward', n, x, p.R);
    logprobBackward(
      mem.f32(t.h), mem.f32(t.w), mem.i32(t.target), mem.f32(t.lse), mem.f32(t.entropy), mem.f32(t.coef),
      mem.f32(t.entCoef), mem.f32(t.dh), t.dw ? mem.f32(t.dw) : null, p.R, p.D, p.V,
    );
  },
  lmHead(mem, t, p) {
    need('lmHead', 'h', t.h, p.R * p.D);
    need('lmHead', 'w', t.w, p.V * p.D);
    need('lmHead', 'logits', t.logits, p.R * p.V);
    lmHead(mem.f32(t.h), mem.f32(t.w), mem.f32(t.logits), p.R, p.D, p.V);
  },
  axpby(mem, t, p) {
    need('axpby', 'x', t.x, p.n);
    need('axpby', 'y', t.y, p.n);
    axpby(mem.f32(t.x), mem.f32(t.y), p.n, p.a, p.b);
  },
  copyRows(mem, t, p) {
    need('copyRows', 'src', t.src, p.B * p.T * p.W);
    need('copyRows', 'dst', t.dst, p.B * p.Sdst * p.W);
    copyRows(mem.f32(t.src), mem.f32(t.dst), p.B, p.T, p.W, p.Sdst, p.dstRow0);
  },
  sumSquares(mem, t, p) {
    need('sumSquares', 'x', t.x, p.n);
    need('sumSquares', 'out', t.out, 1);
    sumSquares(mem.f32(t.x), mem.f32(t.out), p.n, p.accumulate);
  },
  adamw(mem, t, p) {
    for (const [n, x] of [['p', t.p], ['g', t.g], ['m', t.m], ['v', t.v]] as const) need('adamw', n, x, p.n);
    adamw(mem.f32(t.p), mem.f32(t.g), mem.f32(t.m), mem.f32(t.v), p.n, p.lr, p.beta1, p.beta2, p.eps, p.weightDecay, p.step, p.gradScale);
  },
};
