// A short autotune of the tiled matmul's tile per adapter: times tile 64, tile 32 and the register-tiled kernel on a
// prefill-like product and keeps the fastest in the backend's tuning. Results are cached in memory per adapter
// description and shape, so a second backend on the same adapter (the page reloading a model) does not measure again;
// the page may persist the choice itself. Takes well under a second on a GPU.
import type { Backend } from '../../backend.ts';
import type { KernelTuning } from './tuning.ts';

export interface TileTiming {
  tiled: 0 | 2 | 4;
  ms: number;
}

const cache = new Map<string, { best: 0 | 2 | 4; timings: TileTiming[] }>();

/** Times matmul C[M,N] = A[M,K]·B[N,K]ᵀ with each tile (after one warm-up each), sets tuning.tiled to the fastest. */
export async function autotuneTiles(
  be: Backend & { tuning: KernelTuning; description: string },
  shape: { M: number; N: number; K: number } = { M: 1024, N: 1024, K: 1024 },
  reps = 5,
): Promise<{ best: 0 | 2 | 4; timings: TileTiming[]; cached: boolean }> {
  const { M, N, K } = shape;
  const key = `${be.description}|${M}x${N}x${K}`;
  const hit = cache.get(key);
  if (hit) {
    be.tuning.tiled = hit.best;
    return { ...hit, cached: true };
  }
  const a = be.alloc([M, K], 'f32', 'autotune.a');
  const b = be.alloc([N, K], 'f32', 'autotune.b');
  const c = be.alloc([M, N], 'f32', 'autotune.c');
  const timings: TileTiming[] = [];
  try {
    be.upload(a, new Float32Array(M * K).fill(0.5));
    be.upload(b, new Float32Array(N * K).fill(0.25));
    for (const tiled of [4, 2, 0] as const) {
      be.tuning.tiled = tiled;
      const run = () => be.run('matmul', { t: { a, b, c }, p: { M, N, K, transA: 0, transB: 1, alpha: 1, beta: 0 } });
      run();
      await be.sync();
      const t0 = performance.now();
      for (let i = 0; i < reps; i++) run();
      await be.sync();
      timings.push({ tiled, ms: (performance.now() - t0) / reps });
    }
  } finally {
    for (const t of [a, b, c]) be.free(t);
  }
  const best = timings.toSorted((x, y) => x.ms - y.ms)[0].tiled;
  be.tuning.tiled = best;
  cache.set(key, { best, timings });
  return { best, timings, cached: false };
}
