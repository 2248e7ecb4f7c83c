// The catalog's `sample` kernel shared by rows with the helper thread (threads.ts WasmJob.Sample): each row's draw
// depends only on its logits row, its stream and the call's parameters, so rows [s, e) run the TypeScript kernel
// (kernels/cpu/sample.ts, the WGSL sampler's exact twin) on views of the shared memory moved to row s, with the
// same bits as the whole call on one thread (each thread has its own module instance and scratch).
//   args [logits, rowOf, stream, out, mask (0: none), L, V, topK, seed, counter, temperature, topP], the last two
//   as the two 32-bit halves of their float64 (the sampler derives f32 constants from the exact values).
import { maskWords, sample } from '../../kernels/cpu/sample.ts';

const f64 = new Float64Array(1);
const halves = new Int32Array(f64.buffer);

/** The two 32-bit halves of a float64, for a job's integer arguments. */
export function f64Halves(x: number): [number, number] {
  f64[0] = x;
  return [halves[0], halves[1]];
}

function fromHalves(lo: number, hi: number): number {
  halves[0] = lo;
  halves[1] = hi;
  return f64[0];
}

/** Job arguments of a sample call (pointers into the memory). */
export function sampleJobArgs(
  ptrs: { logits: number; rowOf: number; stream: number; out: number; mask: number },
  p: { L: number; V: number; temperature: number; topK: number; topP: number; seed: number; counter: number },
): number[] {
  return [
    ptrs.logits,
    ptrs.rowOf,
    ptrs.stream,
    ptrs.out,
    ptrs.mask,
    p.L,
    p.V,
    p.topK,
    p.seed | 0,
    p.counter | 0,
    ...f64Halves(p.temperature),
    ...f64Halves(p.topP),
  ];
}

/** Runs rows [s, e) of a sample job on `memory`. */
export function runSampleRows(memory: WebAssembly.Memory, g: ArrayLike<number>, s: number, e: number): void {
  const [logits, rowOf, stream, out, mask, L, V, topK, seed, counter, tLo, tHi, pLo, pHi] = g as number[];
  const buf = memory.buffer; // read now: a grown memory's buffer is a new (longer) object
  const n = e - s;
  const words = maskWords(V);
  sample(
    new Float32Array(buf, logits, L * V),
    new Int32Array(buf, rowOf + s * 4, n),
    new Int32Array(buf, stream + s * 4, n),
    new Int32Array(buf, out + s * 16, 4 * n),
    n,
    L,
    V,
    { temperature: fromHalves(tLo, tHi), topK, topP: fromHalves(pLo, pHi), seed, counter },
    mask ? new Int32Array(buf, mask + s * words * 4, n * words) : null,
  );
}
