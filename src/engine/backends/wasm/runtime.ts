// The WASM kernels' runtime: one memory, its heap, the instantiated SIMD module, and named scratch blocks.
// Rule that keeps views valid: a kernel first reserves every scratch block it needs (this may grow the memory),
// then takes Float32Array views and pointers, then computes; nothing allocates while views are in use.
// With a helper thread (threads.ts) the memory is shared and matmuls with enough work are shared between the two
// threads in chunks of output rows, cut at the kernels' row blocking, attention in chunks of sequences, the
// row-local elementwise kernels (row-jobs.ts) and the sampler (sample-job.ts) in chunks of rows, and a decode
// step's layers as one program (sequence-program.ts) in chunks of sequences, so the results are bit-identical.

import type { Tensor } from '../../tensor.ts';
import { matmul as tsMatmul } from '../../kernels/cpu/matmul.ts';
import { WasmHeap } from './heap.ts';
import { WASM_RESERVED_BYTES, instantiateWasmKernels, type WasmKernelExports, type WasmVariant } from './loader.ts';
import { ROW_ELEMENT_WORK, type RowKernel, runRows } from './row-jobs.ts';
import { CONTROL_BYTES, type SpawnWasmHelper, WasmHelperThread, WasmJob } from './threads.ts';

const PAGE = 65536;

/** How a matmul's B operand is stored: f32, or frozen weights as IEEE f16 / bfloat16 halves. */
export type BFormat = 'f32' | 'f16' | 'bf16';
/** byte offset of a tensor's data in the runtime's memory */
export type PointerOf = (t: Tensor) => number;
/** wasm32 addresses at most 4 GiB */
export const WASM_MAX_BYTES = 65536 * PAGE;

/** Columns per packed panel of op(B) and rows per packed block of op(A) in the AssemblyScript matmul
 *  (as/matmul.ts NR, MR). */
const NR = 8;
const MR = 4;
/** Up to this many rows (and transA = 0) the matmul reads B in place (matmulFewRows) instead of packing it:
 *  measured 1.2-3x faster for 1-32 rows (decode steps, LoRA on few rows), where packing costs as much as the
 *  multiply. */
export const FEW_ROWS = 32;
/** With weights stored [N,K] (transB = 1) the unpacked kernel runs about as fast as the packed one at up to
 *  128 rows (measured 30-34 vs 28-37 GFLOP/s at the model's shapes), so below this many rows packing only costs. */
const FEW_ROWS_TRANSPOSED_B = 128;
/** A product with at most this many columns (two 8-column panels: a LoRA product x A^T or dy B of rank <= 16) that
 *  is split over two threads reads op(A) in place: packing it first, on the engine's thread alone, takes about as
 *  long as the multiply (bench/threads.ts: the LoRA shape, 1 vs 2 threads). On one thread the packed kernel is a
 *  little faster; both give the same bits. */
const THIN_N = 16;
/** A matmul is shared by the two threads only from this many multiply-adds (M·N·K) on. Measured (bench/threads.ts,
 *  four runs at load 0.5-1.2): 1 M multiply-adds (512x32x64) ran 1.1-1.5x faster on two threads, 0.26 M (a
 *  64-row decode step, ~15 us) anywhere from 0.5x to 1.6x: the dispatch and the helper's wake-up cost about as
 *  much as the work. */
export const SPLIT_MIN_WORK = 1_000_000;
/** Attention's multiply-adds are dearer than the packed matmul's (dot products of Dh, exponentials, scalar tails):
 *  each counts this many times against SPLIT_MIN_WORK. Measured once here (best of 20, load 1.2): a decode step
 *  of 64 sequences over 30 keys (0.25 M multiply-adds) took 94 us on one thread and 52 us on two. */
const ATTENTION_WORK_WEIGHT = 16;
/** A shared kernel call is cut into at most this many chunks, about one per CHUNK_WORK multiply-adds: enough that
 *  a helper which starts late (its core busy) leaves the engine's thread little to wait for, few enough that the
 *  per-chunk cost (a kernel call, one more pass over packed B) stays small. */
