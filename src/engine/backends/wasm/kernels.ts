// The kernels the WasmBackend runs in WebAssembly SIMD (everything else stays on the TypeScript kernels):
// matmul and lmHead (as/matmul.ts), attention and its backward (as/attention.ts), and the vocabulary-chunked
// logprob / logprobBackward (logprob.ts: SIMD matmul per chunk + as/logprob.ts for the softmax steps), and the
// per-layer elementwise kernels rmsnorm, swiglu (and backwards), swigluPacked, axpby, adamw (and adamwApply), rope (with
// the TypeScript kernel's cached cos/sin table copied into the memory), sumSquares (as/elementwise.ts). The fused
// inference kernel qkvRope is the unfused sequence in one call: copies, then the SIMD rope on q and on the new k
// cache rows (the TypeScript twin on a KV cache of halves). embedding gathers rows in WebAssembly (widening a table
// stored as halves); copyRows, sumRows stay on the TypeScript kernels.
// Frozen weights stored as f16 / bf16 halves (formatOf) reach matmul (as B), lmHead, logprob(Backward) and
// embedding; those widen them to f32 as they read them (as/matmul.ts *Half), everything else is f32.
// The row-local ones (rmsnorm and its backward without dw, swiglu and its backward, swigluPacked, rope, axpby) run
// through WasmRuntime.rows, which shares large calls with the helper thread by rows (row-jobs.ts); so does the
// TypeScript sampler (sample-job.ts).
// Each entry reserves its scratch first, then takes views/pointers (see runtime.ts for why).

import type { Tensor } from '../../backend.ts';
import { type CpuKernelTable, type CpuMemory, cpuKernels } from '../../kernels/cpu/index.ts';
import { TABLE_POSITIONS, maxPosition, ropeAngles, ropeInverseFrequencies } from '../../kernels/cpu/rope.ts';
import { ADAMW_STATE } from '../../kernels/cpu/adamw.ts';
import { wasmLogprob, wasmLogprobBackward } from './logprob.ts';
import { RowKernel } from './row-jobs.ts';
import { sampleJobArgs } from './sample-job.ts';
import type { BFormat, PointerOf, WasmRuntime } from './runtime.ts';

export type { PointerOf } from './runtime.ts';

/** how a tensor is stored: f32, or f16 / bf16 halves */
export type FormatOf = (t: Tensor) => BFormat;

/** The TypeScript kernel's cos/sin table for these frequencies as f32 in the 'rope.table' scratch: byte offsets of
 *  cos[pos, Dh/2] and sin[pos, Dh/2]; null when a position lies beyond it. */
export type RopeTableOf = (
  mem: CpuMemory,
  invFreqT: Tensor | undefined,
  posT: Tensor,
  R: number,
  Dh: number,
  theta: number,
) => { cos: number; sin: number } | null;

/** The RopeTableOf of a runtime (one per runtime: it remembers which table the scratch holds). */
export function wasmRopeTables(rt: WasmRuntime): RopeTableOf {
  /** which TypeScript cos/sin table was last copied into the 'rope.table' scratch, and where */
  let ropeCopy: { source: Float64Array; offset: number } | null = null;
  return (mem, invFreqT, posT, R, Dh, theta) => {
    const half = Dh / 2;
    const invFreq = ropeInverseFrequencies(Dh, theta, invFreqT ? mem.f32(invFreqT) : null);
    const maxPos = maxPosition(mem.i32(posT), R);
    if (maxPos >= TABLE_POSITIONS) return null;
    const table = ropeAngles(invFreq, half, maxPos + 1);
    const offset = rt.reserve('rope.table', 2 * table.filled * half * 4);
    if (!ropeCopy || ropeCopy.source !== table.cos || ropeCopy.offset !== offset) {
      rt.f32At(offset, table.filled * half).set(table.cos.subarray(0, table.filled * half));
      rt.f32At(offset + table.filled * half * 4, table.filled * half).set(table.sin.subarray(0, table.filled * half));
      ropeCopy = { source: table.cos, offset };
    }
    return { cos: offset, sin: offset + table.filled * half * 4 };
  };
}

