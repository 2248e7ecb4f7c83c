// The CPU backend: tensors are plain typed arrays in this thread, kernels are the TypeScript reference
// implementations in kernels/cpu/. It is the readable reference every other backend is tested against, and the
// fallback where neither WebGPU nor WebAssembly SIMD is available.
// Storage: f32 -> Float32Array; f16 / bf16 -> Float32Array too (the CPU keeps full precision, supportsF16 = false),
// except in a store with half storage (the WasmBackend's): there f16 / bf16 matrices (2-D and up: frozen weights)
// are 2-byte halves that only the kernels which read weights understand, and the ledger counts 2 bytes each;
// i32 and u32 -> Int32Array (u32 bit patterns; download returns a Uint32Array for u32).

import type { Backend, BackendLimits, DType, HostArray, Ledger, Tensor } from '../backend.ts';
import { numel } from '../backend.ts';
import { decodeBF16, decodeF16, floatToBF16Bits, floatToHalfBits } from '../io/half-float.ts';
import type { KernelArgs, KernelName } from '../kernels/catalog.ts';
import { kernelArgChecks } from '../kernels/arg-checks.ts';
import { cpuKernels, type CpuKernel, type CpuKernelTable, type CpuMemory } from '../kernels/cpu/index.ts';

/** Where tensor data lives: plain typed arrays by default; WasmBackend keeps them in WebAssembly memory. */
export interface TensorStore {
  /** make room for `size` elements (Int32Array when `integer`, else Float32Array), zeros unless `uninitialized`
   *  (then any contents); may throw RangeError */
  create(id: number, size: number, integer: boolean, uninitialized?: boolean): void;
  release(id: number): void;
  /** the live typed array for a tensor id (undefined when not live) */
  get(id: number): Float32Array | Int32Array | undefined;
  /** half storage (optional): make room for `size` 2-byte halves; get() then returns undefined for this id */
  createHalf?(id: number, size: number): void;
  /** the live halves of a tensor made by createHalf */
  getHalf?(id: number): Uint16Array | undefined;
  clear(): void;
}

/** Whether a tensor of this shape and dtype is kept as halves by a store that can (frozen weight matrices). */
export function storedAsHalf(shape: readonly number[], dtype: DType): boolean {
  return (dtype === 'f16' || dtype === 'bf16') && shape.length >= 2;
}

/** The default store: one typed array per tensor on the JavaScript heap. */
class HeapStore implements TensorStore {
  private readonly arrays = new Map<number, Float32Array | Int32Array>();
  create(id: number, size: number, integer: boolean): void {
    this.arrays.set(id, integer ? new Int32Array(size) : new Float32Array(size));
  }
  release(id: number): void {
    this.arrays.delete(id);
  }
  get(id: number): Float32Array | Int32Array | undefined {
    return this.arrays.get(id);
  }
  clear(): void {
    this.arrays.clear();
  }
}

export interface CpuBackendOptions {
  /** total bytes allowed live at once (default 8 GiB) */
  maxTotalBytes?: number;
  /** replace some kernels (WasmBackend plugs its SIMD kernels in here) */
  kernels?: Partial<CpuKernelTable>;
  /** shown in `description` */
  description?: string;
  /** where tensor data lives (default: typed arrays on the JS heap) */
  store?: TensorStore;
  /** per-buffer limit in bytes (default min(maxTotalBytes, 4 GiB)) */
  maxBufferSize?: number;
}

const GiB = 1024 ** 3;
type Storage = Float32Array | Int32Array;

class CpuTensor implements Tensor {
  constructor(
    readonly id: number,
    readonly shape: readonly number[],
    readonly dtype: DType,
    readonly size: number,
    readonly label: string,
  ) {}
}

export class CpuBackend implements Backend, CpuMemory {
  readonly kind: 'cpu' | 'wasm' = 'cpu';
  readonly description: string;
  readonly limits: BackendLimits;
  readonly supportsF16: boolean = false;
  readonly supportsBf16: boolean = false;
  private readonly kernels: CpuKernelTable;
  private readonly store: TensorStore;
  private readonly liveTensors = new Set<number>();
  /** ids stored as 2-byte halves (only with a store that has createHalf) */
  private readonly halfTensors = new Set<number>();
  private nextId = 1;
  private live = 0;
  private peak = 0;
  private clamped = 0;