const MAX_CHUNKS = 8;
const CHUNK_WORK = 1_000_000;

/** Chunks of a shared call with `work` multiply-adds: one per CHUNK_WORK, from 2 to MAX_CHUNKS. */
function chunksFor(work: number): number {
  return Math.max(2, Math.min(MAX_CHUNKS, Math.floor(work / CHUNK_WORK)));
}

/** A decode step's layers over one sequence count this many multiply-adds against SPLIT_MIN_WORK when a step is
 *  shared as one program (sequence-program.ts): the tiny model's three layers are ~0.15 M, so 8 sequences on. */
const PROGRAM_SEQUENCE_WORK = 131_072;
/** A logit the sampler (kernels/cpu/sample.ts, TypeScript: exponentials, sums, the draw) reads counts this many
 *  multiply-adds against SPLIT_MIN_WORK and CHUNK_WORK: a sample call is shared from about 8k logits on (a decode
 *  step of 32 sequences over 256 tokens, ~100 us on one thread). */
const LOGIT_WORK = 128;

/** Stops the helper thread of a runtime that was garbage-collected without close(): the helper holds the shared
 *  memory, so it would otherwise keep it (and itself) alive for the rest of the process. */
const orphanedHelpers =
  typeof FinalizationRegistry === 'undefined' ? null : new FinalizationRegistry<WasmHelperThread>((h) => h.stop());

export interface WasmRuntimeOptions {
  /** start a helper thread through this (the memory is then shared): two threads; absent: one thread */
  spawnHelper?: SpawnWasmHelper;
  /** multiply-adds (M·N·K) from which a matmul is split over the two threads (default SPLIT_MIN_WORK) */
  splitMinWork?: number;
  /** tests: the helper thread runs every chunk of a shared call while this thread waits */
  helperOnly?: boolean;
}

export class WasmRuntime {
  private readonly scratch = new Map<string, { offset: number; bytes: number }>();
  /** how many matmuls ran in WebAssembly vs fell back to TypeScript (tests check the fast path is taken) */
  readonly stats = {
    wasmMatmuls: 0,
    tsMatmuls: 0,
    splitMatmuls: 0,
    splitAttention: 0,
    splitRows: 0,
    splitSamples: 0,
    splitPrograms: 0,
    halfMatmuls: 0,
  };
  private helper: WasmHelperThread | null = null;
  private splitMinWork = SPLIT_MIN_WORK;

  private constructor(
    readonly memory: WebAssembly.Memory,
    readonly heap: WasmHeap,
    readonly exports: WasmKernelExports,
    readonly variant: WasmVariant,
  ) {}

  /** Threads running kernels: 2 with a helper thread, else 1. */
  get threads(): 1 | 2 {
    return this.helper ? 2 : 1;
  }

  static async create(
    variant: WasmVariant,
    maxBytes = WASM_MAX_BYTES,
    options: WasmRuntimeOptions = {},
  ): Promise<WasmRuntime> {
    const shared = options.spawnHelper !== undefined;
    let limit = Math.min(maxBytes, WASM_MAX_BYTES);
    let memory: WebAssembly.Memory;
    try {
      memory = new WebAssembly.Memory({ initial: 256, maximum: Math.ceil(limit / PAGE), shared }); // 16 MiB to start
    } catch {
      // some engines (32-bit, mobile) refuse a 4 GiB maximum: settle for 1 GiB
      limit = Math.min(limit, 16384 * PAGE);
      memory = new WebAssembly.Memory({ initial: 256, maximum: limit / PAGE, shared });
    }
    const exports = await instantiateWasmKernels(memory, variant);
    const rt = new WasmRuntime(memory, new WasmHeap(memory, WASM_RESERVED_BYTES, limit), exports, variant);
    if (options.spawnHelper) {
      const control = rt.heap.alloc(CONTROL_BYTES); // the first block: inside the initial 16 MiB, never moves
      rt.helper = await WasmHelperThread.start(memory, variant, control, exports, options.spawnHelper);
      rt.helper.helperOnly = options.helperOnly ?? false;
      orphanedHelpers?.register(rt, rt.helper, rt);
    }
    if (options.splitMinWork !== undefined) rt.splitMinWork = options.splitMinWork;
    return rt;
  }

