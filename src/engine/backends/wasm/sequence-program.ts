// A decode step's layers as one job for the two threads (threads.ts WasmJob.Program). Every kernel of a step over B
// sequences reads and writes only its own sequences' rows (norms, the few-rows matmuls, qkvRope into each
// sequence's cache rows, attention over each sequence's keys, SwiGLU), so each thread can run the whole step for a
// range of sequences: one hand-off per step instead of one per kernel, and a sequence's activations stay with the
// thread that computes them. Each kernel is the same export on pointers moved to the range's first sequence, so
// every row takes the same instructions as on one thread (bit-identical results).
// A lowered run: opcode, rows per sequence, two floats, and per argument its value and the bytes it moves by per
// sequence (0: the same for every sequence). Encoded flat into the memory for the helper:
//   [op, rowsPerSeq, f0 bits, f1 bits, n, arg 0..n-1, stride 0..n-1] per run.
import type { WasmKernelExports } from './loader.ts';

export const SeqOp = {
  /** args [x, w, y, rstd, D], f0 = eps; rows */
  Rmsnorm: 1,
  /** exports.matmulFewRows: args [a, b, c, bias, N, K, transB], f0 = alpha, f1 = beta; rows (even starts) */
  FewRows: 2,
  /** args [qkv, q, k, v, pos, cos, sin, T, H, Hkv, Dh, Sdst, dstRow0]; sequences */
  QkvRope: 3,
  /** args [q, k, v, keyStart, o, lse, scores (engine), scores (helper), T, S, past, H, Hkv, Dh]; sequences */
  Attention: 4,
  /** args [gu, h, F]; rows */
  SwigluPacked: 5,
} as const;
export type SeqOp = (typeof SeqOp)[keyof typeof SeqOp];

export interface LoweredRun {
  op: SeqOp;
  /** rows of the kernel per sequence (1 for the kernels that count sequences) */
  rowsPerSeq: number;
  args: number[];
  /** bytes each argument moves by per sequence */
  strides: number[];
  floats?: [number, number];
}

const word = new Int32Array(1);
const real = new Float32Array(word.buffer);

function f32Bits(x: number): number {
  real[0] = x;
  return word[0];
}

function bitsF32(bits: number): number {
  word[0] = bits;
  return real[0];
}

/** The runs in the flat form runProgram reads. */
export function encodeProgram(runs: readonly LoweredRun[]): Int32Array {
  const out: number[] = [];
  for (const r of runs) {
    const [f0, f1] = r.floats ?? [0, 0];
    out.push(r.op, r.rowsPerSeq, f32Bits(f0), f32Bits(f1), r.args.length, ...r.args, ...r.strides);
  }
  return Int32Array.from(out);
}

/** Runs sequences [s, e) of an encoded program with kernel exports `x` (`helper`: the helper thread's scratch). */
export function runProgram(x: WasmKernelExports, prog: ArrayLike<number>, s: number, e: number, helper: boolean): void {
  const a: number[] = [];
  for (let p = 0; p < prog.length;) {
    const op = prog[p],
      per = prog[p + 1],
      f0 = bitsF32(prog[p + 2]),
      f1 = bitsF32(prog[p + 3]),
      n = prog[p + 4];
    for (let i = 0; i < n; i++) a[i] = prog[p + 5 + i] + s * prog[p + 5 + n + i];
    const count = (e - s) * per;
    switch (op) {
      case SeqOp.Rmsnorm:
        x.rmsnorm(a[0], a[1], a[2], a[3], count, a[4], f0);
        break;
      case SeqOp.FewRows:
        x.matmulFewRows(a[0], a[1], a[2], a[3], count, a[4], a[5], a[6], f0, f1);
        break;
      case SeqOp.QkvRope:
        x.qkvRope(a[0], a[1], a[2], a[3], a[4], a[5], a[6], count, a[7], a[8], a[9], a[10], a[11], a[12]);
        break;
      case SeqOp.Attention:
        x.attention(
          a[0],
          a[1],
          a[2],
          a[3],
          a[4],
          a[5],
          helper ? a[7] : a[6],
          count,
          a[8],
          a[9],
          a[10],
          a[11],
          a[12],
          a[13],
        );
        break;
      case SeqOp.SwigluPacked:
        x.swigluPacked(a[0], a[1], count, a[2]);
        break;
      default:
        throw new Error(`runProgram: unknown op ${op}`);
    }
    p += 5 + 2 * n;
  }
}
