// Device memory for the WebGPU backend: how a tensor is laid out over one or more GPUBuffers, a pool of freed
// buffers for reuse, and the allocation ledger (live and peak bytes) that benchmarks read.
//
// A tensor larger than maxStorageBufferBindingSize (e.g. a 151,936 x 896 embedding on a 128 MiB device) cannot be
// bound to one kernel, so it is split along its first dimension into chunks of whole rows, each its own buffer.
// Kernels that meet such weights (matmul, lmHead, logprob*, embedding*) iterate over the chunks; elementwise
// kernels (adamw, axpby, sumSquares) run chunk by chunk.
import { bytesPerElement, type DType, type Tensor } from '../../backend.ts';

/** One buffer of a tensor: elements [firstElem, firstElem + elems), rows [firstRow, firstRow + rows). */
export interface Chunk {
  buffer: GPUBuffer;
  firstElem: number;
  elems: number;
  firstRow: number;
  rows: number;
}

export interface GpuStorage {
  tensor: Tensor;
  /** elements per row of the first dimension (1 for 0-d and 1-d tensors) */
  rowElems: number;
  /** rows per chunk (every chunk but the last holds exactly this many) */
  chunkRows: number;
  chunks: Chunk[];
  /** bytes charged to the ledger (sum of buffer sizes) */
  bytes: number;
}

export interface ChunkPlan {
  rowElems: number;
  rows: number;
  chunkRows: number;
  /** byte size of each buffer, in order */
  bufferBytes: number[];
}

/** Buffers are rounded up to this many bytes so they pool well and satisfy the 4-byte copy rules. */
const ALIGN = 256;

export function roundUp(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}

/** Decide how a tensor of `shape`/`dtype` is split so that each buffer fits `maxBinding` bytes. */
export function planChunks(
  shape: readonly number[],
  dtype: DType,
  size: number,
  maxBinding: number,
  label: string,
): ChunkPlan {
  const bpe = bytesPerElement(dtype);
  const rows = shape.length === 0 ? 1 : shape.length === 1 ? size : shape[0];
  const rowElems = rows === 0 ? 0 : size / rows;
  const totalBytes = size * bpe;
  if (totalBytes <= maxBinding) {
    const pooled = Math.max(ALIGN, roundUp(totalBytes, ALIGN));
    const bytes =
      pooled <= maxBinding
        ? pooled
        : roundUp(totalBytes, 16) <= maxBinding
          ? roundUp(totalBytes, 16)
          : roundUp(totalBytes, 4);
    return { rowElems, rows, chunkRows: Math.max(rows, 1), bufferBytes: [bytes] };
  }
  let chunkRows = Math.floor(maxBinding / (rowElems * bpe));
  // f16 chunks must hold an even number of halves so each buffer starts on a 4-byte word
  if (dtype === 'f16' && (chunkRows * rowElems) % 2 === 1) chunkRows -= 1;
  if (chunkRows < 1) {
    throw new Error(
      `WebGPU alloc '${label}' [${shape.join(', ')}] ${dtype}: one row needs ${rowElems * bpe} bytes but ` +
        `maxStorageBufferBindingSize is ${maxBinding} bytes, so it cannot be split into bindable chunks`,
    );
  }
  const bufferBytes: number[] = [];
  for (let r = 0; r < rows; r += chunkRows) {
    const n = Math.min(chunkRows, rows - r);
    const bytes = n * rowElems * bpe;
    // 16-byte multiples let kernels read the buffer as vec4 (when the limit allows it)
    bufferBytes.push(roundUp(bytes, 16) <= maxBinding ? roundUp(bytes, 16) : roundUp(bytes, 4));
  }
  return { rowElems, rows, chunkRows, bufferBytes };
}

/** Freed buffers by byte size, reused by later allocations of the same size (and for scratch space). */
export class BufferPool {
  private readonly free = new Map<number, GPUBuffer[]>();
  pooledBytes = 0;

  take(bytes: number): GPUBuffer | undefined {
    const list = this.free.get(bytes);
    const buffer = list?.pop();
    if (buffer) this.pooledBytes -= bytes;
    return buffer;
  }

  /** Takes `buffer` itself out of the pool; false when it is not there. */
  remove(buffer: GPUBuffer): boolean {
    const list = this.free.get(buffer.size);
    const i = list ? list.lastIndexOf(buffer) : -1;
    if (i < 0) return false;
    list!.splice(i, 1);
    this.pooledBytes -= buffer.size;
    return true;
  }

  give(buffer: GPUBuffer): void {
    const list = this.free.get(buffer.size) ?? [];
    list.push(buffer);
    this.free.set(buffer.size, list);
    this.pooledBytes += buffer.size;
  }

  /** Destroys every pooled buffer (call only when no submitted or recorded work can still use them). */
  drain(): void {
    for (const list of this.free.values()) for (const b of list) b.destroy();
    this.free.clear();
    this.pooledBytes = 0;
  }
}

export class LedgerCounter {
  liveBytes = 0;
  peakBytes = 0;
  liveTensors = 0;

  constructor(private readonly maxTotalBytes: number) {}

  /** Throws naming needed vs available bytes when `bytes` more would pass maxTotalBytes. */
  reserve(bytes: number, what: string): void {
    if (this.liveBytes + bytes > this.maxTotalBytes) {
      const available = Math.max(0, this.maxTotalBytes - this.liveBytes);
      throw new Error(
        `WebGPU alloc ${what}: needs ${bytes} bytes but only ${available} bytes are available ` +
          `(maxTotalBytes ${this.maxTotalBytes}, ${this.liveBytes} bytes live in ${this.liveTensors} tensors)`,
      );
    }
    this.liveBytes += bytes;
    if (this.liveBytes > this.peakBytes) this.peakBytes = this.liveBytes;
  }

  release(bytes: number): void {
    this.liveBytes -= bytes;
  }
}
