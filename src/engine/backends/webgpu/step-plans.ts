// The uniform parameters and workgroup counts of the kernels whose parameters move with every decode step (the
// cache row a step writes, the keys it attends over), as pure functions of the kernel's parameters. The kernels
// (kernels.ts) dispatch what these return, and a replayed decode step (recording.ts) rewrites the uniforms of its
// recorded dispatches from them without the kernels' host code: one function for both, so they cannot disagree.
import type { KernelArgs } from '../../kernels/catalog.ts';
import { samplerConstants } from '../../kernels/cpu/sample.ts';
import { grid1d } from '../../kernels/wgsl/common.ts';
import { flashBlocks } from '../../kernels/wgsl/attention-flash.ts';
import { decodeWorkgroupBytes } from '../../kernels/wgsl/attention-decode.ts';
import { SPEC_LIMITS } from './device-request.ts';
import type { KernelTuning } from './tuning.ts';

/** One dispatch: its uniform values and its workgroup counts. */
export interface DispatchPlan {
  params: Record<string, number>;
  grid: [number, number, number];
}

/** A kernel's dispatches for given parameters; `sig` names everything else they depend on (program variants,
 *  scratch sizes): a recorded call is rewritten only when the new plan has the recorded sig. */
export interface KernelPlan {
  sig: number;
  list: DispatchPlan[];
}

export function checkHeads(kernel: string, H: number, Hkv: number): void {
  if (Hkv < 1 || H % Hkv !== 0) throw new Error(`WebGPU ${kernel}: H=${H} must be a multiple of Hkv=${Hkv}`);
}

/** qkvRope: one thread per pair (f32 cache) or per word of two halves (f16 cache): Dh / 2 per head slot. */
export function qkvRopePlan(wg: number, p: KernelArgs<'qkvRope'>['p']): KernelPlan {
  const { B, T, H, Hkv, Dh, Sdst, dstRow0 } = p;
  if (Dh % 2 !== 0) throw new Error(`WebGPU qkvRope: head dim Dh=${Dh} must be even`);
  if (dstRow0 < 0 || dstRow0 + T > Sdst)
    throw new Error(`WebGPU qkvRope: rows [${dstRow0}, ${dstRow0 + T}) do not fit a destination of ${Sdst} rows`);
  const half = Dh / 2;
  const n = B * T * (H + 2 * Hkv) * half;
  return { sig: 0, list: [{ params: { n, H, Hkv, half, Dh, T, Sdst, dstRow0 }, grid: grid1d(n, wg) }] };
}

/** copyRows into an f32 destination, or (half) into an f16 one in pairs of halves. */
export function copyRowsPlan(wg: number, p: KernelArgs<'copyRows'>['p'], half: boolean): KernelPlan {
  const { B, T, W, Sdst, dstRow0 } = p;
  const dstB0 = p.dstB0 ?? 0;
  if (dstRow0 < 0 || dstRow0 + T > Sdst) {
    throw new Error(`WebGPU copyRows: rows [${dstRow0}, ${dstRow0 + T}) do not fit a destination of ${Sdst} rows`);
  }
  if (!Number.isInteger(dstB0) || dstB0 < 0)
    throw new Error(`WebGPU copyRows: dstB0 must be a non-negative integer, got ${dstB0}`);
  if (half && W % 2 !== 0) throw new Error(`WebGPU copyRows: an f16 destination needs an even row width W, got ${W}`);
  const n = half ? (B * T * W) / 2 : B * T * W;
  // the shader writes dst[(b·Sdst + dstRow0)·W + i]: the first destination sequence is folded into dstRow0
  return {
    sig: half ? 1 : 0,
    list: [{ params: { n, TW: T * W, W, Sdst, dstRow0: dstB0 * Sdst + dstRow0 }, grid: grid1d(n, wg) }],
  };
}

/** Which attention kernels run: one thread per query, keys split over threads (+ merge), flash-decoding in one
 *  pass, flash-decoding split over key ranges (+ merge), the flash-attention forward for many queries (K/V tiles
 *  in workgroup memory). */
export const AttentionVariant = { Plain: 0, Split: 1, Flash: 2, FlashSplit: 3, FlashPrefill: 4 } as const;
export type AttentionVariant = (typeof AttentionVariant)[keyof typeof AttentionVariant];

/** Queries per sequence from which the flash-attention forward replaces the split-key kernel too (below, a block
 *  of 64 queries would leave most threads idle while the split keeps more threads busy over a long cache). */
