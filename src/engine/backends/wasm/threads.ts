// Two threads over one shared WebAssembly memory: the engine's thread and one helper thread (a worker_threads
// Worker in Node, a Web Worker in the page) that instantiated the same kernel modules on the same memory. A large
// matmul is cut into chunks of output rows, attention (forward and backward) into chunks of sequences, the
// row-local elementwise kernels and the sampler into chunks of rows, a decode step's whole program into chunks of
// sequences; both threads take chunks from a shared counter until none is left, each running the unchanged kernel
// on its chunk, so every output element comes from the same instruction sequence as on one thread (bit-identical
// results).
// Taking chunks instead of fixed halves keeps a late helper (its core busy with other work: this machine has 2
// shared vCPUs) from holding the engine up: the engine then takes the chunks itself, and if the helper has not
// claimed the job by the time all chunks are done, the engine cancels it and goes on without waiting.
// A hand-off costs a few microseconds while the helper polls and tens once it sleeps (bench/threads.ts part 5), and
// the helper's chunks read data the engine's core wrote, so only calls with enough work are split (runtime.ts).
// Protocol (a 128-byte control block in the shared memory): the engine writes the job (op, arguments, chunk
// plan), TICKET = SEQ = seq, notifies; the helper, polling SEQ for a while after each job and then asleep in
// Atomics.wait, claims the job by swapping TICKET from seq to 0, takes chunks with Atomics.add on NEXT, then
// stores DONE = seq and notifies. The engine, out of chunks, swaps TICKET from seq to 0 itself: success means the
// helper never claimed the job (no wait); otherwise it waits (spin, then Atomics.wait) for DONE = seq.
// This file imports no node:* and no DOM: the platform starts the helper through a SpawnWasmHelper (Node:
// src/cli/wasm-helper-node.ts, the page: src/app/worker/wasm-helper.ts), and the helper runs runWasmHelper().

import { instantiateWasmKernels, type WasmKernelExports, type WasmVariant } from './loader.ts';
import { runRows } from './row-jobs.ts';
import { runSampleRows } from './sample-job.ts';
import { runProgram } from './sequence-program.ts';

/** What a helper thread needs: the shared memory, which build to instantiate, where the control block is. */
export interface WasmHelperInit {
  memory: WebAssembly.Memory;
  variant: WasmVariant;
  /** byte offset of the control block (CONTROL_BYTES) in memory */
  control: number;
}

/** A running helper thread. */
export interface WasmHelperHandle {
  /** ends the thread (after the engine asked it to stop) */
  terminate(): void;
}

/** Starts a thread that calls runWasmHelper(init, ready) and resolves once ready() was called there. */
export type SpawnWasmHelper = (init: WasmHelperInit) => Promise<WasmHelperHandle>;

/** Bytes of the control block. */
export const CONTROL_BYTES = 128;
// Int32 slots of the control block: the job's arguments from ARGS (up to MAX_ARGS i32), then alpha, beta as f32
const SEQ = 0,
  DONE = 1,
  OP = 2,
  FAILED = 3,
  TICKET = 4,
  NEXT = 5,
  TOTAL = 6,
  CHUNK = 7;
const ARGS = 8,
  MAX_ARGS = 20, // ALPHA and BETA end at slot 29 of the 32
  ALPHA = ARGS + MAX_ARGS,
  BETA = ALPHA + 1;
/** Atomics.load polls before the engine sleeps while the helper finishes its last chunk (tens of microseconds). */
const ENGINE_SPIN = 4000;
/** How long the helper polls for the next job before it sleeps, in milliseconds. A decode step's split kernels come
 *  tens to hundreds of microseconds apart; posting to a sleeping helper costs the engine a futex wake-up in
 *  Atomics.notify (~10 us on a 2-vCPU VM) and the helper ~20 us more before it takes a chunk, while a polling helper
 *  starts within a microsecond or two. */
