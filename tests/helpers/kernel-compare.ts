// Runs one catalog kernel on two backends with identical inputs and reports, per output tensor, the largest
// absolute difference relative to the reference output's largest magnitude (the tolerance measure the kernel
// tests use). Inputs are given as host arrays; tensors not listed as outputs are compared only if asked.
import type { Backend, DType, HostArray, Tensor } from '../../src/engine/backend.ts';
import type { KernelArgs, KernelName } from '../../src/engine/kernels/catalog.ts';

export interface TensorInput {
  shape: number[];
  data: HostArray;
  dtype?: DType;
}

export interface CompareResult {
  /** per output: max |test - ref| / max(|ref|, 1e-30) */
  err: Record<string, number>;
  ref: Record<string, HostArray>;
  test: Record<string, HostArray>;
}

function put(b: Backend, input: TensorInput, name: string): Tensor {
  const t = b.alloc(input.shape, input.dtype ?? 'f32', name);
  b.upload(t, input.data);
  return t;
}

export function relMaxErr(test: ArrayLike<number>, ref: ArrayLike<number>): number {
  if (test.length !== ref.length) throw new Error(`length ${test.length} vs ${ref.length}`);
  let maxRef = 0,
    maxDiff = 0;
  for (let i = 0; i < ref.length; i++) {
    maxRef = Math.max(maxRef, Math.abs(ref[i]));
    const d = Math.abs(test[i] - ref[i]);
    maxDiff = Number.isNaN(d) ? Infinity : Math.max(maxDiff, d);
  }
  return maxDiff / Math.max(maxRef, 1e-30);
}

export async function compareKernel<K extends KernelName>(
  ref: Backend,
  test: Backend,
  kernel: K,
  inputs: Record<string, TensorInput>,
  p: KernelArgs<K>['p'],
  outputs: string[],
): Promise<CompareResult> {
  const result: CompareResult = { err: {}, ref: {}, test: {} };
  const got: Record<string, HostArray>[] = [];
  for (const backend of [ref, test]) {
    const t: Record<string, Tensor> = {};
    for (const [name, input] of Object.entries(inputs)) t[name] = put(backend, input, name);
    backend.run(kernel, { t, p } as unknown as KernelArgs<K>);
    const out: Record<string, HostArray> = {};
    for (const name of outputs) out[name] = await backend.download(t[name]);
    for (const tensor of Object.values(t)) backend.free(tensor);
    got.push(out);
  }
  for (const name of outputs) {
    result.ref[name] = got[0][name];
    result.test[name] = got[1][name];
    result.err[name] = relMaxErr(got[1][name], got[0][name]);
  }
  return result;
}
