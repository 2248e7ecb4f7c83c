// Two threads over one shared WebAssembly memory: the engine's thread and one helper thread (a worker_threads
// Worker in Node, a Web Worker in the page) that instantiated the same kernel modules on the same memory. A large
// matmul is split by output rows, attention (forward and backward) by sequences: the helper computes the lower
// rows / later sequences while the engine's thread computes the rest, each with the unchanged kernel, so every
// output element comes from the same instruction sequence as on one thread (the results are bit-identical).
// Dispatch costs about 0.1-0.4 ms, so only calls with enough work are split (runtime.ts decides).
// Protocol: a 128-byte control block in the shared memory. The engine writes the job (op, pointers, sizes, alpha,
// beta), bumps SEQ and notifies; the helper, asleep in Atomics.wait on SEQ, runs it and stores DONE = SEQ and
// notifies; the engine, after its own half, spins briefly and then sleeps in Atomics.wait on DONE.
// This file imports no node:* and no DOM: the platform starts the helper through a SpawnWasmHelper (Node:
// src/cli/wasm-helper-node.ts, the page: src/app/worker/wasm-helper.ts), and the helper runs runWasmHelper().

import { instantiateWasmKernels, type WasmKernelExports, type WasmVariant } from './loader.ts';

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
// Int32 slots of the control block; the job's arguments follow from ARGS (up to MAX_ARGS i32), then alpha, beta
// as f32
const SEQ = 0, DONE = 1, OP = 2, FAILED = 3, ARGS = 4, MAX_ARGS = 16, ALPHA = ARGS + MAX_ARGS, BETA = ALPHA + 1;
const OP_PACKED = 1, OP_FEW_ROWS = 2, OP_STOP = 3, OP_ATTENTION = 4, OP_ATTENTION_BACKWARD = 5;
/** Atomics.load polls before sleeping: a few microseconds, so a short wait does not pay a futex wake-up. */
const ENGINE_SPIN = 4000;
const HELPER_SPIN = 2000;

/** The engine's side: hands jobs to the helper thread and waits for them. */
export class WasmHelperThread {
  private seq: number;
  private readonly ctl: Int32Array;
  private readonly ctlF: Float32Array;
  /** Atomics.wait throws on a page's main thread; there the engine only spins */
  private canBlock = true;
  private stopped = false;

  private constructor(memory: WebAssembly.Memory, control: number, private readonly handle: WasmHelperHandle) {
    // the control block lies in the first pages, so these views stay valid when the memory grows (a shared
    // memory's old buffers are never detached)
    this.ctl = new Int32Array(memory.buffer, control, CONTROL_BYTES / 4);
    this.ctlF = new Float32Array(memory.buffer, control, CONTROL_BYTES / 4);
    this.seq = Atomics.load(this.ctl, SEQ);
  }

  /** Starts the helper on `memory` (shared) with the control block at byte `control`. */
  static async start(memory: WebAssembly.Memory, variant: WasmVariant, control: number, spawn: SpawnWasmHelper): Promise<WasmHelperThread> {
    new Int32Array(memory.buffer, control, CONTROL_BYTES / 4).fill(0);
    const handle = await spawn({ memory, variant, control });
    return new WasmHelperThread(memory, control, handle);
  }

  /** Starts exports.matmul(ap, bp, c, bias, M, N, K, alpha, beta) on the helper; returns at once. */
  startPacked(ap: number, bp: number, c: number, bias: number, M: number, N: number, K: number, alpha: number, beta: number): void {
    this.post(OP_PACKED, [ap, bp, c, bias, M, N, K, 0], alpha, beta);
  }

  /** Starts exports.matmulFewRows(a, b, c, bias, M, N, K, transB, alpha, beta) on the helper; returns at once. */
  startFewRows(a: number, b: number, c: number, bias: number, M: number, N: number, K: number, transB: number, alpha: number, beta: number): void {
    this.post(OP_FEW_ROWS, [a, b, c, bias, M, N, K, transB], alpha, beta);
  }

  /** Starts exports.attention(q, k, v, keyStart, o, lse, scores, B, T, S, past, H, Hkv, Dh) on the helper. */
  startAttention(args: readonly number[]): void {
    this.post(OP_ATTENTION, args, 0, 0);
  }

  /** Starts exports.attentionBackward(q, k, v, keyStart, o, lse, dout, dq, dk, dv, B, T, H, Hkv, Dh) on the helper. */
  startAttentionBackward(args: readonly number[]): void {
    this.post(OP_ATTENTION_BACKWARD, args, 0, 0);
  }

  /** Blocks until the job started last is done; throws when the helper's kernel failed. */
  wait(): void {
    const ctl = this.ctl, seq = this.seq;
    for (let i = 0; i < ENGINE_SPIN && Atomics.load(ctl, DONE) !== seq; i++);
    for (let done = Atomics.load(ctl, DONE); done !== seq; done = Atomics.load(ctl, DONE)) {
      if (!this.canBlock) continue;
      try {
        Atomics.wait(ctl, DONE, done);
      } catch {
        this.canBlock = false; // a page's main thread may not block: spin instead
      }
    }
    if (Atomics.load(ctl, FAILED)) {
      Atomics.store(ctl, FAILED, 0);
      throw new Error('WebAssembly helper thread: its half of the kernel failed');
    }
  }

  /** Asks the helper to leave its loop and ends the thread. */
  stop(): void {
    if (this.stopped) return;
    this.post(OP_STOP, [], 0, 0);
    this.stopped = true;
    this.handle.terminate();
  }

  private post(op: number, args: readonly number[], alpha: number, beta: number): void {
    if (this.stopped) throw new Error('WebAssembly helper thread: already stopped');
    if (args.length > MAX_ARGS) throw new Error(`WebAssembly helper thread: ${args.length} arguments, at most ${MAX_ARGS}`);
    for (let i = 0; i < args.length; i++) this.ctl[ARGS + i] = args[i];
    this.ctlF[ALPHA] = alpha;
    this.ctlF[BETA] = beta;
    this.ctl[OP] = op;
    this.seq = (this.seq + 1) | 0;
    Atomics.store(this.ctl, SEQ, this.seq); // sequentially consistent: the plain writes above are visible first
    Atomics.notify(this.ctl, SEQ, 1);
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
    for (let i = 0; i < HELPER_SPIN && Atomics.load(ctl, SEQ) === seen; i++);
    if (Atomics.load(ctl, SEQ) === seen) Atomics.wait(ctl, SEQ, seen);
    const seq = Atomics.load(ctl, SEQ);
    if (seq === seen) continue;
    seen = seq;
    const op = ctl[OP];
    const g = Array.from(ctl.subarray(ARGS, ARGS + MAX_ARGS));
    try {
      if (op === OP_PACKED) x.matmul(g[0], g[1], g[2], g[3], g[4], g[5], g[6], ctlF[ALPHA], ctlF[BETA]);
      else if (op === OP_FEW_ROWS) x.matmulFewRows(g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], ctlF[ALPHA], ctlF[BETA]);
      else if (op === OP_ATTENTION) x.attention(g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13]);
      else if (op === OP_ATTENTION_BACKWARD) {
        x.attentionBackward(g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13], g[14]);
      }
    } catch {
      Atomics.store(ctl, FAILED, 1);
    }
    Atomics.store(ctl, DONE, seq);
    Atomics.notify(ctl, DONE, 1);
    if (op === OP_STOP) return;
  }
}
