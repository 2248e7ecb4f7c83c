// The tensor handle and its element types: the leaf every backend, kernel and the catalog share
// (backend.ts and kernels/catalog.ts both import it, so neither imports the other for it).

/** f16: IEEE binary16, bf16: bfloat16 (frozen weights only; kernels widen them to f32 as they read them). */
export type DType = 'f32' | 'f16' | 'bf16' | 'i32' | 'u32';

/** A handle to device memory. Row-major, `shape` in elements. Data never lives on the handle itself. */
export interface Tensor {
  readonly id: number;
  readonly shape: readonly number[];
  readonly dtype: DType;
  /** number of elements = product of shape */
  readonly size: number;
  readonly label: string;
}

export type HostArray = Float32Array | Int32Array | Uint32Array | Uint16Array;

export function numel(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export function bytesPerElement(dtype: DType): number {
  return dtype === 'f16' || dtype === 'bf16' ? 2 : 4;
}