  /** Shared calls the helper thread took part in, and those this thread finished before it claimed them. */
  get helperJobs(): { shared: number; alone: number } {
    return this.helper ? { ...this.helper.counts } : { shared: 0, alone: 0 };
  }

  /** Stops the helper thread (the runtime then runs on one thread). */
  close(): void {
    orphanedHelpers?.unregister(this);
    this.helper?.stop();
    this.helper = null;
  }

  /** Byte offset of scratch block `key` holding at least `bytes`; may grow memory (call before taking views). */
  reserve(key: string, bytes: number): number {
    const have = this.scratch.get(key);
    if (have && have.bytes >= bytes) return have.offset;
    if (have) this.heap.release(have.offset);
    const size = Math.max(bytes, have ? have.bytes * 2 : 0, 4096);
    const offset = this.heap.alloc(size);
    this.scratch.set(key, { offset, bytes: size });
    return offset;
  }

  /** A Float32Array view of n floats at a byte offset (valid until the memory grows). */
  f32At(offset: number, n: number): Float32Array {
    return new Float32Array(this.memory.buffer, offset, n);
  }

  /** Whether matmulAt runs an M-row product on the few-rows kernel (B read in place, rows in pairs). */
  static usesFewRows(M: number, transA: 0 | 1, transB: 0 | 1): boolean {
    return transA === 0 && (M <= FEW_ROWS || (transB === 1 && M <= FEW_ROWS_TRANSPOSED_B));
  }

  /** Bytes of packing scratch one matmul needs for op(B) with N columns and K depth. */
  static packBytes(N: number, K: number): number {
    return Math.ceil(N / NR) * NR * Math.max(K, 1) * 4;
  }

  /** Bytes of packing scratch for op(A) with M rows and K depth. */
  static packABytes(M: number, K: number): number {
    return Math.ceil(M / MR) * MR * Math.max(K, 1) * 4;
  }

  /** Reserves the packing scratch ('matmul.pack' for op(B), 'matmul.packA' for op(A)) of an M x N x K matmul;
   *  call before taking views (it may grow the memory). */
  reserveMatmul(M: number, N: number, K: number): void {
    this.reserve('matmul.pack', WasmRuntime.packBytes(N, K));
    this.reserve('matmul.packA', WasmRuntime.packABytes(M, K));
  }

  /**
   * Same signature and semantics as the TypeScript matmul (kernels/cpu/matmul.ts), on arrays that are views of
   * this memory: runs the SIMD kernel in place. reserveMatmul(M, N, K) must have run before the views were
   * taken. Arrays elsewhere fall back to the TypeScript kernel.
   */
  readonly matmul = (
    a: Float32Array,
    b: Float32Array,
    c: Float32Array,
    bias: Float32Array | null,
    M: number,
    N: number,
    K: number,
    transA: 0 | 1,
    transB: 0 | 1,
    alpha: number,
    beta: number,
  ): void => {
    const buf = this.memory.buffer;
    const inMemory = a.buffer === buf && b.buffer === buf && c.buffer === buf && (bias === null || bias.buffer === buf);
    if (
      !inMemory ||
      !this.hasScratch('matmul.pack', WasmRuntime.packBytes(N, K)) ||
      !this.hasScratch('matmul.packA', WasmRuntime.packABytes(M, K))
    ) {
      this.stats.tsMatmuls++;
      tsMatmul(a, b, c, bias, M, N, K, transA, transB, alpha, beta);
      return;
    }
    this.matmulAt(
      a.byteOffset,
      b.byteOffset,
      c.byteOffset,
      bias ? bias.byteOffset : 0,
      M,
      N,
      K,
      transA,
      transB,
      alpha,
      beta,
    );
  };

