// A small first-fit allocator over one WebAssembly.Memory: tensors of the WasmBackend and the kernels' scratch
// live here, so WASM kernels read them in place (a pointer is a byte offset) and TypeScript kernels read the same
// bytes through Float32Array views. Blocks are 64-byte aligned; freed blocks merge with free neighbours; the
// memory grows (in 64 KiB pages) when no free block fits, up to maxBytes.
// Growing replaces memory.buffer: views made before a grow are detached, so make views after allocating.

const ALIGN = 64;
const PAGE = 65536;

interface Block {
  offset: number;
  bytes: number;
}

export class WasmHeap {
  /** free blocks below `top`, sorted by offset, never adjacent (merged) */
  private readonly freeBlocks: Block[] = [];
  private readonly used = new Map<number, number>();
  /** end of the highest block ever handed out (and not given back) */
  private top: number;

  constructor(
    readonly memory: WebAssembly.Memory,
    base: number,
    readonly maxBytes: number,
  ) {
    this.top = alignUp(base);
  }

  /** Bytes handed out and not yet released. */
  get bytesInUse(): number {
    let n = 0;
    for (const b of this.used.values()) n += b;
    return n;
  }

  /** Byte offset of a fresh block of at least `bytes` (contents unspecified). Throws RangeError when full. */
  alloc(bytes: number): number {
    const size = alignUp(Math.max(bytes, 1));
    for (let i = 0; i < this.freeBlocks.length; i++) {
      const blk = this.freeBlocks[i];
      if (blk.bytes < size) continue;
      const offset = blk.offset;
      if (blk.bytes === size) this.freeBlocks.splice(i, 1);
      else {
        blk.offset += size;
        blk.bytes -= size;
      }
      this.used.set(offset, size);
      return offset;
    }
    const offset = this.top;
    const end = offset + size;
    if (end > this.maxBytes) {
      throw new RangeError(
        `WebAssembly heap: needs ${size} bytes but only ${Math.max(0, this.maxBytes - offset)} of ${this.maxBytes} are free ` +
          `past the highest block (${this.bytesInUse} bytes in use)`,
      );
    }
    const have = this.memory.buffer.byteLength;
    if (end > have) this.memory.grow(Math.ceil((end - have) / PAGE));
    this.top = end;
    this.used.set(offset, size);
    return offset;
  }

  release(offset: number): void {
    const size = this.used.get(offset);
    if (size === undefined) throw new Error(`WebAssembly heap: offset ${offset} is not an allocated block`);
    this.used.delete(offset);
    // insert sorted, then merge with the neighbours
    let i = 0;
    while (i < this.freeBlocks.length && this.freeBlocks[i].offset < offset) i++;
    this.freeBlocks.splice(i, 0, { offset, bytes: size });
    if (i + 1 < this.freeBlocks.length && offset + size === this.freeBlocks[i + 1].offset) {
      this.freeBlocks[i].bytes += this.freeBlocks[i + 1].bytes;
      this.freeBlocks.splice(i + 1, 1);
    }
    if (i > 0 && this.freeBlocks[i - 1].offset + this.freeBlocks[i - 1].bytes === offset) {
      this.freeBlocks[i - 1].bytes += this.freeBlocks[i].bytes;
      this.freeBlocks.splice(i, 1);
      i--;
    }
    // a free block that reaches the top gives its bytes back to the top
    const last = this.freeBlocks[this.freeBlocks.length - 1];
    if (last && last.offset + last.bytes === this.top) {
      this.top = last.offset;
      this.freeBlocks.pop();
    }
  }
}

function alignUp(n: number): number {
  return Math.ceil(n / ALIGN) * ALIGN;
}