const HELPER_SPIN_MS = 0.25;
/** Polls between two clock reads while the helper waits. */
const POLLS_PER_CLOCK = 256;

/** The jobs a helper runs, each over a range [start, end) of rows (matmuls) or sequences (attention):
 *  Packed: exports.matmul on packed operands, args [ap, bp, c, bias, M, N, K], alpha, beta; rows;
 *  FewRows: exports.matmulFewRows, args [a, b, c, bias, M, N, K, transB], alpha, beta; rows (even chunk starts);
 *  Direct: exports.matmulDirect (op(A) read in place), args [a, transA, lda, b, bStep, bPanel, c, bias, M, N, K],
 *  alpha, beta; rows;
 *  Attention: exports.attention, args [q, k, v, keyStart, o, lse, scores, B, T, S, past, H, Hkv, Dh, helperScores];
 *  AttentionBackward: exports.attentionBackward, args [q, k, v, keyStart, o, lse, dout, dq, dk, dv, B, T, S, past, H,
 *  Hkv, Dh];
 *  Rows: a row-local elementwise kernel (row-jobs.ts), args [kernel, ...], alpha, beta; rows;
 *  Sample: the TypeScript sampler on rows of the memory (sample-job.ts), args as sampleJobArgs; rows;
 *  Program: a step's kernels per sequence (sequence-program.ts), args [program, its length in i32]; sequences. */
export const WasmJob = {
  Stop: 1,
  Packed: 2,
  FewRows: 3,
  Attention: 4,
  AttentionBackward: 5,
  Direct: 6,
  Rows: 7,
  Sample: 8,
  Program: 9,
} as const;
export type WasmJob = (typeof WasmJob)[keyof typeof WasmJob];

/** Runs rows / sequences [s, e) of a job with kernel exports `x` on `memory` (either thread: the helper uses its own
 *  scores). */
function runPart(
  x: WasmKernelExports,
  memory: WebAssembly.Memory,
  op: number,
  g: ArrayLike<number>,
  alpha: number,
  beta: number,
  s: number,
  e: number,
  helper: boolean,
): void {
  if (op === WasmJob.Packed) {
    const [ap, bp, c, bias, , N, K] = g as number[];
    x.matmul(ap + s * K * 4, bp, c + s * N * 4, bias, e - s, N, K, alpha, beta);
  } else if (op === WasmJob.FewRows) {
    const [a, b, c, bias, , N, K, transB] = g as number[];
    x.matmulFewRows(a + s * K * 4, b, c + s * N * 4, bias, e - s, N, K, transB, alpha, beta);
  } else if (op === WasmJob.Direct) {
    const [a, transA, lda, b, bStep, bPanel, c, bias, , N, K] = g as number[];
    const rows = transA ? s * 4 : s * lda; // bytes to row s of op(A)
    x.matmulDirect(a + rows, transA, lda, b, bStep, bPanel, c + s * N * 4, bias, e - s, N, K, alpha, beta);
  } else if (op === WasmJob.Attention) {
    const [q, k, v, keyStart, o, lse, scores, , T, S, past, H, Hkv, Dh, helperScores] = g as number[];
    const qRows = s * T * H * Dh * 4,
      kvRows = s * S * Hkv * Dh * 4;
    x.attention(
      q + qRows,
      k + kvRows,
      v + kvRows,
      keyStart + s * 4,
      o + qRows,
      lse + s * H * T * 4,
      helper ? helperScores : scores,
      e - s,
      T,
      S,
      past,
      H,
      Hkv,
      Dh,
    );
  } else if (op === WasmJob.Rows) {
    runRows(x, g, alpha, beta, s, e);
  } else if (op === WasmJob.Sample) {
    runSampleRows(memory, g, s, e);
  } else if (op === WasmJob.Program) {
    runProgram(x, new Int32Array(memory.buffer, g[0], g[1]), s, e, helper);
  } else if (op === WasmJob.AttentionBackward) {
    const [q, k, v, keyStart, o, lse, dout, dq, dk, dv, , T, S, past, H, Hkv, Dh] = g as number[];
    const qRows = s * T * H * Dh * 4,
      kvRows = s * S * Hkv * Dh * 4;
    x.attentionBackward(
      q + qRows,
      k + kvRows,
      v + kvRows,
      keyStart + s * 4,
      o + qRows,
      lse + s * H * T * 4,
      dout + qRows,
      dq + qRows,
      dk + kvRows,
      dv + kvRows,
      e - s,
      T,
      S,
      past,
      H,
      Hkv,
      Dh,
    );
  }
}

