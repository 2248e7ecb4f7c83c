// The KV cache's storage: f32, or f16 halves (half the memory and the bytes every decode step's attention reads).
// 'auto' stores halves where the frozen base is f16 on WebGPU (the engine's default on `shader-f16` adapters), f32
// elsewhere. Only inference reads the cache (generation's prefill and decode): scoring and the gradient attend over a
// pass's own f32 keys and values, so trained log-probs do not depend on this choice. The kernels that write the cache
// (qkvRope, copyRows) round each value to the nearest half, clamped to ±65,504 first and counted
// (kernels/wgsl/half-pack.ts, Backend.halfClamps); attention widens halves to f32 and sums in f32. The CPU backend
// keeps an f16 cache as f32 arrays of the rounded values, so it computes the same (the twin of WebGPU's).
import type { Backend, Tensor } from '../backend.ts';

export type KvCacheDtype = 'f32' | 'f16';
export type KvCacheChoice = 'auto' | KvCacheDtype;

/** The cache's storage for a choice on a backend whose frozen base is stored as `baseDtype`. */
export function resolveKvCacheDtype(choice: KvCacheChoice, be: Backend, baseDtype: string): KvCacheDtype {
  if (choice === 'f16' && be.kind === 'wasm')
    throw new Error('kvCacheDtype f16: the WASM backend keeps its KV cache in f32 (its attention kernel reads f32)');
  if (choice !== 'auto') return choice;
  return be.kind === 'webgpu' && be.supportsF16 && baseDtype === 'f16' ? 'f16' : 'f32';
}

/** Bytes of one cache element. */
export function kvCacheBytesPerElement(dtype: KvCacheDtype): number {
  return dtype === 'f16' ? 2 : 4;
}

/** A cache tensor [B, S, Hkv, Dh] of the given storage. Every row a pass attends over is written (prefill, qkvRope,
 *  copyRows, the compaction's gather) before it is read, so on the CPU backends the cache is handed out without a
 *  fill (the WASM backend's poison test, tests/engine/backends/wasm/uninitialized.test.ts, reads such memory as NaN
 *  and checks generation bit for bit); on WebGPU it is zero-filled, as its tiled kernels were validated on. */
export function allocKvCache(be: Backend, shape: readonly number[], dtype: KvCacheDtype, label: string): Tensor {
  const t = be.alloc(shape, dtype, label, true);
  if (be.kind !== 'webgpu') return t;
  try {
    be.run('zero', { t: { x: t }, p: { n: t.size } });
  } catch (err) {
    be.free(t);
    throw err;
  }
  return t;
}