  /** The SIMD matmul on byte offsets (bias 0 = none); reserveMatmul(M, N, K) must have run. `bFormat`: how B is
   *  stored (f16 / bf16 halves are widened to f32 as they are read; the few-rows path then runs on this thread). */
  matmulAt(
    a: number,
    b: number,
    c: number,
    bias: number,
    M: number,
    N: number,
    K: number,
    transA: 0 | 1,
    transB: 0 | 1,
    alpha: number,
    beta: number,
    bFormat: BFormat = 'f32',
  ): void {
    if (WasmRuntime.usesFewRows(M, transA, transB)) {
      this.stats.wasmMatmuls++;
      if (M === 0 || N === 0) return;
      if (bFormat !== 'f32') {
        this.stats.halfMatmuls++;
        // one block of B widened at a time (4 rows [N,K], or an 8-column strip of [K,N]): inside 'matmul.pack'
        const tmp = this.scratchAt('matmul.pack', WasmRuntime.packBytes(N, K));
        this.exports.matmulFewRowsHalf(a, b, c, bias, M, N, K, transB, alpha, beta, bFormat === 'bf16' ? 1 : 0, tmp);
        return;
      }
      // the few-rows kernel walks rows in pairs: chunks start at even rows
      const chunk = this.rowChunk(M, N, K, 2);
      if (chunk === 0 || !this.helper) {
        this.exports.matmulFewRows(a, b, c, bias, M, N, K, transB, alpha, beta);
        return;
      }
      this.stats.splitMatmuls++;
      this.helper.run(WasmJob.FewRows, [a, b, c, bias, M, N, K, transB], M, chunk, alpha, beta);
      return;
    }
    if (bFormat === 'f32' && (transA === 1 || (N <= THIN_N && this.rowChunk(M, N, K, MR) > 0))) {
      this.matmulDirect(a, b, c, bias, M, N, K, transA, transB, alpha, beta);
      return;
    }
    const packedA = this.scratchAt('matmul.packA', WasmRuntime.packABytes(M, K));
    if (M > 0 && N > 0) this.exports.packA(a, packedA, M, K, transA);
    this.matmulPackedA(packedA, b, c, bias, M, N, K, transB, alpha, beta, bFormat);
  }

  /** op(A) read in place by the 4x8 kernel (as/matmul-direct.ts): stored [K,M] (transA = 1: weight gradients, K
   *  the batch's rows; copying it into blocks first is slower, bench/kernels.ts prints both), or a thin product
   *  (THIN_N) shared by two threads; op(B) from B itself when it is stored [K,N] with N a multiple of 8, else packed. */
  private matmulDirect(
    a: number,
    b: number,
    c: number,
    bias: number,
    M: number,
    N: number,
    K: number,
    transA: 0 | 1,
    transB: 0 | 1,
    alpha: number,
    beta: number,
  ): void {
    this.stats.wasmMatmuls++;
    if (M === 0 || N === 0) return;
    let panels = b,
      bStep = N * 4,
      bPanel = NR * 4;
    if (transB === 1 || N % NR !== 0) {
      panels = this.scratchAt('matmul.pack', WasmRuntime.packBytes(N, K));
      this.exports.packB(b, panels, N, K, transB);
      bStep = NR * 4;
      bPanel = NR * 4 * K;
    }
    const lda = (transA ? M : K) * 4;
    const chunk = this.rowChunk(M, N, K, MR);
    if (chunk === 0 || !this.helper) {
      this.exports.matmulDirect(a, transA, lda, panels, bStep, bPanel, c, bias, M, N, K, alpha, beta);
      return;
    }
    this.stats.splitMatmuls++;
    const args = [a, transA, lda, panels, bStep, bPanel, c, bias, M, N, K];
    this.helper.run(WasmJob.Direct, args, M, chunk, alpha, beta);
  }

