// Small helpers over Backend used by the decoder, LoRA and optimiser code: typed uploads, zeroing (the catalog's
// `zero`) and copying (`axpby`) whole tensors, so that model code reads as a list of named steps.
import type { Backend, DType, HostArray, Tensor } from '../backend.ts';

/** Allocate a tensor and fill it from host data. */
export function tensorFrom(
  backend: Backend,
  shape: readonly number[],
  data: HostArray,
  label: string,
  dtype?: DType,
): Tensor {
  const kind: DType = dtype ?? (data instanceof Int32Array ? 'i32' : data instanceof Uint32Array ? 'u32' : 'f32');
  const t = backend.alloc(shape, kind, label);
  backend.upload(t, data);
  return t;
}

/** t := 0 with the catalog's `zero` (on WebGPU a clearBuffer: nothing is uploaded from the host). */
export function zeroTensor(backend: Backend, t: Tensor): void {
  if (t.dtype !== 'f32') throw new Error(`zeroTensor: ${t.label} is ${t.dtype}, expected f32`);
  backend.run('zero', { t: { x: t }, p: { n: t.size } });
}

/** dst := src (same number of elements). */
export function copyTensor(backend: Backend, src: Tensor, dst: Tensor): void {
  if (src.size !== dst.size)
    throw new Error(`copyTensor: ${src.label} has ${src.size} elements, ${dst.label} has ${dst.size}`);
  backend.run('axpby', { t: { x: src, y: dst }, p: { n: src.size, a: 1, b: 0 } });
}

/** Allocate a zero-filled f32 tensor. */
export function zeros(backend: Backend, shape: readonly number[], label: string): Tensor {
  const t = backend.alloc(shape, 'f32', label);
  zeroTensor(backend, t);
  return t;
}

/** Download an f32 tensor as a Float32Array (throws on other dtypes). */
export async function readF32(backend: Backend, t: Tensor): Promise<Float32Array> {
  const data = await backend.download(t);
  if (!(data instanceof Float32Array)) throw new Error(`readF32: ${t.label} is ${t.dtype}, expected f32`);
  return data;
}

/** Copies f32 tensor `t` into `out` (length t.size): in place where the backend can (Backend.downloadInto), else
 *  from a downloaded copy. */
export async function downloadInto(backend: Backend, t: Tensor, out: Float32Array): Promise<void> {
  if (backend.downloadInto) return backend.downloadInto(t, out);
  out.set(await readF32(backend, t));
}

/** Frees every tensor it was given, at once; model code collects per-call scratch here. `alloc` hands out
 *  scratch the caller writes in full before reading (Backend.alloc's `uninitialized`); `zeros` reads as zeros. */
export class TensorScope {
  private readonly tensors: Tensor[] = [];
  constructor(private readonly backend: Backend) {}
  alloc(shape: readonly number[], label: string, dtype: DType = 'f32'): Tensor {
    const t = this.backend.alloc(shape, dtype, label, true);
    this.tensors.push(t);
    return t;
  }
  from(shape: readonly number[], data: HostArray, label: string): Tensor {
    const t = tensorFrom(this.backend, shape, data, label);
    this.tensors.push(t);
    return t;
  }
  zeros(shape: readonly number[], label: string): Tensor {
    const t = zeros(this.backend, shape, label);
    this.tensors.push(t);
    return t;
  }
  freeAll(): void {
    for (const t of this.tensors) this.backend.free(t);
    this.tensors.length = 0;
  }
}
