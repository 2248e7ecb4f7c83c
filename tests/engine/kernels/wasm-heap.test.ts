// The WebAssembly heap allocator behind WasmBackend: alignment, first-fit reuse, merging of free neighbours,
// giving the top back, growing the memory, and refusing past its limit.
import { describe, expect, it } from 'vitest';
import { WasmHeap } from '../../../src/engine/backends/wasm/heap.ts';

function heap(maxBytes = 1 << 22): WasmHeap {
  return new WasmHeap(new WebAssembly.Memory({ initial: 1, maximum: 64 }), 1000, maxBytes);
}

describe('WasmHeap', () => {
  it('aligns blocks to 64 bytes above the base and reuses a freed block first-fit', () => {
    const h = heap();
    const a = h.alloc(10),
      b = h.alloc(100),
      c = h.alloc(64);
    expect([a, b, c]).toEqual([1024, 1088, 1216]);
    h.release(b);
    expect(h.alloc(70)).toBe(1088); // rounds up to 128 bytes: exactly the hole b left
    expect(h.alloc(64)).toBe(1280); // no hole left: the block comes from the top
    expect(h.bytesInUse).toBe(64 + 128 + 64 + 64);
  });

  it('merges free neighbours and lowers the top when the last block is released', () => {
    const h = heap();
    const a = h.alloc(64),
      b = h.alloc(64),
      c = h.alloc(64);
    h.release(a);
    h.release(b); // merges with a: one 128-byte hole
    expect(h.alloc(128)).toBe(a);
    h.release(a);
    h.release(c); // c was the top block: the top falls back, and the hole below merges into it
    expect(h.alloc(192)).toBe(a);
    expect(() => h.release(12345)).toThrow(/not an allocated block/);
  });

  it('grows the memory on demand and refuses past maxBytes with needed vs free bytes', () => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 64 });
    const h = new WasmHeap(memory, 1024, 4 * 65536);
    const before = memory.buffer;
    h.alloc(100_000);
    expect(memory.buffer.byteLength).toBeGreaterThanOrEqual(1024 + 100_000);
    expect(memory.buffer).not.toBe(before);
    expect(() => h.alloc(200_000)).toThrow(/needs 200000 bytes but only \d+ of 262144 are free/);
  });
});