  /** The SIMD matmul with op(A) already packed (exports.packA into `packedA`): packs op(B) into 'matmul.pack'
   *  (reserved for at least packBytes(N, K)) and runs the 4x8 kernel. Lets a caller pack A once for many B. */
  matmulPackedA(
    packedA: number,
    b: number,
    c: number,
    bias: number,
    M: number,
    N: number,
    K: number,
    transB: 0 | 1,
    alpha: number,
    beta: number,
    bFormat: BFormat = 'f32',
  ): void {
    if (M === 0 || N === 0) {
      this.stats.wasmMatmuls++;
      return;
    }
    const packedB = this.scratchAt('matmul.pack', WasmRuntime.packBytes(N, K));
    if (bFormat === 'f32') this.exports.packB(b, packedB, N, K, transB);
    else {
      this.stats.halfMatmuls++;
      this.exports.packBHalf(b, packedB, N, K, transB, bFormat === 'bf16' ? 1 : 0);
    }
    this.matmulPacked(packedA, packedB, c, bias, M, N, K, alpha, beta);
  }

  /** The 4x8 kernel alone, on op(A) and op(B) both packed already (exports.packA / exports.packB). */
  matmulPacked(
    packedA: number,
    packedB: number,
    c: number,
    bias: number,
    M: number,
    N: number,
    K: number,
    alpha: number,
    beta: number,
  ): void {
    this.stats.wasmMatmuls++;
    if (M === 0 || N === 0) return;
    // packed A comes in blocks of MR rows (block q at q·MR·K floats): chunks start at multiples of MR
    const chunk = this.rowChunk(M, N, K, MR);
    if (chunk === 0 || !this.helper) {
      this.exports.matmul(packedA, packedB, c, bias, M, N, K, alpha, beta);
      return;
    }
    this.stats.splitMatmuls++;
    this.helper.run(WasmJob.Packed, [packedA, packedB, c, bias, M, N, K], M, chunk, alpha, beta);
  }

  /** exports.attention (shapes in as/attention.ts), shared by sequences with the helper thread when there is
   *  enough work (the helper uses its own scores scratch). */
  attention(
    q: number,
    k: number,
    v: number,
    keyStart: number,
    o: number,
    lse: number,
    scores: number,
    B: number,
    T: number,
    S: number,
    past: number,
    H: number,
    Hkv: number,
    Dh: number,
  ): void {
    // multiply-adds: every query row against its (past + ~T/2) keys, for the scores and for the values
    const chunk = this.sequenceChunk(B, B * H * T * (past + (T + 1) / 2) * Dh * 2 * ATTENTION_WORK_WEIGHT);
    if (chunk === 0 || !this.helper) {
      this.exports.attention(q, k, v, keyStart, o, lse, scores, B, T, S, past, H, Hkv, Dh);
      return;
    }
    const helperScores = this.reserve('attention.scores.helper', 2 * S * 4);
    this.stats.splitAttention++;
    this.helper.run(
      WasmJob.Attention,
      [q, k, v, keyStart, o, lse, scores, B, T, S, past, H, Hkv, Dh, helperScores],
      B,
      chunk,
    );
  }

  /** exports.attentionBackward (query i at key row past + i, dk and dv [B, S]), shared by sequences like attention(). */
  attentionBackward(
    q: number,
    k: number,
    v: number,
    keyStart: number,
    o: number,
    lse: number,
    dout: number,
    dq: number,
    dk: number,
    dv: number,
    B: number,
    T: number,
    S: number,
    past: number,
    H: number,
    Hkv: number,
    Dh: number,
  ): void {
    // multiply-adds: four per query-key pair and head dimension (s, dp, dq, dk; dv: a fifth), causal half
    const chunk = this.sequenceChunk(B, B * H * T * (past + (T + 1) / 2) * Dh * 5 * ATTENTION_WORK_WEIGHT);
    if (chunk === 0 || !this.helper) {
      this.exports.attentionBackward(q, k, v, keyStart, o, lse, dout, dq, dk, dv, B, T, S, past, H, Hkv, Dh);
      return;
    }
    this.stats.splitAttention++;
    this.helper.run(
      WasmJob.AttentionBackward,
      [q, k, v, keyStart, o, lse, dout, dq, dk, dv, B, T, S, past, H, Hkv, Dh],
      B,
      chunk,
    );
  }

