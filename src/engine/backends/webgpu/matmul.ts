// Host side of the WGSL matmul: runs C = alpha op(A) op(B) + beta C (+ bias) over operands that may be split
// over several buffers (tensors above the binding limit) or live in scratch space. The M, N and K ranges are
// cut wherever an operand changes buffer (and at the 65535-workgroup grid limit); each piece is one dispatch
// with its own element offsets. K pieces after the first accumulate (beta = 1, no bias). Per piece: the
// matrix-vector or few-rows kernel for decode (M <= 8), the tiled kernel with workgroup memory for M, N >= 16
// (when tuning.tiled), else the register-tiled kernel (vec4 when aligned).
import type { DType } from '../../backend.ts';
import type { ElemType } from '../../kernels/wgsl/common.ts';
import { MATMUL_TILE, matmulProgram, matmulVec4Program, vec4Eligible } from '../../kernels/wgsl/matmul.ts';
import { FEW_ROWS_COLS, FEW_ROWS_MAX_M, matmulFewRowsProgram } from '../../kernels/wgsl/matmul-rows.ts';
import { MATVEC_MAX_M, matvecCols, matvecProgram } from '../../kernels/wgsl/matvec.ts';
import { matmulSplitReduceProgram, matmulTiledProgram, tiledTile } from '../../kernels/wgsl/matmul-tiled.ts';
import { grid1d } from '../../kernels/wgsl/common.ts';
import type { Chunk } from './memory.ts';
import type { GpuRuntime } from './runtime.ts';
import type { KernelTuning } from './tuning.ts';

/** A row-major matrix inside a tensor (or scratch): stored row r starts at element elem0 + r * ld. */
export interface MatView {
  chunks: readonly Chunk[];
  dtype: DType;
  elem0: number;
  ld: number;
  /** for messages */
  name: string;
}

export interface MatmulJob {
  a: MatView;
  b: MatView;
  c: MatView;
  bias?: { buffer: GPUBuffer; dtype: DType; elem0: number };
  M: number;
  N: number;
  K: number;
  transA: 0 | 1;
  transB: 0 | 1;
  alpha: number;
  beta: number;
}

const MAX_SPAN = 65535 * MATMUL_TILE;
/** Fewest rows and columns of C for the tiled kernel (below that a 32- or 64-wide tile is mostly idle). */
const TILED_MIN = 16;

function floatElem(dtype: DType, what: string): ElemType {
  if (dtype === 'f32' || dtype === 'f16') return dtype;
  throw new Error(`WebGPU matmul: ${what} has dtype ${dtype}; only f32 and f16 are supported`);
}

/** Row indices in (0, rows) where view `v` moves to another buffer. */
function cutsOf(v: MatView, rows: number): number[] {
  const cuts: number[] = [];
  if (v.chunks.length < 2) return cuts;
  for (const c of v.chunks) {
    const rel = c.firstElem - v.elem0;
    if (rel <= 0 || rel >= rows * v.ld) continue;
    if (rel % v.ld !== 0) {
      throw new Error(
        `WebGPU matmul: operand ${v.name} is split across buffers in the middle of a row (chunk at element ${c.firstElem}, row stride ${v.ld})`,
      );
    }
    cuts.push(rel / v.ld);
  }
  return cuts;
}

function ranges(length: number, cutLists: number[][]): Array<[number, number]> {
  const points = new Set<number>([0, length]);
  for (const list of cutLists) for (const p of list) points.add(p);
  for (let p = MAX_SPAN; p < length; p += MAX_SPAN) points.add(p);
  const sorted = [...points].toSorted((x, y) => x - y);
  const out: Array<[number, number]> = [];
  for (let i = 0; i + 1 < sorted.length; i++) out.push([sorted[i], sorted[i + 1]]);
  return out;
}

/** The buffer holding stored row `row` of `v`, and that row's element offset inside it. */
function locate(v: MatView, row: number): { buffer: GPUBuffer; offset: number } {
  const elem = v.elem0 + row * v.ld;
  for (const c of v.chunks) {
    if (elem >= c.firstElem && elem < c.firstElem + Math.max(c.elems, 1))
      return { buffer: c.buffer, offset: elem - c.firstElem };
  }
  const last = v.chunks[v.chunks.length - 1];
  return { buffer: last.buffer, offset: elem - last.firstElem };
}

/** Scratch buffers for split-K partials (the backend's pool). */
export interface MatmulScratch {
  take(bytes: number): GPUBuffer;
  give(buffer: GPUBuffer): void;
}

/** Splits of K for a product with few output tiles and a long K (LoRA's rank-sized products), or 1. */
export function splitKFor(M: number, N: number, K: number): number {
  const tiles = Math.ceil(M / 32) * Math.ceil(N / 32);
  if (tiles >= 32 || K < 512) return 1;
  return Math.max(1, Math.min(64, Math.floor(K / 256), Math.ceil(128 / tiles)));
}

