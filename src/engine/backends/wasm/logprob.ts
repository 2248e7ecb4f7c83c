// The vocabulary-chunked log-prob kernels on the WASM runtime: the algorithm of the TypeScript reference
// (kernels/cpu/logprob.ts, read it for the math), with each step in SIMD — the chunk logits [R,Vc] by the SIMD
// matmul into scratch, the online log-sum-exp / entropy update and the chunk's logit gradient by
// as/logprob.ts — so only per-row finishing touches run in TypeScript. [R,V] is never materialised.
// Cache plan: h is packed once per call (it is the A of every chunk's matmul); each chunk of W is packed into
// a block that stays in L2 (≤ 256 KiB), and the chunk's logits [R,Vc] (≤ 512 KiB) too, so the softmax pass reads
// them from L2. With few rows (R ≤ FEW_ROWS: decode, sampling) the matmul reads W in place instead.

import type { KernelArgs } from '../../kernels/catalog.ts';
import type { CpuMemory } from '../../kernels/cpu/index.ts';
import { checkTargets } from '../../kernels/cpu/logprob.ts';
import { type BFormat, FEW_ROWS, type PointerOf, WasmRuntime } from './runtime.ts';

type Args<K extends 'logprob' | 'logprobBackward'> = KernelArgs<K>;

/** Floats of one packed W chunk [Vc, D] (256 KiB) and of one chunk's logits [R, Vc] (512 KiB): both stay in L2. */
const W_CHUNK_FLOATS = 65536;
const LOGITS_CHUNK_FLOATS = 131072;

/** Vocabulary rows per chunk on the WASM backend: a multiple of 8 (the matmul's panel width) unless it is all of V. */
export function wasmChunkSize(R: number, D: number, V: number): number {
  const fit = Math.min(Math.floor(W_CHUNK_FLOATS / Math.max(D, 1)), Math.floor(LOGITS_CHUNK_FLOATS / Math.max(R, 1)));
  const Vc = Math.max(8, fit - (fit % 8));
  return Math.min(V, Vc);
}

/** logits[R, n] = h @ wChunk^T: h packed once (packedH) on the packed path, W read in place with few rows. */
function chunkLogits(
  rt: WasmRuntime,
  h: number,
  packedH: number,
  wChunk: number,
  logits: number,
  R: number,
  n: number,
  D: number,
  wf: BFormat,
): void {
  if (R <= FEW_ROWS) rt.matmulAt(h, wChunk, logits, 0, R, n, D, 0, 1, 1, 0, wf);
  else rt.matmulPackedA(packedH, wChunk, logits, 0, R, n, D, 1, 1, 0, wf);
}

/** `wf`: how W is stored (f32, or f16 / bf16 halves widened as they are read). */
export function wasmLogprob(
  rt: WasmRuntime,
  ptr: PointerOf,
  mem: CpuMemory,
  t: Args<'logprob'>['t'],
  p: Args<'logprob'>['p'],
  wf: BFormat = 'f32',
): void {
  const { R, D, V } = p;
  checkTargets(mem.i32(t.target), R, V, 'logprob');
  const Vc = wasmChunkSize(R, D, V);
  // scratch first (may grow the memory), then views
  rt.reserveMatmul(R, Vc, D);
  const packedH = rt.reserve('logprob.packedH', WasmRuntime.packABytes(R, D));
  const logits = rt.reserve('logprob.logits', R * Vc * 4);
  const state = rt.reserve('logprob.state', 4 * R * 8); // m, s, t, picked: f64 [R] each
  const f64 = new Float64Array(rt.memory.buffer, state, 4 * R);
  f64.fill(-Infinity, 0, R);
  f64.fill(0, R, 4 * R);
  const [mOff, sOff, tOff, pickedOff] = [0, 1, 2, 3].map((k) => state + k * R * 8);
  const h = ptr(t.h),
    w = ptr(t.w),
    target = ptr(t.target);
  if (R > FEW_ROWS) rt.exports.packA(h, packedH, R, D, 0);
  for (let v0 = 0; v0 < V; v0 += Vc) {
    const n = Math.min(Vc, V - v0);
    chunkLogits(rt, h, packedH, w + v0 * D * (wf === 'f32' ? 4 : 2), logits, R, n, D, wf);
    rt.exports.logprobChunk(logits, R, n, v0, target, mOff, sOff, tOff, pickedOff);
  }
  const targets = mem.i32(t.target),
    lse = mem.f32(t.lse),
    entropy = mem.f32(t.entropy),
    logp = mem.f32(t.logp);
  const st = new Float64Array(rt.memory.buffer, state, 4 * R);
  for (let r = 0; r < R; r++) {
    const m = st[r],
      s = st[R + r],
      tt = st[2 * R + r],
      picked = st[3 * R + r];
    const l = m + Math.log(s);
    lse[r] = l;
    entropy[r] = l - tt / s;
    logp[r] = targets[r] < 0 ? 0 : picked - l;
  }
}

export function wasmLogprobBackward(
  rt: WasmRuntime,
  ptr: PointerOf,
  mem: CpuMemory,
  t: Args<'logprobBackward'>['t'],
  p: Args<'logprobBackward'>['p'],
  wf: BFormat = 'f32',
): void {
  const { R, D, V } = p;
  checkTargets(mem.i32(t.target), R, V, 'logprobBackward');
  const Vc = wasmChunkSize(R, D, V);
  // three matmuls per chunk: logits (A = h, packed once; B = W chunk^T), dh (A = dl; B = W chunk),
  // dw (A = dl^T; B = h, packed once)
  rt.reserveMatmul(R, Vc, D);
  rt.reserveMatmul(R, D, Vc);
  rt.reserveMatmul(Vc, D, R);
  const packedH = rt.reserve('logprob.packedH', WasmRuntime.packABytes(R, D));
  const hAsB = rt.reserve('logprob.hAsB', WasmRuntime.packBytes(D, R));
  const packedDlT = rt.reserve('logprob.packedDlT', WasmRuntime.packABytes(Vc, R));
  const dl = rt.reserve('logprob.logits', R * Vc * 4);
  const h = ptr(t.h),
    w = ptr(t.w),
    dh = ptr(t.dh),
    dw = t.dw ? ptr(t.dw) : 0;
  if (R > FEW_ROWS) rt.exports.packA(h, packedH, R, D, 0);
  if (dw) rt.exports.packB(h, hAsB, D, R, 0);
  for (let v0 = 0; v0 < V; v0 += Vc) {
    const n = Math.min(Vc, V - v0);
    const wChunk = w + v0 * D * (wf === 'f32' ? 4 : 2);
    chunkLogits(rt, h, packedH, wChunk, dl, R, n, D, wf); // logits, turned into their gradient next
    rt.exports.dlogitsChunk(dl, R, n, v0, ptr(t.target), ptr(t.lse), ptr(t.entropy), ptr(t.coef), ptr(t.entCoef));
    rt.matmulAt(dl, wChunk, dh, 0, R, D, n, 0, 0, 1, v0 === 0 ? 0 : 1, wf); // dh (+)= dl @ W chunk
    if (dw) {
      // dW chunk += dl^T @ h
      rt.exports.packA(dl, packedDlT, n, R, 1);
      rt.matmulPacked(packedDlT, hAsB, dw + v0 * D * 4, 0, n, D, R, 1, 1);
    }
  }
  if (V === 0) mem.f32(t.dh).fill(0, 0, R * D);
}
