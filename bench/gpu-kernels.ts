// bench:gpu's timing of the kernels written for real GPUs against the kernels they replace, on a model's prefill
// shapes: the flash-attention forward vs one thread per query (tuning.flashAttention), rmsnorm forward + backward
// with workgroup reductions vs one thread per row (tuning.rowReduce), and the tiled matmul with padded tiles and vec4
// loads vs the unpadded scalar-load layout (tuning.paddedTiles). Each pair runs the same catalog kernel on the same
// tensors, warmed up (pipeline compiled) and then timed over `reps` runs between syncs.
import type { Tensor } from '../src/engine/backend.ts';
import type { WebGpuBackend } from '../src/engine/backends/webgpu.ts';
import type { KernelTuning } from '../src/engine/backends/webgpu/tuning.ts';
import type { ModelConfig } from '../src/engine/model/config.ts';

export interface KernelPair {
  kernel: string;
  shape: string;
  old_ms: number;
  new_ms: number;
  /** old_ms / new_ms */
  speedup: number;
}

async function timed(be: WebGpuBackend, run: () => void, reps: number): Promise<number> {
  run();
  await be.sync(); // warm-up (pipeline compile)
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) run();
  await be.sync();
  return (performance.now() - t0) / reps;
}

/** Times `run` with the tuning's `old` and `new` settings (restored afterwards). */
async function pair(
  be: WebGpuBackend,
  kernel: string,
  shape: string,
  oldTuning: Partial<KernelTuning>,
  newTuning: Partial<KernelTuning>,
  run: () => void,
  reps: number,
): Promise<KernelPair> {
  const saved = { ...be.tuning };
  Object.assign(be.tuning, oldTuning);
  const oldMs = await timed(be, run, reps);
  Object.assign(be.tuning, saved, newTuning);
  const newMs = await timed(be, run, reps);
  Object.assign(be.tuning, saved);
  return {
    kernel,
    shape,
    old_ms: +oldMs.toFixed(3),
    new_ms: +newMs.toFixed(3),
    speedup: Number((oldMs / newMs).toPrecision(3)),
  };
}

function filled(be: WebGpuBackend, shape: number[], label: string, value: (i: number) => number): Tensor {
  const t = be.alloc(shape, 'f32', label);
  const n = shape.reduce((a, b) => a * b, 1);
  be.upload(
    t,
    Float32Array.from({ length: n }, (_, i) => value(i)),
  );
  return t;
}

/** The three pairs on `T` tokens of one sequence (prefill / scoring) of model shape `cfg`. */
export async function timeNewKernels(
  be: WebGpuBackend,
  cfg: ModelConfig,
  T: number,
  reps: number,
): Promise<KernelPair[]> {
  const out: KernelPair[] = [];
  const wave = (i: number) => Math.sin(i * 0.37) * 0.5;
  const { numHeads: H, numKvHeads: Hkv, headDim: Dh, hiddenSize: D } = cfg;
  // attention: [1, T, H, Dh] queries over T keys
  {
    const q = filled(be, [1, T, H, Dh], 'bench.q', wave);
    const k = filled(be, [1, T, Hkv, Dh], 'bench.k', wave);
    const v = filled(be, [1, T, Hkv, Dh], 'bench.v', wave);
    const keyStart = be.alloc([1], 'i32', 'bench.keyStart');
    be.upload(keyStart, Int32Array.from([0]));
    const o = be.alloc([1, T, H, Dh], 'f32', 'bench.o');
    const lse = be.alloc([1, H, T], 'f32', 'bench.lse');
    const p = { B: 1, T, S: T, past: 0, H, Hkv, Dh };
    out.push(
      await pair(
        be,
        'attention forward (flash)',
        `T ${T}, ${H}/${Hkv} heads, Dh ${Dh}`,
        { flashAttention: false },
        { flashAttention: true },
        () => be.run('attention', { t: { q, k, v, keyStart, o, lse }, p }),
        reps,
      ),
    );
    for (const t of [q, k, v, keyStart, o, lse]) be.free(t);
  }
  // rmsnorm forward and backward: [T, D]
  {
    const x = filled(be, [T, D], 'bench.x', wave);
    const w = filled(be, [D], 'bench.w', (i) => 1 + wave(i));
    const y = be.alloc([T, D], 'f32', 'bench.y');
    const rstd = be.alloc([T], 'f32', 'bench.rstd');
    const dy = filled(be, [T, D], 'bench.dy', wave);
    const dx = be.alloc([T, D], 'f32', 'bench.dx');
    const dw = filled(be, [D], 'bench.dw', () => 0);
    out.push(
      await pair(
        be,
        'rmsnorm forward + backward (workgroup rows)',
        `${T} x ${D}`,
        { rowReduce: false },
        { rowReduce: true },
        () => {
          be.run('rmsnorm', { t: { x, w, y, rstd }, p: { R: T, D, eps: 1e-6 } });
          be.run('rmsnormBackward', { t: { x, w, rstd, dy, dx, dw }, p: { R: T, D, accumulate: 0 } });
        },
        reps,
      ),
    );
    for (const t of [x, w, y, rstd, dy, dx, dw]) be.free(t);
  }
  // the gate/up projection: [T, D] x [F, D]ᵀ
  {
    const F = cfg.intermediateSize;
    const a = filled(be, [T, D], 'bench.a', wave);
    const b = filled(be, [F, D], 'bench.b', wave);
    const c = be.alloc([T, F], 'f32', 'bench.c');
    const tiled = be.tuning.tiled || 4;
    out.push(
      await pair(
        be,
        `tiled matmul ${16 * tiled} (padded, vec4)`,
        `${T} x ${F} x ${D}`,
        { tiled, paddedTiles: false },
        { tiled, paddedTiles: true },
        () => be.run('matmul', { t: { a, b, c }, p: { M: T, N: F, K: D, transA: 0, transB: 1, alpha: 1, beta: 0 } }),
        reps,
      ),
    );
    for (const t of [a, b, c]) be.free(t);
  }
  return out;
}
