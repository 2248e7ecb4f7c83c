// Child process of tests/engine/kernels/wasm-relaxed.test.ts: Node 20 validates relaxed-SIMD modules only with
// --experimental-wasm-relaxed-simd, which a vitest worker does not have. Runs the relaxed build's SIMD kernels on
// odd shapes and prints, as one JSON line, each kernel's error relative to the float64 reference.
import { WasmBackend } from '../../../src/engine/backends/wasm.ts';
import { Rng } from '../../../src/util/rng.ts';
import { randn, refAttention, refLogprob, refMatmul, refRmsnorm, relErr, silu } from './kernels-cpu-reference.ts';

const wasm = await WasmBackend.create({ variant: 'relaxed-simd' });
const rng = new Rng(5);
const errors: Record<string, number> = {};

for (const [M, N, K] of [
  [9, 13, 11],
  [37, 4, 64],
  [5, 19, 1],
]) {
  for (const transA of [0, 1] as const) {
    for (const transB of [0, 1] as const) {
      const a = randn(rng, M * K),
        b = randn(rng, K * N),
        c0 = randn(rng, M * N),
        bias = randn(rng, N);
      const t = { a: wasm.alloc([M * K]), b: wasm.alloc([K * N]), c: wasm.alloc([M, N]), bias: wasm.alloc([N]) };
      wasm.upload(t.a, a);
      wasm.upload(t.b, b);
      wasm.upload(t.c, c0);
      wasm.upload(t.bias, bias);
      wasm.run('matmul', { t, p: { M, N, K, transA, transB, alpha: 0.5, beta: 1.5 } });
      errors[`matmul ${M}x${N}x${K} ${transA}${transB}`] = relErr(
        wasm.f32(t.c),
        refMatmul(a, b, c0, bias, M, N, K, transA, transB, 0.5, 1.5),
      );
    }
  }
}

{
  const [B, T, S, H, Hkv, Dh] = [2, 7, 7, 4, 2, 5];
  const keyStart = Int32Array.from([0, 2]);
  const q = randn(rng, B * T * H * Dh),
    k = randn(rng, B * S * Hkv * Dh),
    v = randn(rng, B * S * Hkv * Dh);
  const t = {
    q: wasm.alloc([B, T, H, Dh]),
    k: wasm.alloc([B, S, Hkv, Dh]),
    v: wasm.alloc([B, S, Hkv, Dh]),
    keyStart: wasm.alloc([B], 'i32'),
    o: wasm.alloc([B, T, H, Dh]),
    lse: wasm.alloc([B, H, T]),
  };
  wasm.upload(t.q, q);
  wasm.upload(t.k, k);
  wasm.upload(t.v, v);
  wasm.upload(t.keyStart, keyStart);
  wasm.run('attention', { t, p: { B, T, S, past: 0, H, Hkv, Dh } });
  errors.attention = relErr(wasm.f32(t.o), refAttention(q, k, v, keyStart, B, T, S, 0, H, Hkv, Dh).o);
}

{
  const [R, D, V] = [70, 12, 4001];
  const h = randn(rng, R * D),
    w = randn(rng, V * D, 0.3);
  const target = Int32Array.from({ length: R }, (_, r) => (r * 613) % V);
  const t = {
    h: wasm.alloc([R, D]),
    w: wasm.alloc([V, D]),
    target: wasm.alloc([R], 'i32'),
    logp: wasm.alloc([R]),
    entropy: wasm.alloc([R]),
    lse: wasm.alloc([R]),
  };
  wasm.upload(t.h, h);
  wasm.upload(t.w, w);
  wasm.upload(t.target, target);
  wasm.run('logprob', { t, p: { R, D, V } });
  errors.logprob = relErr(wasm.f32(t.logp), refLogprob(h, w, target, R, D, V).logp);
}

{
  const [R, D] = [3, 11];
  const x = randn(rng, R * D),
    w = randn(rng, D),
    g = randn(rng, R * D, 3);
  const t = { x: wasm.alloc([R, D]), w: wasm.alloc([D]), y: wasm.alloc([R, D]), rstd: wasm.alloc([R]) };
  const sw = { g: wasm.alloc([R, D]), u: t.x, h: wasm.alloc([R, D]) };
  wasm.upload(t.x, x);
  wasm.upload(t.w, w);
  wasm.upload(sw.g, g);
  wasm.run('rmsnorm', { t, p: { R, D, eps: 1e-5 } });
  wasm.run('swiglu', { t: sw, p: { R, F: D } });
  errors.rmsnorm = relErr(wasm.f32(t.y), refRmsnorm(x, w, R, D, 1e-5).y);
  errors.swiglu = relErr(
    wasm.f32(sw.h),
    Array.from(g, (v, i) => silu(v) * x[i]),
  );
}

console.log(JSON.stringify({ variant: wasm.variant, wasmMatmuls: wasm.runtime.stats.wasmMatmuls, errors }));