export function runMatmul(
  runtime: GpuRuntime,
  dummy: GPUBuffer,
  job: MatmulJob,
  tuning: KernelTuning,
  scratch?: MatmulScratch,
): void {
  const useVec4 = tuning.vec4;
  const { a, b, c, M, N, K, transA, transB } = job;
  if (M === 0 || N === 0) return;
  const variant = {
    transA,
    transB,
    a: floatElem(a.dtype, a.name),
    b: floatElem(b.dtype, b.name),
    bias: job.bias ? floatElem(job.bias.dtype, 'bias') : 'f32',
  } as const;
  const program = matmulProgram(variant);
  if (c.dtype !== 'f32') throw new Error(`WebGPU matmul: output ${c.name} must be f32, got ${c.dtype}`);
  const aCuts = cutsOf(a, transA ? K : M);
  const bCuts = cutsOf(b, transB ? N : K);
  const mRanges = ranges(M, [transA ? [] : aCuts, cutsOf(c, M)]);
  const nRanges = ranges(N, [transB ? bCuts : []]);
  const fewRows = tuning.fewRows && transB === 1 && M <= FEW_ROWS_MAX_M && K >= 32;
  const kRanges = K === 0 ? [[0, 0] as [number, number]] : ranges(K, [transA ? aCuts : [], transB ? [] : bCuts]);
  // split-K over one piece: partial sums per K range into scratch, then one reduce with the epilogue
  // (not for decode's few-row products against nn.Linear weights: the matrix-vector kernel splits K itself)
  const decodeShaped = transB === 1 && M <= FEW_ROWS_MAX_M;
  const splits =
    tuning.tiled && scratch && !decodeShaped && mRanges.length === 1 && nRanges.length === 1 && kRanges.length === 1
      ? splitKFor(M, N, K)
      : 1;
  if (splits > 1) {
    const A = locate(a, 0);
    const B = locate(b, 0);
    const C = locate(c, 0);
    const kPer = Math.ceil(K / splits / 16) * 16;
    const z = Math.ceil(K / kPer);
    const slice = M * N;
    const part = scratch!.take(4 * z * slice);
    runtime.dispatch(
      matmulTiledProgram({ ...variant, t: 2, split: true, pad: tuning.paddedTiles }),
      [A.buffer, B.buffer, dummy, part],
      {
        M,
        N,
        K,
        lda: a.ld,
        ldb: b.ld,
        ldc: N,
        offA: A.offset,
        offB: B.offset,
        offC: 0,
        offBias: 0,
        hasBias: 0,
        alpha: 1,
        beta: 0,
        kPer,
        slice,
      },
      [Math.ceil(N / 32), Math.ceil(M / 32), z],
    );
    runtime.dispatch(
      matmulSplitReduceProgram(variant.bias),
      [part, job.bias ? job.bias.buffer : dummy, C.buffer],
      {
        M,
        N,
        ldc: c.ld,
        offC: C.offset,
        offBias: job.bias ? job.bias.elem0 : 0,
        hasBias: job.bias ? 1 : 0,
        alpha: job.alpha,
        beta: job.beta,
        splits: z,
        slice,
      },
      grid1d(M * N, 64),
    );
    scratch!.give(part);
    return;
  }
  for (const [m0, m1] of mRanges) {
    for (const [n0, n1] of nRanges) {
      kRanges.forEach(([k0, k1], kIndex) => {
        const A = locate(a, transA ? k0 : m0);
        const B = locate(b, transB ? n0 : k0);
        const C = locate(c, m0);
        const first = kIndex === 0;
        const hasBias = first && job.bias !== undefined;
        const params = {
          M: m1 - m0,
          N: n1 - n0,
          K: k1 - k0,
          lda: a.ld,
          ldb: b.ld,
          ldc: c.ld,
          offA: A.offset + (transA ? m0 : k0),
          offB: B.offset + (transB ? k0 : n0),
          offC: C.offset + n0,
          offBias: hasBias ? job.bias!.elem0 + n0 : 0,
          hasBias: hasBias ? 1 : 0,
          alpha: job.alpha,
          beta: first ? job.beta : 1,
        };
        const fast =
          useVec4 &&
          params.K > 0 &&
          vec4Eligible({
            ...params,
            transA,
            transB,
            aBytes: A.buffer.size,
            bBytes: B.buffer.size,
          });
        const buffers = [A.buffer, B.buffer, hasBias ? job.bias!.buffer : dummy, C.buffer];
        if (tuning.matvec && transA === 0 && transB === 1 && params.M <= MATVEC_MAX_M && fast && a.dtype === 'f32') {
          const sg = tuning.subgroups;
          // with subgroups, each column needs at least the largest subgroup's lanes (256 / cols >= max size)
          const cols = sg
            ? (Math.min(matvecCols(params.K), 256 / Math.max(32, sg[1])) as 2 | 4 | 8)
            : matvecCols(params.K);
          if (params.N <= 65535 * cols) {
            runtime.dispatch(
              matvecProgram(cols, b.dtype as 'f32' | 'f16', program.bindings[2].elem, sg),
              buffers,
              params,
              [Math.ceil(params.N / cols), 1, 1],
            );
            return;
          }
        }
        if (tuning.tiled && params.M >= TILED_MIN && params.N >= TILED_MIN && params.K > 0) {
          const tile = tiledTile(tuning.tiled);
          // padded tiles, and vec4 staging loads where the operands are aligned (fast), else scalar loads
          const tiled = { ...variant, t: tuning.tiled, pad: tuning.paddedTiles, vec: tuning.paddedTiles && fast };
          runtime.dispatch(matmulTiledProgram(tiled), buffers, params, [
            Math.ceil(params.N / tile),
            Math.ceil(params.M / tile),
            1,
          ]);
          return;
        }
        if (fewRows && params.M <= FEW_ROWS_MAX_M && params.N <= 65535 * FEW_ROWS_COLS) {
          runtime.dispatch(
            matmulFewRowsProgram(transA, program.bindings[0].elem, program.bindings[1].elem, program.bindings[2].elem),
            buffers,
            params,
            [Math.ceil(params.N / FEW_ROWS_COLS), 1, 1],
          );
          return;
        }
        runtime.dispatch(
          fast
            ? matmulVec4Program(
                transA,
                transB,
                a.dtype as 'f32' | 'f16',
                b.dtype as 'f32' | 'f16',
                program.bindings[2].elem,
              )
            : program,
          buffers,
          params,
          [Math.ceil((n1 - n0) / MATMUL_TILE), Math.ceil((m1 - m0) / MATMUL_TILE), 1],
        );
      });
    }
  }
}
