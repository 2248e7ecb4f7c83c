// The WebAssembly SIMD backend: the CPU backend with its tensors in one WebAssembly memory and the heavy kernels
// (matmul, lmHead, attention, logprob) running as SIMD code compiled from AssemblyScript (kernels/wasm/as/).
// Every other kernel is the TypeScript reference, reading the same memory through views. Relaxed SIMD (fused
// multiply-add) is used where the runtime validates it, plain SIMD otherwise. Given a way to start a helper thread
// (spawnHelper), large matmuls, attention, elementwise kernels, the sampler and whole decode steps (bySequence)
// run on two threads over a shared memory (wasm/threads.ts), with results bit-identical to one thread; without one,
// or without SharedArrayBuffer (a page that is not cross-origin isolated), everything runs on one thread.
//   const backend = await WasmBackend.create();                 // best variant, 4 GiB cap, 1 thread
//   const backend = await WasmBackend.create({ variant: 'simd', maxTotalBytes: 1 << 30 });
//   const backend = await WasmBackend.create({ spawnHelper });  // 2 threads where possible
// Views from backend.view()/f32() are valid until the next alloc (growing the memory detaches them).
// Frozen base weights may be stored as f16 or bf16 (EnginePolicyOptions.baseDtype): 2 bytes an element, widened
// to f32 inside the kernels that read weights, so a 1B-parameter model fits WebAssembly's 4 GiB.

import type { DType, HostArray, Tensor } from '../backend.ts';
import { kernelArgChecks } from '../kernels/arg-checks.ts';
import type { KernelArgs, KernelName } from '../kernels/catalog.ts';
import { type WasmVariant, bestWasmVariant, sharedWasmSupported, wasmSupport } from './wasm/loader.ts';
import { wasmKernels, wasmRopeTables } from './wasm/kernels.ts';
import { WasmRuntime } from './wasm/runtime.ts';
import { type KernelRun, type LowerRun, wasmSequenceLowering } from './wasm/sequence-lowering.ts';
import { encodeProgram, type LoweredRun } from './wasm/sequence-program.ts';
import type { SpawnWasmHelper } from './wasm/threads.ts';
import { CpuBackend, type TensorStore } from './cpu.ts';

export interface WasmBackendOptions {
  /** 'auto' (default): relaxed SIMD when supported, else plain SIMD */
  variant?: WasmVariant | 'auto';
  /** total tensor bytes allowed live (default and maximum: the memory's limit — 4 GiB, or 1 GiB where the engine
   *  refuses 4 GiB — minus 256 MiB of scratch headroom) */
  maxTotalBytes?: number;
  /** 1: one thread; 2: split large matmuls with a helper thread. Default: 2 when spawnHelper is given, shared
   *  memory works here and the machine has at least 2 cores; 2 falls back to 1 when it cannot run. */
  threads?: 1 | 2;
  /** starts the helper thread (Node: src/cli/wasm-helper-node.ts, the page: src/app/worker/wasm-helper.ts) */
  spawnHelper?: SpawnWasmHelper;
  /** logical cores (default navigator.hardwareConcurrency, else 1) */
  cores?: number;
  /** false pretends SharedArrayBuffer is missing (tests the single-thread fallback); default: detect */
  sharedMemory?: boolean;
  /** multiply-adds from which a matmul is split (default runtime.ts SPLIT_MIN_WORK; tests use 0) */
  splitMinWork?: number;
  /** tests: the helper thread runs every chunk of a shared call while the engine's thread waits */
  helperOnly?: boolean;
  /** tests: tensors allocated `uninitialized` start as NaN (i32: -1) instead of the block's old bytes, so that
   *  reading one before writing it shows in the results */
  poison?: boolean;
}

