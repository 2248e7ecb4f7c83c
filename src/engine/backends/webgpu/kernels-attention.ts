// Host side of the attention kernels on WebGPU: qkvRope (RoPE of q and k and the KV-cache write of a fused
// layer), attention (one query per thread, split keys, flash-decoding, the flash forward for prefill) and its backward. Their uniforms and
// workgroup counts for a step come from step-plans.ts, which a replayed decode step shares.
import { grid1d } from '../../kernels/wgsl/common.ts';
import { ropeTurnTable } from '../../kernels/wgsl/rope.ts';
import { qkvRopeHalfProgram, qkvRopeProgram } from '../../kernels/wgsl/fused.ts';
import { attentionDecodeProgram } from '../../kernels/wgsl/attention-decode.ts';
import { attentionFlashProgram } from '../../kernels/wgsl/attention-flash.ts';
import {
  attentionDkDvTiledProgram,
  attentionDqTiledProgram,
  backwardBlocks,
} from '../../kernels/wgsl/attention-backward-tiled.ts';
import {
  attentionDeltaProgram,
  attentionDkProgram,
  attentionDqProgram,
  attentionDvProgram,
  attentionProgram,
} from '../../kernels/wgsl/attention.ts';
import { attentionMergeProgram, attentionPartialProgram } from '../../kernels/wgsl/attention-split.ts';
import { IDS, single, type KernelImpl } from './context.ts';
import { attentionPlan, AttentionVariant, checkHeads, qkvRopePlan } from './step-plans.ts';

/** The element type of a KV cache's k and v (f32, or f16 halves: both the same). */
function kvElem(
  kernel: string,
  k: { dtype: string; label: string },
  v: { dtype: string; label: string },
): 'f32' | 'f16' {
  if (k.dtype !== v.dtype || (k.dtype !== 'f32' && k.dtype !== 'f16'))
    throw new Error(
      `WebGPU ${kernel}: k (${k.label}, ${k.dtype}) and v (${v.label}, ${v.dtype}) must both be f32 or both f16`,
    );
  return k.dtype;
}