export const FLASH_MIN_QUERIES = 16;

export interface AttentionPlan extends KernelPlan {
  variant: AttentionVariant;
  /** bytes of the partials scratch (0 without a split) */
  partBytes: number;
}

export function attentionPlan(tuning: KernelTuning, p: KernelArgs<'attention'>['p']): AttentionPlan {
  const wg = tuning.wg;
  const { B, T, S, past, H, Hkv, Dh } = p;
  checkHeads('attention', H, Hkv);
  if (past + T > S) throw new Error(`WebGPU attention: past (${past}) + T (${T}) exceeds the cache length S = ${S}`);
  const n = B * T * H;
  const scale = 1 / Math.sqrt(Dh);
  const params = { n, B, T, S, past, H, Hkv, scale };
  const keys = past + T;
  const plan = (variant: AttentionVariant, nSplit: number, list: DispatchPlan[]): AttentionPlan => {
    const partBytes = nSplit > 1 ? n * nSplit * (Dh + 2) * 4 : 0;
    return { sig: variant + 8 * nSplit, variant, partBytes, list };
  };
  // decode (one query per sequence): a workgroup per (sequence, KV head, key split) sharing each K/V row between
  // the group's query heads; splits so that at least ~256 workgroups run, each over at least 256 keys
  // (large GQA groups, as in multi-query attention, would pass the spec's 16 KiB of workgroup memory: plain kernels)
  if (
    T === 1 &&
    tuning.flashDecode &&
    decodeWorkgroupBytes(Dh, H / Hkv) <= SPEC_LIMITS.maxComputeWorkgroupStorageSize
  ) {
    const nSplit = Math.max(1, Math.min(Math.ceil(256 / (B * Hkv)), Math.ceil(keys / 256)));
    const keysPerSplit = Math.ceil(keys / nSplit);
    const dec = { B, S, past, H, Hkv, scale, nSplit, keysPerSplit };
    if (nSplit === 1) return plan(AttentionVariant.Flash, 1, [{ params: dec, grid: [B * Hkv, 1, 1] }]);
    return plan(AttentionVariant.FlashSplit, nSplit, [
      { params: dec, grid: [B * Hkv * nSplit, 1, 1] },
      { params: { ...params, nSplit, keysPerSplit }, grid: grid1d(n, wg) },
    ]);
  }
  // few queries over a long cache (decode): split the keys over several threads per query
  const minKeys = tuning.attentionSplitKeys;
  const nSplit =
    minKeys > 0 && n < 2048 && keys > minKeys ? Math.min(Math.ceil(keys / minKeys), Math.ceil(4096 / n)) : 1;
  // prefill and scoring: a workgroup per (sequence, head, 64 queries) over K/V tiles in workgroup memory; a few
  // queries over a long cache keep the split keys (a block of 64 queries would leave most threads idle)
  if (T > 1 && tuning.flashAttention && (T >= FLASH_MIN_QUERIES || nSplit === 1)) {
    const nBlocks = flashBlocks(T);
    const flash = { B, T, S, past, H, Hkv, scale, nBlocks };
    return plan(AttentionVariant.FlashPrefill, 1, [{ params: flash, grid: grid1d(B * H * nBlocks, 1) }]);
  }
  if (nSplit > 1) {
    const split = { ...params, nSplit, keysPerSplit: Math.ceil(keys / nSplit) };
    return plan(AttentionVariant.Split, nSplit, [
      { params: { ...split, n: n * nSplit }, grid: grid1d(n * nSplit, wg) },
      { params: split, grid: grid1d(n, wg) },
    ]);
  }
  return plan(AttentionVariant.Plain, 1, [{ params, grid: grid1d(n, wg) }]);
}

/** sample: one workgroup per row; `counter` (the generation step) moves with every step. */
export function samplePlan(p: KernelArgs<'sample'>['p']): KernelPlan {
  if (p.R > 65535) throw new Error(`WebGPU sample: ${p.R} rows exceed one dispatch's 65535 workgroups`);
  const k = samplerConstants(p, p.V);
  const params = {
    R: p.R,
    L: p.L,
    V: p.V,
    greedy: k.greedy ? 1 : 0,
    invT: k.invT,
    topK: k.topK,
    topP: k.topP,
    seed: p.seed >>> 0,
    counter: p.counter >>> 0,
  };
  return { sig: 0, list: [{ params, grid: [p.R, 1, 1] }] };
}