/** How many threads a backend with these options will run, and why not two. */
export function wasmThreadPlan(options: WasmBackendOptions, variant: WasmVariant): { threads: 1 | 2; reason: string } {
  const cores =
    options.cores ??
    (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ??
    1;
  const wanted = options.threads ?? (cores >= 2 ? 2 : 1);
  if (wanted === 1) return { threads: 1, reason: options.threads === 1 ? 'pinned to 1 thread' : `${cores} core` };
  if (!options.spawnHelper) return { threads: 1, reason: 'no way to start a helper thread here' };
  if (options.sharedMemory === false || !sharedWasmSupported(variant)) {
    return { threads: 1, reason: 'no SharedArrayBuffer (the page is not cross-origin isolated)' };
  }
  return { threads: 2, reason: '' };
}

type Kind = 'f32' | 'i32' | 'half';
type View = Float32Array | Int32Array | Uint16Array;

/** Tensors as blocks of the runtime's heap; views are rebuilt when the memory has grown. Frozen weight matrices
 *  stored as f16 / bf16 take 2 bytes an element (createHalf). */
class WasmTensorStore implements TensorStore {
  private readonly blocks = new Map<number, { offset: number; size: number; kind: Kind; view: View }>();
  constructor(
    private readonly rt: WasmRuntime,
    private readonly poison: boolean,
  ) {}

  create(id: number, size: number, integer: boolean, uninitialized = false): void {
    this.make(id, size, integer ? 'i32' : 'f32', uninitialized);
  }
  createHalf(id: number, size: number): void {
    this.make(id, size, 'half', false);
  }
  private make(id: number, size: number, kind: Kind, uninitialized: boolean): void {
    const offset = this.rt.heap.alloc(size * (kind === 'half' ? 2 : 4));
    const view = this.makeView(offset, size, kind);
    // fresh tensors read as zeros, like new typed arrays; a tensor its caller fully writes first keeps the block's
    // old bytes (NaN with the `poison` option, so that a test finds a read before the write)
    if (!uninitialized) view.fill(0);
    else if (this.poison) view.fill(kind === 'i32' ? -1 : NaN);
    this.blocks.set(id, { offset, size, kind, view });
  }
  release(id: number): void {
    const b = this.blocks.get(id);
    if (!b) return;
    this.rt.heap.release(b.offset);
    this.blocks.delete(id);
  }
  get(id: number): Float32Array | Int32Array | undefined {
    const v = this.viewOf(id);
    return v instanceof Uint16Array ? undefined : v;
  }
  getHalf(id: number): Uint16Array | undefined {
    const v = this.viewOf(id);
    return v instanceof Uint16Array ? v : undefined;
  }
  private viewOf(id: number): View | undefined {
    const b = this.blocks.get(id);
    if (!b) return undefined;
    if (b.view.buffer !== this.rt.memory.buffer) b.view = this.makeView(b.offset, b.size, b.kind);
    return b.view;
  }
  clear(): void {
    for (const id of this.blocks.keys()) this.release(id); // deleting while iterating a Map is safe
  }
  pointer(id: number): number {
    const b = this.blocks.get(id);
    if (!b) throw new Error(`WasmBackend: tensor #${id} is not live on this backend`);
    return b.offset;
  }
  private makeView(offset: number, size: number, kind: Kind): View {
    const buf = this.rt.memory.buffer;
    if (kind === 'half') return new Uint16Array(buf, offset, size);
    return kind === 'i32' ? new Int32Array(buf, offset, size) : new Float32Array(buf, offset, size);
  }
}

export class WasmBackend extends CpuBackend {
  override readonly kind = 'wasm' as const;
  /** frozen weights may be stored as f16 or bf16 halves (2 bytes; the matmul, LM-head, log-prob and embedding
   *  kernels widen them to f32 as they read them; LoRA, gradients and optimiser state stay f32) */
  override readonly supportsF16 = true;
  override readonly supportsBf16 = true;
  readonly variant: WasmVariant;
  /** the runtime (memory, heap, SIMD exports) — benchmarks and tests read its stats */
  readonly runtime: WasmRuntime;

  /** how bySequence turns a kernel run into a program's run (wasm/sequence-lowering.ts) */
  private readonly lower: LowerRun;
  /** the runs of a bySequence body, recorded instead of run */
  private recorded: KernelRun[] | null = null;

  /** `oneThreadReason`: why a backend that could use two threads runs one (named in its description). */
  private constructor(rt: WasmRuntime, store: WasmTensorStore, maxTotalBytes: number, oneThreadReason: string) {
    const ptr = (t: Tensor) => store.pointer(t.id);
    const formatOf = (t: Tensor) => (store.getHalf(t.id) ? (t.dtype === 'bf16' ? 'bf16' : 'f16') : 'f32');
    const ropeTable = wasmRopeTables(rt);
    super({
      maxTotalBytes,
      maxBufferSize: maxTotalBytes,
      store,
      kernels: wasmKernels(rt, ptr, formatOf, ropeTable),
      description: `wasm (WebAssembly ${rt.variant === 'relaxed-simd' ? 'relaxed SIMD' : 'SIMD'} kernels, ${rt.threads === 2 ? '2 threads' : oneThreadReason ? `1 thread: ${oneThreadReason}` : '1 thread'})`,
    });
    this.runtime = rt;
    this.variant = rt.variant;
    this.lower = wasmSequenceLowering(rt, ptr, formatOf, ropeTable);
  }

  override run<K extends KernelName>(kernel: K, args: KernelArgs<K>): void {
    if (this.recorded) {
      (kernelArgChecks[kernel] as (t: KernelArgs<K>['t'], p: KernelArgs<K>['p']) => void)(args.t, args.p);
      this.recorded.push({ kernel, args } as KernelRun);
      return;
    }
    super.run(kernel, args);
  }

  /** Backend.bySequence: the body's runs are recorded, lowered to one program (wasm/sequence-program.ts) and run as
   *  one job of the two threads; where a run has no lowering, they run one by one as recorded. */
  bySequence(B: number, body: () => void): void {
    if (this.recorded || !this.runtime.sharesSequences(B)) {
      body();
      return;
    }
    const runs: KernelRun[] = (this.recorded = []);
    try {
      body();
    } finally {
      this.recorded = null;
    }
    // twice: the first pass reserves every scratch block the runs use, the second takes their final offsets
    let lowered = runs.map((r) => this.lower(this, r, B));
    if (lowered.some((l) => l === null)) {
      for (const r of runs) super.run(r.kernel, r.args);
      return;
    }
    lowered = runs.map((r) => this.lower(this, r, B));
    this.runtime.runProgram(encodeProgram(lowered as LoweredRun[]), B);
  }

  override alloc(shape: readonly number[], dtype?: DType, label?: string, uninitialized?: boolean): Tensor {
    this.onlyKernels('alloc');
    return super.alloc(shape, dtype, label, uninitialized);
  }

  override upload(t: Tensor, data: HostArray, elementOffset?: number): void {
    this.onlyKernels('upload');
    super.upload(t, data, elementOffset);
  }

  override download(t: Tensor): Promise<HostArray> {
    this.onlyKernels('download');
    return super.download(t);
  }

  override downloadInto(t: Tensor, out: Float32Array): Promise<void> {
    this.onlyKernels('download');
    return super.downloadInto(t, out);
  }

  override free(t: Tensor): void {
    this.onlyKernels('free');
    super.free(t);
  }

  private onlyKernels(what: string): void {
    if (this.recorded) throw new Error(`WasmBackend.bySequence: its body may only run kernels, not ${what}`);
  }

  /** Threads running kernels: 2 when large matmuls are split with a helper thread, else 1. */
  get threads(): 1 | 2 {
    return this.runtime.threads;
  }

  override destroy(): void {
    super.destroy();
    this.runtime.close();
  }

  /** Which variants this runtime supports (Node 20 needs --experimental-wasm-relaxed-simd for relaxed). */
  static support(): Record<WasmVariant, boolean> {
    return wasmSupport();
  }

  static async create(options: WasmBackendOptions = {}): Promise<WasmBackend> {
    const requested = options.variant ?? 'auto';
    const variant = requested === 'auto' ? bestWasmVariant() : requested;
    if (variant === null) throw new Error('WasmBackend: this JavaScript engine has no WebAssembly SIMD');
    // leave headroom for kernel scratch (packing panels, logits chunks) inside the 4 GiB address space
    const plan = wasmThreadPlan(options, variant);
    let rt: WasmRuntime;
    try {
      rt = await WasmRuntime.create(variant, undefined, {
        spawnHelper: plan.threads === 2 ? options.spawnHelper : undefined,
        splitMinWork: options.splitMinWork,
        helperOnly: options.helperOnly,
      });
    } catch (e) {
      if (plan.threads === 1) throw e;
      rt = await WasmRuntime.create(variant); // the helper thread did not start: one thread, as without one
    }
    const headroom = 256 * 1024 * 1024;
    const maxTotalBytes = Math.min(options.maxTotalBytes ?? Infinity, rt.heap.maxBytes - headroom);
    // a core count or an explicit pin is no surprise; a page that cannot share memory is worth saying
    const reason = plan.threads === 1 && plan.reason.startsWith('no SharedArrayBuffer') ? plan.reason : '';
    return new WasmBackend(rt, new WasmTensorStore(rt, options.poison === true), maxTotalBytes, reason);
  }
}