export const attentionKernels: { [K in 'qkvRope' | 'attention' | 'attentionBackward']: KernelImpl<K> } = {
  qkvRope(ctx, { t, p }) {
    const { B, T, H, Hkv, Dh, Sdst, theta } = p;
    const k = 'qkvRope';
    const [d] = qkvRopePlan(ctx.tuning.wg, p).list;
    const R = B * T;
    const qkv = single(ctx, k, 'qkv', t.qkv, R * (H + 2 * Hkv) * Dh);
    const pos = single(ctx, k, 'pos', t.pos, R, IDS);
    const freq = t.invFreq
      ? single(ctx, k, 'invFreq', t.invFreq, Dh / 2)
      : ctx.constant(`rope:${theta}:${Dh}`, () => ropeTurnTable(theta, Dh));
    const q = single(ctx, k, 'q', t.q, R * H * Dh);
    const kv = kvElem(k, t.k, t.v);
    const kc = single(ctx, k, 'k', t.k, B * Sdst * Hkv * Dh, [kv]);
    const vc = single(ctx, k, 'v', t.v, B * Sdst * Hkv * Dh, [kv]);
    ctx.runtime.dispatch(
      (kv === 'f16' ? qkvRopeHalfProgram : qkvRopeProgram)(t.invFreq ? 'tensor' : 'fixed', ctx.tuning.wg),
      kv === 'f16' ? [qkv, pos, freq, q, kc, vc, ctx.halfClamps] : [qkv, pos, freq, q, kc, vc],
      d.params,
      d.grid,
    );
  },

  attention(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const { B, T, S, H, Hkv, Dh } = p;
    const plan = attentionPlan(ctx.tuning, p);
    const k = 'attention';
    const q = single(ctx, k, 'q', t.q, B * T * H * Dh);
    const kv = kvElem(k, t.k, t.v); // f16: a KV cache in halves, widened as read
    if (kv === 'f16' && Dh % 2 !== 0) throw new Error(`WebGPU attention: an f16 KV cache needs an even Dh, got ${Dh}`);
    const kk = single(ctx, k, 'k', t.k, B * S * Hkv * Dh, [kv]);
    const v = single(ctx, k, 'v', t.v, B * S * Hkv * Dh, [kv]);
    const ks = single(ctx, k, 'keyStart', t.keyStart, B, IDS);
    const o = single(ctx, k, 'o', t.o, B * T * H * Dh);
    const lse = single(ctx, k, 'lse', t.lse, B * H * T);
    const [d0, d1] = plan.list;
    const G = H / Hkv;
    switch (plan.variant) {
      case AttentionVariant.Plain:
        ctx.runtime.dispatch(attentionProgram(Dh, wg, kv), [q, kk, v, ks, o, lse], d0.params, d0.grid);
        return;
      case AttentionVariant.Flash:
        ctx.runtime.dispatch(attentionDecodeProgram(Dh, G, true, kv), [q, kk, v, ks, o, lse], d0.params, d0.grid);
        return;
      case AttentionVariant.FlashPrefill:
        ctx.runtime.dispatch(attentionFlashProgram(Dh, kv), [q, kk, v, ks, o, lse], d0.params, d0.grid);
        return;
    }
    // split over key ranges: partials into scratch, then a merge
    const part = ctx.scratch(plan.partBytes, 'attention partials');
    const partial =
      plan.variant === AttentionVariant.FlashSplit
        ? attentionDecodeProgram(Dh, G, false, kv)
        : attentionPartialProgram(Dh, wg, kv);
    ctx.runtime.dispatch(partial, [q, kk, v, ks, part], d0.params, d0.grid);
    ctx.runtime.dispatch(attentionMergeProgram(Dh, wg), [part, o, lse], d1.params, d1.grid);
    ctx.releaseScratch(part);
  },

  attentionBackward(ctx, { t, p }) {
    const wg = ctx.tuning.wg;
    const { B, T, S, past, H, Hkv, Dh } = p;
    checkHeads('attentionBackward', H, Hkv);
    const k = 'attentionBackward';
    const qn = B * T * H * Dh,
      kvn = B * S * Hkv * Dh;
    const q = single(ctx, k, 'q', t.q, qn);
    const kk = single(ctx, k, 'k', t.k, kvn);
    const v = single(ctx, k, 'v', t.v, kvn);
    const ks = single(ctx, k, 'keyStart', t.keyStart, B, IDS);
    const o = single(ctx, k, 'o', t.o, qn);
    const lse = single(ctx, k, 'lse', t.lse, B * H * T);
    const dout = single(ctx, k, 'dout', t.dout, qn);
    const dq = single(ctx, k, 'dq', t.dq, qn);
    const dk = single(ctx, k, 'dk', t.dk, kvn);
    const dv = single(ctx, k, 'dv', t.dv, kvn);
    const params = { B, T, S, past, H, Hkv, scale: 1 / Math.sqrt(Dh) };
    const nq = B * T * H,
      nk = B * S * Hkv;
    // the tiled kernels cover training sequences (past = 0, S = T); queries behind a context take the per-thread ones
    if (ctx.tuning.tiledAttention && past === 0 && S === T) {
      // query and key rows staged in workgroup memory per block of 64 (attention-backward-tiled.ts); dk and dv in
      // one kernel. stats [2, B, H, T] = delta then a copy of lse: one binding for both keeps dk, dv at 8.
      const stats = ctx.scratch(2 * nq * 4, 'attention delta and lse');
      ctx.runtime.dispatch(attentionDeltaProgram(Dh, wg), [o, dout, stats], { ...params, n: nq }, grid1d(nq, wg));
      ctx.runtime.copy(lse, 0, stats, nq * 4, nq * 4);
      const nBlocks = backwardBlocks(T);
      const tp = { B, T, H, Hkv, scale: params.scale, nBlocks };
      const dqGroups = B * H * nBlocks,
        kvGroups = B * Hkv * nBlocks;
      const dqArgs = [q, kk, v, ks, stats, dout, dq];
      ctx.runtime.dispatch(attentionDqTiledProgram(Dh), dqArgs, { ...tp, groups: dqGroups }, grid1d(dqGroups, 1));
      const kvArgs = [q, kk, v, ks, stats, dout, dk, dv];
      ctx.runtime.dispatch(attentionDkDvTiledProgram(Dh), kvArgs, { ...tp, groups: kvGroups }, grid1d(kvGroups, 1));
      ctx.releaseScratch(stats);
      return;
    }
    const delta = ctx.scratch(nq * 4, 'attention delta');
    ctx.runtime.dispatch(attentionDeltaProgram(Dh, wg), [o, dout, delta], { ...params, n: nq }, grid1d(nq, wg));
    ctx.runtime.dispatch(
      attentionDqProgram(Dh, wg),
      [q, kk, v, ks, lse, dout, delta, dq],
      { ...params, n: nq },
      grid1d(nq, wg),
    );
    ctx.runtime.dispatch(
      attentionDkProgram(Dh, wg),
      [q, kk, v, ks, lse, dout, delta, dk],
      { ...params, n: nk },
      grid1d(nk, wg),
    );
    ctx.runtime.dispatch(attentionDvProgram(Dh, wg), [q, kk, ks, lse, dout, dv], { ...params, n: nk }, grid1d(nk, wg));
    ctx.releaseScratch(delta);
  },
};
