// Host arrays handed back and out again (model/host-floats.ts), and the kept-KV pool handing the arrays of the
// stores it lets go to them (policy/kept-kv-pool.ts).
import { describe, expect, it } from 'vitest';
import '../../helpers/wasm-build.ts';
import type { Backend } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../../src/engine/backends/wasm.ts';
import { downloadInto } from '../../../src/engine/model/device-ops.ts';
import { HostFloats } from '../../../src/engine/model/host-floats.ts';
import { KeptKv } from '../../../src/engine/model/kv-keep.ts';
import { KeptKvPool } from '../../../src/engine/policy/kept-kv-pool.ts';

describe('HostFloats', () => {
  it('hands out the smallest spare array that fits, else a new one with a quarter more room', () => {
    const floats = new HostFloats(1 << 20);
    const a = new Float32Array(100),
      b = new Float32Array(300),
      c = new Float32Array(200);
    floats.give([a, b, c]);
    expect(floats.take(150)).toBe(c);
    expect(floats.take(150)).toBe(b);
    const fresh = floats.take(150);
    expect(fresh).not.toBe(a);
    expect(fresh.length).toBe(188);
    expect(floats.take(100)).toBe(a);
  });

  it('lets the largest spare arrays go beyond its byte limit', () => {
    const floats = new HostFloats(1000); // 250 floats
    const small = new Float32Array(100),
      large = new Float32Array(200);
    floats.give([large, small]);
    expect(floats.spareBytes).toBe(400);
    expect(floats.take(150).length).toBe(188); // the 200-float array was let go
    expect(floats.take(50)).toBe(small);
  });
});

describe('downloadInto', () => {
  for (const [name, make] of [
    ['cpu', async () => new CpuBackend()],
    ['wasm', () => WasmBackend.create()],
  ] as const) {
    it(`${name}: copies an f32 tensor into a host array, in place or from a download`, async () => {
      const be: Backend = await make();
      const t = be.alloc([2, 3]);
      be.upload(t, Float32Array.from([1, 2, 3, 4, 5, 6]));
      const out = new Float32Array(8).fill(9);
      await downloadInto(be, t, out.subarray(1, 7));
      expect(Array.from(out)).toEqual([9, 1, 2, 3, 4, 5, 6, 9]);
      // a backend without the method: the copy of what download returns
      const plain: Backend = { ...be, kind: be.kind, download: (x) => be.download(x), downloadInto: undefined };
      const out2 = new Float32Array(6);
      await downloadInto(plain, t, out2);
      expect(Array.from(out2)).toEqual([1, 2, 3, 4, 5, 6]);
      await expect(be.downloadInto!(t, new Float32Array(5))).rejects.toThrow(/6 elements, the array 5/);
      be.free(t);
      be.destroy();
    });
  }
});

/** A store of one sequence of `n` tokens read from a 1-layer cache [1, n, 1, 4] filled with `fill`. */
async function store(be: CpuBackend, pool: KeptKvPool, n: number, fill: number): Promise<KeptKv> {
  const k = be.alloc([1, n, 1, 4]);
  const v = be.alloc([1, n, 1, 4]);
  be.upload(k, new Float32Array(4 * n).fill(fill));
  be.upload(v, new Float32Array(4 * n).fill(-fill));
  const kept = new KeptKv(1, 4, pool.hostFloats);
  await kept.take(be, [{ k, v }], [0], [{ tokens: Array.from({ length: n }, (_, i) => i), start: 0 }]);
  be.free(k);
  be.free(v);
  return kept;
}

describe('KeptKvPool', () => {
  it('a store it lets go hands its host array to the next store, which reads its own rows into it', async () => {
    const be = new CpuBackend();
    const pool = new KeptKvPool(1 << 20);
    const first = await store(be, pool, 5, 1);
    const array = first.sequences[0].k[0].buffer;
    pool.add('a', first);
    pool.clear();
    expect(first.sequences).toEqual([]);
    expect(pool.hostFloats.spareBytes).toBeGreaterThan(0);
    const second = await store(be, pool, 4, 2);
    expect(second.sequences[0].k[0].buffer).toBe(array);
    expect(Array.from(second.sequences[0].k[0].subarray(0, 16))).toEqual(Array.from({ length: 16 }, () => 2));
    expect(Array.from(second.sequences[0].v[0].subarray(0, 16))).toEqual(Array.from({ length: 16 }, () => -2));
    expect(pool.hostFloats.spareBytes).toBe(0);
  });

  it('stores let go for the budget or after being read hand their arrays back too', async () => {
    const be = new CpuBackend();
    const pool = new KeptKvPool(300); // one store of 5 tokens (k and v, 4 floats a row: 160 bytes), not two
    pool.add('a', await store(be, pool, 5, 1));
    pool.add('a', await store(be, pool, 5, 3)); // over the budget: the first is let go
    expect(pool.hostFloats.spareBytes).toBeGreaterThan(0);
    const reused = await store(be, pool, 5, 4);
    expect(pool.hostFloats.spareBytes).toBe(0);
    pool.add('a', reused);
    expect(pool.best('a', [[0, 1, 2, 3, 4, 9]])).toBe(reused);
    pool.retireRead();
    expect(reused.sequences).toEqual([]);
    expect(pool.hostFloats.spareBytes).toBeGreaterThan(0);
  });
});
