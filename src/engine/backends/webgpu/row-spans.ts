// Row-wise kernels over activations split across buffers: a [R, W] activation larger than
// maxStorageBufferBindingSize is stored as chunks of whole rows (memory.ts), and tensors of different widths are cut
// at different rows. rowSpans cuts [0, R) where any operand's buffer changes, so each span reads and writes one
// buffer per operand, at an element offset within it; the kernel then runs once per span.
import type { GpuStorage } from './memory.ts';

/** One operand of a row-wise kernel: its storage and elements per row (the kernel's row of R). */
export interface RowOperand {
  name: string;
  storage: GpuStorage;
  width: number;
}

/** Rows [r0, r1) of every operand, each inside one buffer: buffers[i] at element offsets[i] holds row r0. */
export interface RowSpan {
  r0: number;
  r1: number;
  buffers: GPUBuffer[];
  offsets: number[];
}

/** The spans of [0, R) over which every operand stays in one of its buffers; throws when a buffer boundary
 *  falls inside one of the kernel's rows. */
export function rowSpans(kernel: string, R: number, operands: readonly RowOperand[]): RowSpan[] {
  const cuts = new Set<number>([0, R]);
  for (const { name, storage, width } of operands) {
    for (const c of storage.chunks) {
      if (c.firstElem % width !== 0) {
        throw new Error(
          `WebGPU ${kernel}: tensor '${name}' (${storage.tensor.label}) is split inside a row of ${width} elements`,
        );
      }
      const r = c.firstElem / width;
      if (r > 0 && r < R) cuts.add(r);
    }
  }
  const rows = [...cuts].toSorted((a, b) => a - b);
  const spans: RowSpan[] = [];
  for (let i = 0; i + 1 < rows.length; i++) {
    const [r0, r1] = [rows[i], rows[i + 1]];
    const buffers: GPUBuffer[] = [];
    const offsets: number[] = [];
    for (const { storage, width } of operands) {
      const e = r0 * width;
      const c = storage.chunks.find((ch) => e >= ch.firstElem && e < ch.firstElem + ch.elems)!;
      buffers.push(c.buffer);
      offsets.push(e - c.firstElem);
    }
    spans.push({ r0, r1, buffers, offsets });
  }
  return spans;
}
