// The tiled matmul's autotune (backends/webgpu/autotune.ts): it times the three kernels on a product, keeps the
// fastest in the backend's tuning, and a second backend on the same adapter takes the cached choice without
// measuring. Tiny shape (SwiftShader); which tile wins here says nothing about a GPU.
import { describe, expect, it } from 'vitest';
import { autotuneTiles } from '../../../../src/engine/backends/webgpu/autotune.ts';
import { getTestDevice, testBackend } from '../../../helpers/webgpu.ts';

describe('matmul tile autotune', () => {
  it('keeps the fastest of tile 64, tile 32 and the register kernel; cached per adapter', async () => {
    const dawn = await getTestDevice();
    const gpu = testBackend(dawn);
    const shape = { M: 32, N: 32, K: 32 };
    const r = await autotuneTiles(gpu, shape, 2);
    expect(r.cached).toBe(false);
    expect(r.timings.map((t) => t.tiled)).toEqual([4, 2, 0]);
    const fastest = r.timings.reduce((x, y) => (y.ms < x.ms ? y : x));
    expect(r.best).toBe(fastest.tiled);
    expect(gpu.tuning.tiled).toBe(r.best);
    expect(gpu.ledger().liveTensors).toBe(0);
    const other = testBackend(dawn, { tiledMatmul: r.best === 4 ? 2 : 4 });
    const again = await autotuneTiles(other, shape, 2);
    expect(again.cached).toBe(true);
    expect(other.tuning.tiled).toBe(r.best);
    gpu.destroy();
    other.destroy();
  });
});
