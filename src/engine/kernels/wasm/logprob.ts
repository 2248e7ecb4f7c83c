// The vocabulary-chunked log-prob kernels on the WASM runtime: the algorithm of the TypeScript reference
// (kernels/cpu/logprob.ts, read it for the math), with each step in SIMD — the chunk logits [R,Vc] by the SIMD
// matmul into scratch, the online log-sum-exp / entropy update and the chunk's logit gradient by
// as/logprob.ts — so only per-row finishing touches run in TypeScript. [R,V] is never materialised.

import type { KernelArgs } from '../catalog.ts';
import type { CpuMemory } from '../cpu/index.ts';
import { checkTargets, chunkSize } from '../cpu/logprob.ts';
import type { PointerOf } from './kernels.ts';
import { WasmRuntime } from './runtime.ts';

type Args<K extends 'logprob' | 'logprobBackward'> = KernelArgs<K>;

export function wasmLogprob(rt: WasmRuntime, ptr: PointerOf, mem: CpuMemory, t: Args<'logprob'>['t'], p: Args<'logprob'>['p']): void {
  const { R, D, V } = p;
  checkTargets(mem.i32(t.target), R, V, 'logprob');
  const Vc = chunkSize(R, V);
  // scratch first (may grow the memory), then views
  rt.reserve('matmul.pack', WasmRuntime.packBytes(Vc, D));
  const logits = rt.reserve('logprob.logits', R * Vc * 4);
  const state = rt.reserve('logprob.state', 4 * R * 8); // m, s, t, picked: f64 [R] each
  const f64 = new Float64Array(rt.memory.buffer, state, 4 * R);
  f64.fill(-Infinity, 0, R);
  f64.fill(0, R, 4 * R);
  const [mOff, sOff, tOff, pickedOff] = [0, 1, 2, 3].map((k) => state + k * R * 8);
  for (let v0 = 0; v0 < V; v0 += Vc) {
    const n = Math.min(Vc, V - v0);
    rt.matmulAt(ptr(t.h), ptr(t.w) + v0 * D * 4, logits, 0, R, n, D, 0, 1, 1, 0);
    rt.exports.logprobChunk(logits, R, n, v0, ptr(t.target), mOff, sOff, tOff, pickedOff);
  }
  const target = mem.i32(t.target), lse = mem.f32(t.lse), entropy = mem.f32(t.entropy), logp = mem.f32(t.logp);
  const st = new Float64Array(rt.memory.buffer, state, 4 * R);
  for (let r = 0; r < R; r++) {
    const m = st[r], s = st[R + r], tt = st[2 * R + r], picked = st[3 * R + r];
    const l = m + Math.log(s);
    lse[r] = l;
    entropy[r] = l - tt / s;
    logp[r] = target[r] < 0 ? 0 : picked - l;
  }
}

export function wasmLogprobBackward(
  rt: WasmRuntime, ptr: PointerOf, mem: CpuMemory, t: Args<'logprobBackward'>['t'], p: Args<'logprobBackward'>['p'],
): void {
  const { R, D, V } = p;
  checkTargets(mem.i32(t.target), R, V, 'logprobBackward');
  const Vc = chunkSize(R, V);
  // three matmuls per chunk: logits (B = W chunk^T), dh (B = W chunk), dw (B = h)
  rt.reserve('matmul.pack', Math.max(WasmRuntime.packBytes(Vc, D), WasmRuntime.packBytes(D, Vc), WasmRuntime.packBytes(D, R)));
  const dl = rt.reserve('logprob.logits', R * Vc * 4);
  const h = ptr(t.h), w = ptr(t.w), dh = ptr(t.dh), dw = t.dw ? ptr(t.dw) : 0;
  for (let v0 = 0; v0 < V; v0 += Vc) {
    const n = Math.min(Vc, V - v0);
    const wChunk = w + v0 * D * 4;
    rt.matmulAt(h, wChunk, dl, 0, R, n, D, 0, 1, 1, 0); // logits, turned into their gradient next
    rt.exports.dlogitsChunk(dl, R, n, v0, ptr(t.target), ptr(t.lse), ptr(t.entropy), ptr(t.coef), ptr(t.entCoef));
    rt.matmulAt(dl, wChunk, dh, 0, R, D, n, 0, 0, 1, v0 === 0 ? 0 : 1); // dh (+)= dl @ W chunk
    if (dw) rt.matmulAt(dl, h, dw + v0 * D * 4, 0, n, D, R, 1, 0, 1, 1); // dW chunk += dl^T @ h
  }
  if (V === 0) mem.f32(t.dh).fill(0, 0, R * D);
}
