// What a WebGPU kernel's host code needs from the backend (GpuContext), and the argument checks every kernel
// uses: dtype and element count of each tensor, and whether a kernel can take a tensor split over buffers.
import type { Tensor } from '../../backend.ts';
import type { KernelArgs, KernelName } from '../../kernels/catalog.ts';
import type { ElemType } from '../../kernels/wgsl/common.ts';
import type { GpuStorage } from './memory.ts';
import type { GpuRuntime } from './runtime.ts';
import type { MatView } from './matmul.ts';
import type { KernelTuning } from './tuning.ts';

export type { KernelTuning } from './tuning.ts';

/** dtypes of id tensors, and of float tensors a kernel reads (f16: packed halves) */
export const IDS = ['i32', 'u32'];
export const FLOATS = ['f32', 'f16'];

/** A float or id dtype as a WGSL binding's element type. */
export function elem(dtype: string): ElemType {
  return dtype as ElemType;
}

/** The host side of catalog kernel K on WebGPU. */
export type KernelImpl<K extends KernelName> = (ctx: GpuContext, args: KernelArgs<K>) => void;

/** What the kernels need from the backend. */
export interface GpuContext {
  runtime: GpuRuntime;
  /** a 16-byte buffer bound where an optional tensor is absent */
  dummy: GPUBuffer;
  /** the atomic count of values the f16 writers clamped to ±65,504 (kernels/wgsl/half-pack.ts) */
  halfClamps: GPUBuffer;
  /** which kernel variants may run */
  tuning: KernelTuning;
  /** bytes of scratch space one vocabulary chunk may use */
  scratchBytes: number;
  storage(t: Tensor, kernel: string, name: string): GpuStorage;
  /** a scratch buffer of at least `bytes` (counted in the ledger until released) */
  scratch(bytes: number, label: string): GPUBuffer;
  /** give a scratch buffer back (safe right after recording its last use) */
  releaseScratch(buffer: GPUBuffer): void;
  /** a cached read-only buffer holding `data`, built once per key */
  constant(key: string, data: () => Float32Array | Uint32Array): GPUBuffer;
}

/** The storage of `t` after checking it holds at least `elems` elements of an allowed dtype. */
export function checked(
  ctx: GpuContext,
  kernel: string,
  name: string,
  t: Tensor,
  elems: number,
  dtypes: readonly string[] = ['f32'],
): GpuStorage {
  const s = ctx.storage(t, kernel, name);
  if (!dtypes.includes(t.dtype)) {
    throw new Error(
      `WebGPU ${kernel}: tensor '${name}' (${t.label}) has dtype ${t.dtype}; expected ${dtypes.join(' or ')}`,
    );
  }
  if (t.size < elems) {
    throw new Error(`WebGPU ${kernel}: tensor '${name}' (${t.label}) has ${t.size} elements but ${elems} are needed`);
  }
  return s;
}

/** The single buffer of `t` (kernels that do not walk split tensors). */
export function single(
  ctx: GpuContext,
  kernel: string,
  name: string,
  t: Tensor,
  elems: number,
  dtypes: readonly string[] = ['f32'],
): GPUBuffer {
  const s = checked(ctx, kernel, name, t, elems, dtypes);
  if (s.chunks.length !== 1) {
    throw new Error(
      `WebGPU ${kernel}: tensor '${name}' (${t.label}) is split over ${s.chunks.length} buffers ` +
        `(above maxStorageBufferBindingSize); this kernel needs it in one buffer`,
    );
  }
  return s.chunks[0].buffer;
}

export function view(s: GpuStorage, name: string, ld: number, elem0 = 0): MatView {
  return { chunks: s.chunks, dtype: s.tensor.dtype, elem0, ld, name };
}