  constructor(options: CpuBackendOptions = {}) {
    const maxTotalBytes = options.maxTotalBytes ?? 8 * GiB;
    // One typed array holds at most 2^32 - 1 elements in V8 (16 GiB of f32); keep a round 4 GiB per buffer.
    const perBuffer = options.maxBufferSize ?? Math.min(maxTotalBytes, 4 * GiB);
    this.limits = { maxBufferSize: perBuffer, maxStorageBufferBindingSize: perBuffer, maxTotalBytes };
    this.kernels = { ...cpuKernels, ...options.kernels } as CpuKernelTable;
    this.description = options.description ?? 'cpu (TypeScript reference kernels, 1 thread)';
    this.store = options.store ?? new HeapStore();
  }

  ledger(): Ledger {
    return { liveBytes: this.live, peakBytes: this.peak, liveTensors: this.liveTensors.size };
  }

  halfClamped(n: number): void {
    this.clamped += n;
  }

  /** Backend.halfClamps: values an f16 KV-cache write clamped to ±65,504 so far. */
  halfClamps(): Promise<number> {
    return Promise.resolve(this.clamped);
  }

  alloc(shape: readonly number[], dtype: DType = 'f32', label = '', uninitialized = false): Tensor {
    for (const d of shape) {
      if (!Number.isInteger(d) || d < 0) throw new Error(`alloc '${label}': bad shape [${shape.join(',')}]`);
    }
    const size = numel(shape);
    const half = this.store.createHalf !== undefined && storedAsHalf(shape, dtype);
    const bytes = size * (half ? 2 : 4); // every other dtype is stored in 4 bytes on the CPU
    const free = this.limits.maxTotalBytes - this.live;
    const where = `CpuBackend.alloc '${label}' [${shape.join(',')}] ${dtype}`;
    if (bytes > free) {
      throw new Error(
        `${where}: needs ${bytes} bytes but only ${free} of ${this.limits.maxTotalBytes} bytes are available ` +
          `(${this.live} bytes live in ${this.liveTensors.size} tensors)`,
      );
    }
    if (bytes > this.limits.maxBufferSize) {
      throw new Error(`${where}: needs ${bytes} bytes but one buffer holds at most ${this.limits.maxBufferSize} bytes`);
    }
    const t = new CpuTensor(this.nextId++, [...shape], dtype, size, label);
    try {
      if (half) this.store.createHalf!(t.id, size);
      else this.store.create(t.id, size, dtype === 'i32' || dtype === 'u32', uninitialized);
    } catch (e) {
      throw new Error(`${where}: needs ${bytes} bytes but the memory refused them (${String(e)})`, { cause: e });
    }
    this.liveTensors.add(t.id);
    if (half) this.halfTensors.add(t.id);
    this.live += bytes;
    this.peak = Math.max(this.peak, this.live);
    return t;
  }

  upload(t: Tensor, data: HostArray, elementOffset = 0): void {
    if (this.halfTensors.has(t.id)) {
      this.uploadHalf(t, data, elementOffset);
      return;
    }
    const dst = this.view(t);
    if (elementOffset < 0 || elementOffset + data.length > t.size) {
      throw new Error(
        `upload to '${t.label}' [${t.shape.join(',')}]: ${data.length} elements at offset ${elementOffset} ` +
          `do not fit ${t.size} elements`,
      );
    }
    const isFloat = t.dtype === 'f32' || t.dtype === 'f16' || t.dtype === 'bf16';
    if (data instanceof Uint16Array) {
      if (t.dtype !== 'f16' && t.dtype !== 'bf16')
        throw new Error(`upload to '${t.label}': Uint16Array (half bits) needs an f16 or bf16 tensor, not ${t.dtype}`);
      if (t.dtype === 'bf16') dst.set(decodeBF16(data), elementOffset);
      else for (let i = 0; i < data.length; i++) dst[elementOffset + i] = f16BitsToNumber(data[i]);
      return;
    }
    if (isFloat !== data instanceof Float32Array) {
      throw new Error(`upload to '${t.label}': a ${data.constructor.name} cannot fill a ${t.dtype} tensor`);
    }
    dst.set(data, elementOffset);
  }