/** Takes chunks of the posted job from NEXT until none is left. */
function takeChunks(
  x: WasmKernelExports,
  memory: WebAssembly.Memory,
  ctl: Int32Array,
  op: number,
  g: ArrayLike<number>,
  alpha: number,
  beta: number,
  helper: boolean,
): void {
  const total = ctl[TOTAL],
    chunk = ctl[CHUNK];
  for (let s = Atomics.add(ctl, NEXT, 1) * chunk; s < total; s = Atomics.add(ctl, NEXT, 1) * chunk) {
    runPart(x, memory, op, g, alpha, beta, s, Math.min(total, s + chunk), helper);
  }
}

/** The engine's side: posts jobs, takes its share of the chunks, and waits for the helper's. */
export class WasmHelperThread {
  private seq: number;
  private readonly ctl: Int32Array;
  private readonly ctlF: Float32Array;
  /** Atomics.wait throws on a page's main thread; there the engine only spins */
  private canBlock = true;
  private stopped = false;
  /** jobs the helper claimed (took part in) and jobs the engine finished alone */
  readonly counts = { shared: 0, alone: 0 };
  /** tests: the engine's thread takes no chunks and waits while the helper runs all of them */
  helperOnly = false;

  private constructor(
    private readonly memory: WebAssembly.Memory,
    control: number,
    private readonly x: WasmKernelExports,
    private readonly handle: WasmHelperHandle,
  ) {
    // the control block lies in the first pages, so these views stay valid when the memory grows (a shared
    // memory's old buffers are never detached)
    this.ctl = new Int32Array(memory.buffer, control, CONTROL_BYTES / 4);
    this.ctlF = new Float32Array(memory.buffer, control, CONTROL_BYTES / 4);
    this.seq = Atomics.load(this.ctl, SEQ);
  }

  /** Starts the helper on `memory` (shared) with the control block at byte `control`; `x` = this thread's kernels. */
  static async start(
    memory: WebAssembly.Memory,
    variant: WasmVariant,
    control: number,
    x: WasmKernelExports,
    spawn: SpawnWasmHelper,
  ): Promise<WasmHelperThread> {
    new Int32Array(memory.buffer, control, CONTROL_BYTES / 4).fill(0);
    const handle = await spawn({ memory, variant, control });
    return new WasmHelperThread(memory, control, x, handle);
  }

  /** Runs a job over [0, total) in chunks of `chunk` on both threads; returns when every chunk is done. */
  run(op: WasmJob, args: readonly number[], total: number, chunk: number, alpha = 0, beta = 0): void {
    const ctl = this.ctl;
    this.post(op, args, total, chunk, alpha, beta);
    const seq = this.seq;
    try {
      if (!this.helperOnly) takeChunks(this.x, this.memory, ctl, op, args, alpha, beta, false);
    } finally {
      if (!this.helperOnly && Atomics.compareExchange(ctl, TICKET, seq, 0) === seq) {
        this.counts.alone++; // the helper never claimed it: nothing to wait for
      } else {
        this.counts.shared++;
        this.waitDone(seq);
      }
    }
    if (Atomics.load(ctl, FAILED)) {
      Atomics.store(ctl, FAILED, 0);
      throw new Error('WebAssembly helper thread: its part of the kernel failed');
    }
  }

