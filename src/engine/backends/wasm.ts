// The WebAssembly SIMD backend: the CPU backend with its tensors in one WebAssembly memory and the heavy kernels
// (matmul, lmHead, attention, logprob) running as SIMD code compiled from AssemblyScript (kernels/wasm/as/).
// Every other kernel is the TypeScript reference, reading the same memory through views. Relaxed SIMD (fused
// multiply-add) is used where the runtime validates it, plain SIMD otherwise.
//   const backend = await WasmBackend.create();                 // best variant, 4 GiB cap
//   const backend = await WasmBackend.create({ variant: 'simd', maxTotalBytes: 1 << 30 });
// Views from backend.view()/f32() are valid until the next alloc (growing the memory detaches them).

import type { Tensor } from '../backend.ts';
import { type WasmVariant, bestWasmVariant, wasmSupport } from '../kernels/wasm/loader.ts';
import { wasmKernels } from '../kernels/wasm/kernels.ts';
import { WasmRuntime } from '../kernels/wasm/runtime.ts';
import { CpuBackend, type TensorStore } from './cpu.ts';

export interface WasmBackendOptions {
  /** 'auto' (default): relaxed SIMD when supported, else plain SIMD */
  variant?: WasmVariant | 'auto';
  /** total tensor bytes allowed live (default and maximum: the memory's limit — 4 GiB, or 1 GiB where the engine
   *  refuses 4 GiB — minus 256 MiB of scratch headroom) */
  maxTotalBytes?: number;
}

/** Tensors as blocks of the runtime's heap; views are rebuilt when the memory has grown. */
class WasmTensorStore implements TensorStore {
  private readonly blocks = new Map<number, { offset: number; size: number; integer: boolean; view: Float32Array | Int32Array }>();
  constructor(private readonly rt: WasmRuntime) {}

  create(id: number, size: number, integer: boolean): void {
    const offset = this.rt.heap.alloc(size * 4);
    const view = this.makeView(offset, size, integer);
    view.fill(0); // fresh tensors read as zeros, like new typed arrays
    this.blocks.set(id, { offset, size, integer, view });
  }
  release(id: number): void {
    const b = this.blocks.get(id);
    if (!b) return;
    this.rt.heap.release(b.offset);
    this.blocks.delete(id);
  }
  get(id: number): Float32Array | Int32Array | undefined {
    const b = this.blocks.get(id);
    if (!b) return undefined;
    if (b.view.buffer !== this.rt.memory.buffer) b.view = this.makeView(b.offset, b.size, b.integer);
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
  private makeView(offset: number, size: number, integer: boolean): Float32Array | Int32Array {
    const buf = this.rt.memory.buffer;
    return integer ? new Int32Array(buf, offset, size) : new Float32Array(buf, offset, size);
  }
}

export class WasmBackend extends CpuBackend {
  override readonly kind = 'wasm' as const;
  readonly variant: WasmVariant;
  /** the runtime (memory, heap, SIMD exports) — benchmarks and tests read its stats */
  readonly runtime: WasmRuntime;

  private constructor(rt: WasmRuntime, store: WasmTensorStore, maxTotalBytes: number) {
    super({
      maxTotalBytes,
      maxBufferSize: maxTotalBytes,
      store,
      kernels: wasmKernels(rt, (t: Tensor) => store.pointer(t.id)),
      description: `wasm (WebAssembly ${rt.variant === 'relaxed-simd' ? 'relaxed SIMD' : 'SIMD'} kernels, 1 thread)`,
    });
    this.runtime = rt;
    this.variant = rt.variant;
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
    const rt = await WasmRuntime.create(variant);
    const headroom = 256 * 1024 * 1024;
    const maxTotalBytes = Math.min(options.maxTotalBytes ?? Infinity, rt.heap.maxBytes - headroom);
    return new WasmBackend(rt, new WasmTensorStore(rt), maxTotalBytes);
  }
}
