// Size checks for every kernel of the catalog: each tensor must hold at least the elements its scalar parameters
// imply, so a wrong shape is a clear error naming the kernel, the argument and the numbers instead of a silent read
// past the end. CpuBackend (and so WasmBackend, which shares its run()) checks every call here, once, before
// dispatching to its kernel table.
import type { Tensor } from '../backend.ts';
import type { KernelArgs, KernelName } from './catalog.ts';
import { ADAMW_STATE, adamwStateSize } from './cpu/adamw.ts';

/** Throws when tensor `t` (argument `name` of `kernel`) has fewer than `n` elements. */
export function need(kernel: string, name: string, t: Tensor, n: number): void {
  if (t.size < n) {
    throw new Error(
      `${kernel}: tensor '${name}' (${t.label || `#${t.id}`}, shape [${t.shape.join(',')}]) has ${t.size} elements, ` +
        `the parameters need ${n}`,
    );
  }
}

/** `need` for several arguments of one kernel that share a size. */
function needAll(kernel: string, args: readonly (readonly [string, Tensor])[], n: number): void {
  for (const [name, t] of args) need(kernel, name, t, n);
}

type ArgCheck<K extends KernelName> = (t: KernelArgs<K>['t'], p: KernelArgs<K>['p']) => void;

export const kernelArgChecks: { [K in KernelName]: ArgCheck<K> } = {
  matmul(t, p) {
    need('matmul', 'a', t.a, p.M * p.K);
    need('matmul', 'b', t.b, p.K * p.N);
    need('matmul', 'c', t.c, p.M * p.N);
    if (t.bias) need('matmul', 'bias', t.bias, p.N);
  },
  sumRows(t, p) {
    need('sumRows', 'x', t.x, p.M * p.N);
    need('sumRows', 'out', t.out, p.N);
  },
  rmsnorm(t, p) {
    needAll(
      'rmsnorm',
      [
        ['x', t.x],
        ['y', t.y],
      ],
      p.R * p.D,
    );
    need('rmsnorm', 'w', t.w, p.D);
    need('rmsnorm', 'rstd', t.rstd, p.R);
  },
  rmsnormBackward(t, p) {
    needAll(
      'rmsnormBackward',
      [
        ['x', t.x],
        ['dy', t.dy],
        ['dx', t.dx],
      ],
      p.R * p.D,
    );
    need('rmsnormBackward', 'w', t.w, p.D);
    need('rmsnormBackward', 'rstd', t.rstd, p.R);
    if (t.dw) need('rmsnormBackward', 'dw', t.dw, p.D);
  },
  rope(t, p) {
    need('rope', 'x', t.x, p.R * p.nHeads * p.Dh);
    need('rope', 'pos', t.pos, p.R);
    if (t.invFreq) need('rope', 'invFreq', t.invFreq, p.Dh / 2);
  },
  attention(t, p) {
    needAll(
      'attention',
      [
        ['q', t.q],
        ['o', t.o],
      ],
      p.B * p.T * p.H * p.Dh,
    );
    needAll(
      'attention',
      [
        ['k', t.k],
        ['v', t.v],
      ],
      p.B * p.S * p.Hkv * p.Dh,
    );
    need('attention', 'keyStart', t.keyStart, p.B);
    need('attention', 'lse', t.lse, p.B * p.H * p.T);
  },
  attentionBackward(t, p) {
    needAll(
      'attentionBackward',
      [
        ['q', t.q],
        ['o', t.o],
        ['dout', t.dout],
        ['dq', t.dq],
      ],
      p.B * p.T * p.H * p.Dh,
    );
    needAll(
      'attentionBackward',
      [
        ['k', t.k],
        ['v', t.v],
        ['dk', t.dk],
        ['dv', t.dv],
      ],
      p.B * p.S * p.Hkv * p.Dh,
    );
    if (p.past < 0 || p.past + p.T > p.S)
      throw new Error(`attentionBackward: past ${p.past} + T ${p.T} exceeds S ${p.S}`);
    need('attentionBackward', 'keyStart', t.keyStart, p.B);
    need('attentionBackward', 'lse', t.lse, p.B * p.H * p.T);
  },
  swiglu(t, p) {
    needAll(
      'swiglu',
      [
        ['g', t.g],
        ['u', t.u],
        ['h', t.h],
      ],
      p.R * p.F,
    );
  },
  swigluBackward(t, p) {
    needAll(
      'swigluBackward',
      [
        ['g', t.g],
        ['u', t.u],
        ['dh', t.dh],
        ['dg', t.dg],
        ['du', t.du],
      ],
      p.R * p.F,
    );
  },
  qkvRope(t, p) {
    if (p.dstRow0 < 0 || p.dstRow0 + p.T > p.Sdst) {
      throw new Error(`qkvRope: rows [${p.dstRow0}, ${p.dstRow0 + p.T}) do not fit a destination of ${p.Sdst} rows`);
    }
    if (p.Dh % 2 !== 0) throw new Error(`qkvRope: head dim Dh=${p.Dh} must be even`);
    need('qkvRope', 'qkv', t.qkv, p.B * p.T * (p.H + 2 * p.Hkv) * p.Dh);
    need('qkvRope', 'pos', t.pos, p.B * p.T);
    if (t.invFreq) need('qkvRope', 'invFreq', t.invFreq, p.Dh / 2);
    need('qkvRope', 'q', t.q, p.B * p.T * p.H * p.Dh);
    needAll(
      'qkvRope',
      [
        ['k', t.k],
        ['v', t.v],
      ],
      p.B * p.Sdst * p.Hkv * p.Dh,
    );
  },
  swigluPacked(t, p) {
    need('swigluPacked', 'gu', t.gu, 2 * p.R * p.F);
    need('swigluPacked', 'h', t.h, p.R * p.F);
  },
  embedding(t, p) {
    need('embedding', 'ids', t.ids, p.R);
    need('embedding', 'out', t.out, p.R * p.D);
  },
  embeddingBackward(t, p) {
    need('embeddingBackward', 'uniqueIds', t.uniqueIds, p.U);
    need('embeddingBackward', 'rowStart', t.rowStart, p.U + 1);
  },
  logprob(t, p) {
    need('logprob', 'h', t.h, p.R * p.D);
    need('logprob', 'w', t.w, p.V * p.D);
    needAll(
      'logprob',
      [
        ['target', t.target],
        ['logp', t.logp],
        ['entropy', t.entropy],
        ['lse', t.lse],
      ],
      p.R,
    );
  },
  logprobBackward(t, p) {
    needAll(
      'logprobBackward',
      [
        ['h', t.h],
        ['dh', t.dh],
      ],
      p.R * p.D,
    );
    need('logprobBackward', 'w', t.w, p.V * p.D);
    if (t.dw) need('logprobBackward', 'dw', t.dw, p.V * p.D);
    const rows = [
      ['target', t.target],
      ['lse', t.lse],
      ['entropy', t.entropy],
      ['coef', t.coef],
      ['entCoef', t.entCoef],
    ] as const;
    needAll('logprobBackward', rows, p.R);
  },
  lmHead(t, p) {
    need('lmHead', 'h', t.h, p.R * p.D);
    need('lmHead', 'w', t.w, p.V * p.D);
    need('lmHead', 'logits', t.logits, p.R * p.V);
  },
  sample(t, p) {
    need('sample', 'logits', t.logits, p.L * p.V);
    needAll(
      'sample',
      [
        ['rowOf', t.rowOf],
        ['stream', t.stream],
      ],
      p.R,
    );
    need('sample', 'out', t.out, p.R * 4);
    if (t.mask) need('sample', 'mask', t.mask, p.R * Math.ceil(p.V / 32));
  },
  zero(t, p) {
    need('zero', 'x', t.x, p.n);
  },
  axpby(t, p) {
    needAll(
      'axpby',
      [
        ['x', t.x],
        ['y', t.y],
      ],
      p.n,
    );
  },
  copyRows(t, p) {
    need('copyRows', 'src', t.src, p.B * p.T * p.W);
    need('copyRows', 'dst', t.dst, ((p.dstB0 ?? 0) + p.B) * p.Sdst * p.W);
  },
  sumSquares(t, p) {
    need('sumSquares', 'x', t.x, p.n);
    need('sumSquares', 'out', t.out, 1);
  },
  packTensors(t) {
    need(
      'packTensors',
      'flat',
      t.flat,
      t.parts.reduce((n, x) => n + x.size, 0),
    );
  },
  adamwPrepare(t, p) {
    need('adamwPrepare', 'normSq', t.normSq, 1);
    need('adamwPrepare', 'state', t.state, adamwStateSize(p.capacity));
    if (!(p.record < p.capacity))
      throw new Error(`adamwPrepare: record ${p.record} is outside the state's ${p.capacity} records`);
  },
  adamwApply(t, p) {
    needAll(
      'adamwApply',
      [
        ['p', t.p],
        ['g', t.g],
        ['m', t.m],
        ['v', t.v],
      ],
      p.n,
    );
    need('adamwApply', 'state', t.state, ADAMW_STATE.RECORDS);
  },
  adamw(t, p) {
    needAll(
      'adamw',
      [
        ['p', t.p],
        ['g', t.g],
        ['m', t.m],
        ['v', t.v],
      ],
      p.n,
    );
  },
};