  /** A row-local elementwise kernel (row-jobs.ts) over `R` rows of `perRow` elements, shared by the two threads in
   *  chunks of a multiple of `multiple` rows when it is large enough, else run here whole. */
  rows(kernel: RowKernel, args: readonly number[], R: number, perRow: number, multiple = 1, alpha = 0, beta = 0): void {
    // shared from a few tens of microseconds of work on one thread (handing half to a polling helper costs a few)
    const work = R * perRow * ROW_ELEMENT_WORK[kernel];
    const g = [kernel, ...args];
    if (!this.helper || work < this.splitMinWork || R < 2 * multiple) {
      runRows(this.exports, g, alpha, beta, 0, R);
      return;
    }
    const chunks = chunksFor(work);
    this.stats.splitRows++;
    this.helper.run(WasmJob.Rows, g, R, Math.ceil(R / chunks / multiple) * multiple, alpha, beta);
  }

  /** The catalog's sample kernel over R rows of V logits, shared by rows with the helper thread when it is large
   *  enough (sample-job.ts); false: too small to share (the caller runs the TypeScript kernel itself). */
  sampleShared(args: readonly number[], R: number, V: number): boolean {
    const work = R * V * LOGIT_WORK;
    if (!this.helper || work < this.splitMinWork || R < 2) return false;
    const chunks = chunksFor(work);
    this.stats.splitSamples++;
    this.helper.run(WasmJob.Sample, args, R, Math.ceil(R / chunks));
    return true;
  }

  /** Whether kernel runs over B sequences are worth sharing with the helper thread as one program. */
  sharesSequences(B: number): boolean {
    return this.helper !== null && B >= 4 && B * PROGRAM_SEQUENCE_WORK >= this.splitMinWork;
  }

  /** Runs an encoded program (sequence-program.ts) over B sequences, half of them (an even count) on each thread. */
  runProgram(program: Int32Array, B: number): void {
    if (!this.helper) throw new Error('WasmRuntime.runProgram: no helper thread');
    const at = this.reserve('program', program.length * 4);
    new Int32Array(this.memory.buffer, at, program.length).set(program);
    this.stats.splitPrograms++;
    this.helper.run(WasmJob.Program, [at, program.length], B, 2 * Math.ceil(B / 4));
  }

  /** Sequences per chunk when attention over B sequences is shared (up to MAX_CHUNKS chunks), or 0 = one thread. */
  private sequenceChunk(B: number, work: number): number {
    if (!this.helper || B < 2 || work < this.splitMinWork) return 0;
    return Math.ceil(B / Math.min(B, MAX_CHUNKS));
  }

  /** Rows per chunk when a matmul's M rows are shared between the threads: a multiple of `multiple`, one chunk
   *  per CHUNK_WORK multiply-adds (2 to MAX_CHUNKS chunks); 0 = one thread (no helper, or too little work to pay
   *  for the dispatch). */
  private rowChunk(M: number, N: number, K: number, multiple: number): number {
    const work = M * N * K;
    if (!this.helper || work < this.splitMinWork || M <= multiple) return 0;
    const chunks = chunksFor(work);
    return Math.ceil(M / chunks / multiple) * multiple;
  }

  private hasScratch(key: string, bytes: number): boolean {
    const have = this.scratch.get(key);
    return have !== undefined && have.bytes >= bytes;
  }

  /** Offset of an already reserved scratch block of at least `bytes` (kernels reserve before taking views). */
  private scratchAt(key: string, bytes: number): number {
    const have = this.scratch.get(key);
    if (!have || have.bytes < bytes)
      throw new Error(`WasmRuntime: reserve '${key}' (${bytes} bytes) before the matmul`);
    return have.offset;
  }
}