export function wasmKernels(
  rt: WasmRuntime,
  ptr: PointerOf,
  formatOf: FormatOf = () => 'f32',
  ropeTable: RopeTableOf = wasmRopeTables(rt),
): Partial<CpuKernelTable> {
  const x = rt.exports;
  const onlyF32 = (t: Tensor, kernel: string, role: string) => {
    if (formatOf(t) !== 'f32')
      throw new Error(`${kernel}: '${t.label}' is stored as ${formatOf(t)} halves; only the weights (${role}) may be`);
  };
  return {
    matmul(mem, t, p) {
      rt.reserveMatmul(p.M, p.N, p.K);
      const bf = formatOf(t.b);
      if (bf !== 'f32') {
        onlyF32(t.a, 'matmul', 'B');
        onlyF32(t.c, 'matmul', 'B');
        rt.matmulAt(
          ptr(t.a),
          ptr(t.b),
          ptr(t.c),
          t.bias ? ptr(t.bias) : 0,
          p.M,
          p.N,
          p.K,
          p.transA,
          p.transB,
          p.alpha,
          p.beta,
          bf,
        );
        return;
      }
      const bias = t.bias ? mem.f32(t.bias) : null;
      rt.matmul(mem.f32(t.a), mem.f32(t.b), mem.f32(t.c), bias, p.M, p.N, p.K, p.transA, p.transB, p.alpha, p.beta);
    },
    lmHead(mem, t, p) {
      rt.reserveMatmul(p.R, p.V, p.D);
      const wf = formatOf(t.w);
      if (wf !== 'f32') {
        rt.matmulAt(ptr(t.h), ptr(t.w), ptr(t.logits), 0, p.R, p.V, p.D, 0, 1, 1, 0, wf);
        return;
      }
      rt.matmul(mem.f32(t.h), mem.f32(t.w), mem.f32(t.logits), null, p.R, p.V, p.D, 0, 1, 1, 0);
    },
    embedding(mem, t, p) {
      const tf = formatOf(t.table);
      if (tf === 'f32') {
        const bad = x.gatherRows(ptr(t.ids), ptr(t.table), ptr(t.out), p.R, p.D, t.table.size / Math.max(p.D, 1));
        if (bad >= 0) {
          const id = mem.i32(t.ids)[bad];
          throw new Error(
            `embedding: ids[${bad}] = ${id} is outside the vocabulary [0, ${t.table.size / Math.max(p.D, 1)})`,
          );
        }
        return;
      }
      // rows of a table stored as halves, widened into the output
      const ids = mem.i32(t.ids);
      const V = t.table.size / Math.max(p.D, 1);
      const table = ptr(t.table),
        out = ptr(t.out);
      for (let r = 0; r < p.R; r++) {
        const id = ids[r];
        if (id < 0 || id >= V) throw new Error(`embedding: ids[${r}] = ${id} is outside the vocabulary [0, ${V})`);
        x.widenHalf(table + id * p.D * 2, out + r * p.D * 4, p.D, tf === 'bf16' ? 1 : 0);
      }
    },
    attention(_mem, t, p) {
      checkAttention(p.H, p.Hkv, p.past + p.T, p.S);
      const scores = rt.reserve('attention.scores', 2 * p.S * 4); // two heads at a time
      rt.attention(
        ptr(t.q),
        ptr(t.k),
        ptr(t.v),
        ptr(t.keyStart),
        ptr(t.o),
        ptr(t.lse),
        scores,
        p.B,
        p.T,
        p.S,
        p.past,
        p.H,
        p.Hkv,
        p.Dh,
      );
    },
    attentionBackward(_mem, t, p) {
      checkAttention(p.H, p.Hkv, p.past + p.T, p.S);
      rt.attentionBackward(
        ptr(t.q),
        ptr(t.k),
        ptr(t.v),
        ptr(t.keyStart),
        ptr(t.o),
        ptr(t.lse),
        ptr(t.dout),
        ptr(t.dq),
        ptr(t.dk),
        ptr(t.dv),
        p.B,
        p.T,
        p.S,
        p.past,
        p.H,
        p.Hkv,
        p.Dh,
      );
    },
    rmsnorm(_mem, t, p) {
      rt.rows(RowKernel.Rmsnorm, [ptr(t.x), ptr(t.w), ptr(t.y), ptr(t.rstd), p.D], p.R, p.D, 1, p.eps);
    },
    rmsnormBackward(_mem, t, p) {
      if (!t.dw) {
        const args = [ptr(t.x), ptr(t.w), ptr(t.rstd), ptr(t.dy), ptr(t.dx), p.D, p.accumulate];
        rt.rows(RowKernel.RmsnormBackward, args, p.R, p.D);
        return;
      }
      x.rmsnormBackward(
        ptr(t.x),
        ptr(t.w),
        ptr(t.rstd),
        ptr(t.dy),
        ptr(t.dx),
        t.dw ? ptr(t.dw) : 0,
        p.R,
        p.D,
        p.accumulate,
      );
    },
    swiglu(_mem, t, p) {
      rt.rows(RowKernel.Swiglu, [ptr(t.g), ptr(t.u), ptr(t.h), p.F], p.R, p.F, simdRows(p.F));
    },
    swigluBackward(_mem, t, p) {
      const args = [ptr(t.g), ptr(t.u), ptr(t.dh), ptr(t.dg), ptr(t.du), p.F];
      rt.rows(RowKernel.SwigluBackward, args, p.R, p.F, simdRows(p.F));
    },
    axpby(_mem, t, p) {
      rt.rows(RowKernel.Axpby, [ptr(t.x), ptr(t.y)], p.n, 1, 4, p.a, p.b);
    },
    rope(mem, t, p) {
      const table = ropeTable(mem, t.invFreq, t.pos, p.R, p.Dh, p.theta);
      if (table === null) {
        cpuKernels.rope(mem, t, p); // beyond the cached table: the TypeScript kernel computes the angles
        return;
      }
      const args = [ptr(t.x), ptr(t.pos), table.cos, table.sin, p.nHeads, p.Dh, p.inverse];
      rt.rows(RowKernel.Rope, args, p.R, p.nHeads * p.Dh);
    },
    qkvRope(mem, t, p) {
      const { B, T, H, Hkv, Dh, Sdst, dstRow0 } = p;
      const R = B * T;
      const table = t.k.dtype === 'f16' ? null : ropeTable(mem, t.invFreq, t.pos, R, Dh, p.theta);
      if (table === null) {
        cpuKernels.qkvRope(mem, t, p); // a cache of halves, or positions beyond the cached table
        return;
      }
      if (dstRow0 < 0 || dstRow0 + T > Sdst)
        throw new Error(`qkvRope: rows [${dstRow0}, ${dstRow0 + T}) do not fit a destination of ${Sdst} rows`);
      // the unfused sequence's own steps: split q, k, v (k, v straight into their cache rows), then the SIMD rope
      // on q [R, H, Dh] and on each sequence's T new cache rows of k [B, Sdst, Hkv, Dh]
      x.qkvRope(
        ptr(t.qkv),
        ptr(t.q),
        ptr(t.k),
        ptr(t.v),
        ptr(t.pos),
        table.cos,
        table.sin,
        B,
        T,
        H,
        Hkv,
        Dh,
        Sdst,
        dstRow0,
      );
    },
    sample(mem, t, p) {
      const rowOf = mem.i32(t.rowOf);
      for (let r = 0; r < p.R; r++)
        if (!(rowOf[r] >= 0 && rowOf[r] < p.L))
          throw new Error(`sample: rowOf[${r}] = ${rowOf[r]} is outside the ${p.L} logits rows`);
      const ptrs = {
        logits: ptr(t.logits),
        rowOf: ptr(t.rowOf),
        stream: ptr(t.stream),
        out: ptr(t.out),
        mask: t.mask ? ptr(t.mask) : 0,
      };
      if (!rt.sampleShared(sampleJobArgs(ptrs, p), p.R, p.V)) cpuKernels.sample(mem, t, p);
    },
    swigluPacked(_mem, t, p) {
      rt.rows(RowKernel.SwigluPacked, [ptr(t.gu), ptr(t.h), p.F], p.R, p.F);
    },
    sumSquares(mem, t, p) {
      const s = x.sumSquares(ptr(t.x), p.n);
      const out = mem.f32(t.out);
      out[0] = p.accumulate ? out[0] + s : s;
    },
    adamwApply(mem, t, p) {
      // what adamwPrepare (the TypeScript kernel) left in the state, then the SIMD adamw (the CPU twin's composition)
      const a = ADAMW_STATE.APPLY;
      const s = mem.f32(t.state);
      if (s[a] === 0) return;
      x.adamw(
        ptr(t.p),
        ptr(t.g),
        ptr(t.m),
        ptr(t.v),
        p.n,
        s[a + 2],
        p.beta1,
        p.beta2,
        1 - p.beta1,
        1 - p.beta2,
        p.eps,
        p.weightDecay,
        s[a + 3],
        s[a + 4],
        s[a + 1],
      );
    },
    adamw(_mem, t, p) {
      if (!(p.step >= 1)) throw new Error(`adamw: step must be >= 1 (1-based), got ${p.step}`);
      const bc1 = 1 - Math.pow(p.beta1, p.step),
        bc2 = 1 - Math.pow(p.beta2, p.step);
      x.adamw(
        ptr(t.p),
        ptr(t.g),
        ptr(t.m),
        ptr(t.v),
        p.n,
        p.lr,
        p.beta1,
        p.beta2,
        1 - p.beta1,
        1 - p.beta2,
        p.eps,
        p.weightDecay,
        bc1,
        bc2,
        p.gradScale,
      );
    },
    logprob(mem, t, p) {
      wasmLogprob(rt, ptr, mem, t, p, formatOf(t.w));
    },
    logprobBackward(mem, t, p) {
      if (t.dw) onlyF32(t.dw, 'logprobBackward', 'w');
      wasmLogprobBackward(rt, ptr, mem, t, p, formatOf(t.w));
    },
  };
}

export function checkAttention(H: number, Hkv: number, rowsUsed: number, S: number): void {
  if (Hkv <= 0 || H % Hkv !== 0) throw new Error(`attention: H = ${H} must be a multiple of Hkv = ${Hkv}`);
  if (rowsUsed > S) throw new Error(`attention: past + T = ${rowsUsed} exceeds the cache length S = ${S}`);
}

/** Rows per chunk of swiglu over rows of F elements (one flat SIMD loop over the call): a multiple of 4 elements,
 *  so that the elements the SIMD loop and its scalar tail take are those of the whole call. */
function simdRows(F: number): number {
  return F % 4 === 0 ? 1 : F % 2 === 0 ? 2 : 4;
}
