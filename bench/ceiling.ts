// What bounds the forward ratio against onnxruntime: the FLOPs of one scored token, and the fastest our
// WebAssembly 4x8 matmul kernel runs on this machine when nothing else limits it (operands packed once and
// resident in L2, best of many short timings). Used by bench/peer.ts to print each runtime's effective GFLOP/s
// next to this ceiling: a runtime that does the same FLOPs faster than the ceiling is using wider vectors than
// WebAssembly's 128-bit SIMD offers (onnxruntime's MLAS uses AVX2 / AVX-512 FMA where the CPU has them).
import type { ModelConfig } from '../src/engine/model/config.ts';
import { WasmRuntime } from '../src/engine/backends/wasm/runtime.ts';
import type { WasmVariant } from '../src/engine/backends/wasm/loader.ts';

/** FLOPs per token of a forward over sequences of T tokens (every position scored through the LM head):
 *  the projections, the MLP, causal attention (on average (T+1)/2 keys) and the LM head. */
export function forwardFlopsPerToken(cfg: ModelConfig, T: number): number {
  const {
    hiddenSize: D,
    intermediateSize: F,
    numHeads: H,
    numKvHeads: Hkv,
    headDim: Dh,
    numLayers: L,
    vocabSize: V,
  } = cfg;
  const projections = 2 * D * (H * Dh + 2 * Hkv * Dh) + 2 * H * Dh * D;
  const mlp = 3 * 2 * D * F;
  const attention = 4 * H * Dh * ((T + 1) / 2);
  return L * (projections + mlp + attention) + 2 * D * V;
}

/** Best GFLOP/s (by `clock`, seconds) of the packed 4x8 kernel alone: M = N = K = 256, packed once, in L2. */
export async function wasmKernelCeiling(variant: WasmVariant, clock: () => number): Promise<number> {
  const rt = await WasmRuntime.create(variant, 64 * 1024 * 1024);
  const n = 256;
  const a = rt.heap.alloc(n * n * 4),
    b = rt.heap.alloc(n * n * 4),
    c = rt.heap.alloc(n * n * 4);
  const ap = rt.heap.alloc(WasmRuntime.packABytes(n, n)),
    bp = rt.heap.alloc(WasmRuntime.packBytes(n, n));
  const fa = rt.f32At(a, n * n),
    fb = rt.f32At(b, n * n);
  for (let i = 0; i < n * n; i++) {
    fa[i] = ((i * 7919) % 1000) / 1000 - 0.5;
    fb[i] = ((i * 104729) % 1000) / 1000 - 0.5;
  }
  rt.exports.packA(a, ap, n, n, 0);
  rt.exports.packB(b, bp, n, n, 1);
  const call = () => rt.exports.matmul(ap, bp, c, 0, n, n, n, 1, 0);
  for (let i = 0; i < 20; i++) call(); // warm-up (tier-up to optimised code)
  let best = Infinity;
  for (let round = 0; round < 30; round++) {
    const t0 = clock();
    let calls = 0;
    do {
      call();
      calls++;
    } while (clock() - t0 < 0.01);
    best = Math.min(best, (clock() - t0) / calls);
  }
  return (2 * n * n * n) / best / 1e9;
}