  /** Asks the helper to leave its loop and ends the thread. */
  stop(): void {
    if (this.stopped) return;
    this.post(WasmJob.Stop, [], 0, 1, 0, 0);
    this.stopped = true;
    this.handle.terminate();
  }

  private waitDone(seq: number): void {
    const ctl = this.ctl;
    for (let i = 0; i < ENGINE_SPIN && Atomics.load(ctl, DONE) !== seq; i++);
    for (let done = Atomics.load(ctl, DONE); done !== seq; done = Atomics.load(ctl, DONE)) {
      if (!this.canBlock) continue;
      try {
        Atomics.wait(ctl, DONE, done);
      } catch {
        this.canBlock = false; // a page's main thread may not block: spin instead
      }
    }
  }

  private post(op: WasmJob, args: readonly number[], total: number, chunk: number, alpha: number, beta: number): void {
    if (this.stopped) throw new Error('WebAssembly helper thread: already stopped');
    if (args.length > MAX_ARGS)
      throw new Error(`WebAssembly helper thread: ${args.length} arguments, at most ${MAX_ARGS}`);
    const ctl = this.ctl;
    for (let i = 0; i < args.length; i++) ctl[ARGS + i] = args[i];
    this.ctlF[ALPHA] = alpha;
    this.ctlF[BETA] = beta;
    ctl[OP] = op;
    ctl[TOTAL] = total;
    ctl[CHUNK] = chunk;
    Atomics.store(ctl, NEXT, 0);
    this.seq = (this.seq + 1) | 0 || 1; // never 0: TICKET 0 means "claimed or cancelled"
    Atomics.store(ctl, TICKET, this.seq);
    Atomics.store(ctl, SEQ, this.seq); // sequentially consistent: every write above is visible first
    Atomics.notify(ctl, SEQ, 1);
  }
}

/** The helper's side: instantiates the kernels on the shared memory, calls ready(), then serves jobs until told
 *  to stop. Blocks its thread between jobs (Atomics.wait), so call it from a dedicated worker. */
export async function runWasmHelper(init: WasmHelperInit, ready: () => void): Promise<void> {
  const x: WasmKernelExports = await instantiateWasmKernels(init.memory, init.variant);
  const ctl = new Int32Array(init.memory.buffer, init.control, CONTROL_BYTES / 4);
  const ctlF = new Float32Array(init.memory.buffer, init.control, CONTROL_BYTES / 4);
  let seen = Atomics.load(ctl, SEQ);
  ready();
  for (;;) {
    pollFor(ctl, seen);
    if (Atomics.load(ctl, SEQ) === seen) Atomics.wait(ctl, SEQ, seen);
    const seq = Atomics.load(ctl, SEQ);
    if (seq === seen) continue;
    seen = seq;
    if (Atomics.compareExchange(ctl, TICKET, seq, 0) !== seq) continue; // the engine finished it alone, or a newer job came
    const op = ctl[OP];
    if (op === WasmJob.Stop) return;
    try {
      takeChunks(x, init.memory, ctl, op, ctl.slice(ARGS, ARGS + MAX_ARGS), ctlF[ALPHA], ctlF[BETA], true);
    } catch {
      Atomics.store(ctl, FAILED, 1);
    }
    Atomics.store(ctl, DONE, seq);
    Atomics.notify(ctl, DONE, 1);
  }
}

/** Polls SEQ for a change from `seen` for up to HELPER_SPIN_MS. */
function pollFor(ctl: Int32Array, seen: number): void {
  const until = performance.now() + HELPER_SPIN_MS;
  while (Atomics.load(ctl, SEQ) === seen) {
    for (let i = 0; i < POLLS_PER_CLOCK && Atomics.load(ctl, SEQ) === seen; i++);
    if (performance.now() > until) return;
  }
}