  /** Halves from f32 values (rounded to nearest even; a value beyond the format's range is refused, naming the
   *  tensor and the element) or from their bits (Uint16Array). */
  private uploadHalf(t: Tensor, data: HostArray, elementOffset: number): void {
    const dst = this.half(t);
    if (elementOffset < 0 || elementOffset + data.length > t.size) {
      throw new Error(
        `upload to '${t.label}' [${t.shape.join(',')}]: ${data.length} elements at offset ${elementOffset} do not fit ${t.size} elements`,
      );
    }
    if (data instanceof Uint16Array) {
      dst.set(data, elementOffset);
      return;
    }
    if (!(data instanceof Float32Array))
      throw new Error(`upload to '${t.label}': a ${data.constructor.name} cannot fill a ${t.dtype} tensor`);
    const bf16 = t.dtype === 'bf16';
    for (let i = 0; i < data.length; i++) {
      const bits = bf16 ? floatToBF16Bits(data[i]) : floatToHalfBits(data[i]);
      if (((bits >> (bf16 ? 7 : 10)) & (bf16 ? 0xff : 0x1f)) === (bf16 ? 0xff : 0x1f)) {
        throw new Error(
          `upload to '${t.label}': element ${elementOffset + i} = ${data[i]} does not fit ${t.dtype} (largest finite ${bf16 ? '3.39e38' : '65504'}); store these weights as f32`,
        );
      }
      dst[elementOffset + i] = bits;
    }
  }

  async download(t: Tensor): Promise<HostArray> {
    if (this.halfTensors.has(t.id)) return t.dtype === 'bf16' ? decodeBF16(this.half(t)) : decodeF16(this.half(t));
    const src = this.view(t);
    if (t.dtype === 'u32') return new Uint32Array(src.slice().buffer);
    return src.slice();
  }

  async downloadInto(t: Tensor, out: Float32Array): Promise<void> {
    if (t.dtype !== 'f32' || this.halfTensors.has(t.id))
      throw new Error(`downloadInto: '${t.label}' is ${t.dtype}, not f32`);
    if (out.length !== t.size)
      throw new Error(`downloadInto: '${t.label}' has ${t.size} elements, the array ${out.length}`);
    out.set(this.view(t) as Float32Array);
  }

  run<K extends KernelName>(kernel: K, args: KernelArgs<K>): void {
    const fn = this.kernels[kernel] as CpuKernel<K> | undefined;
    if (!fn) throw new Error(`CpuBackend.run: unknown kernel '${String(kernel)}'`);
    (kernelArgChecks[kernel] as (t: KernelArgs<K>['t'], p: KernelArgs<K>['p']) => void)(args.t, args.p);
    fn(this, args.t, args.p);
  }

  free(t: Tensor): void {
    if (!this.liveTensors.delete(t.id)) {
      throw new Error(
        `CpuBackend.free: tensor '${t.label}' (#${t.id}) is not live (freed twice or from another backend)`,
      );
    }
    this.store.release(t.id);
    this.live -= t.size * (this.halfTensors.delete(t.id) ? 2 : 4);
  }

  async sync(): Promise<void> {}

  destroy(): void {
    this.store.clear();
    this.liveTensors.clear();
    this.halfTensors.clear();
    this.live = 0;
  }

  /** The typed array behind a tensor, without copying (tests and CPU-side code read and write it directly).
   *  On WasmBackend a view is only valid until the next alloc (growing WebAssembly memory detaches old views). */
  view(t: Tensor): Storage {
    const data = this.store.get(t.id);
    if (!data) {
      if (this.halfTensors.has(t.id))
        throw new Error(
          `CpuBackend: tensor '${t.label}' is stored as ${t.dtype} halves; only the weight-reading kernels take it`,
        );
      throw new Error(`CpuBackend: tensor '${t.label}' (#${t.id}) is not live on this backend`);
    }
    return data;
  }

  /** Whether a tensor is stored as 2-byte halves (then half() gives its bits and view() refuses it). */
  isHalf(t: Tensor): boolean {
    return this.halfTensors.has(t.id);
  }

  /** The halves behind a tensor stored as f16 / bf16 (same validity rule as view()). */
  half(t: Tensor): Uint16Array {
    const data = this.halfTensors.has(t.id) ? this.store.getHalf?.(t.id) : undefined;
    if (!data) throw new Error(`CpuBackend: tensor '${t.label}' (#${t.id}) is not stored as halves on this backend`);
    return data;
  }

  f32(t: Tensor): Float32Array {
    const data = this.view(t);
    if (!(data instanceof Float32Array)) {
      throw new Error(`CpuBackend: tensor '${t.label}' is ${t.dtype}, a float tensor (f32/f16) was expected`);
    }
    return data;
  }

  i32(t: Tensor): Int32Array {
    const data = this.view(t);
    if (!(data instanceof Int32Array)) {
      throw new Error(`CpuBackend: tensor '${t.label}' is ${t.dtype}, an integer tensor (i32/u32) was expected`);
    }
    return data;
  }
}

/** IEEE 754 half-precision bits -> number. */
export function f16BitsToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24; // subnormal
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}
