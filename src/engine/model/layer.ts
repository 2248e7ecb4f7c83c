// One decoder layer (pre-norm attention + SwiGLU MLP), forward and backward, as a flat list of catalog kernels.
//   h1  = x + o_proj(attention(rope(q_proj(n1)), rope(k_proj(n1)), v_proj(n1)))   n1 = rmsnorm(x)
//   out = h1 + down_proj(silu(gate_proj(n2)) * up_proj(n2))                       n2 = rmsnorm(h1)
// Inference with a fused copy of the weights (lora-merge.ts) runs layerForwardFused instead: 9 kernels per layer.
// The backward can recompute the layer's internals from its saved input (per-layer rematerialisation), so a
// long training pass stores only one [R, D] tensor per layer; short ones may keep every layer's internals.
import type { Backend, Tensor } from '../backend.ts';
import type { ModelConfig } from './config.ts';
import type { LayerParams } from './params.ts';
import type { LoraAdapter, LoraLayer, LoraTarget } from './lora.ts';
import { linearBackward, linearForward, type LinearParams, type LoraUse } from './linear.ts';
import type { TensorScope } from './device-ops.ts';
import { ropeInverseFrequencies } from '../io/hf-config.ts';
import type { FusedLayer } from './lora-merge.ts';
import type { MergedLayer } from './lora-train-merge.ts';

/** Scratch tensors for one layer pass over B sequences of T rows (R = B·T). */
export class LayerWorkspace {
  readonly R: number;
  readonly xn1: Tensor; // [R, D]
  readonly rstd1: Tensor; // [R]
  readonly q: Tensor; // [B, T, H, Dh]
  readonly k: Tensor; // [B, T, Hkv, Dh]
  readonly v: Tensor; // [B, T, Hkv, Dh]
  readonly o: Tensor; // [B, T, H, Dh]
  readonly lse: Tensor; // [B, H, T]
  readonly h1: Tensor; // [R, D]
  readonly xn2: Tensor; // [R, D]
  readonly rstd2: Tensor; // [R]
  readonly g: Tensor; // [R, F]
  readonly u: Tensor; // [R, F]
  readonly hmid: Tensor; // [R, F]
  /** x A^T per LoRA target, [R, r] */
  readonly xa = new Map<LoraTarget, Tensor>();
  constructor(
    scope: TensorScope,
    cfg: ModelConfig,
    readonly B: number,
    readonly T: number,
    lora: LoraAdapter | null,
  ) {
    const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: Dh } = cfg;
    const R = (this.R = B * T);
    this.xn1 = scope.alloc([R, D], 'ws.xn1');
    this.rstd1 = scope.alloc([R], 'ws.rstd1');
    this.q = scope.alloc([B, T, H, Dh], 'ws.q');
    this.k = scope.alloc([B, T, Hkv, Dh], 'ws.k');
    this.v = scope.alloc([B, T, Hkv, Dh], 'ws.v');
    this.o = scope.alloc([B, T, H, Dh], 'ws.o');
    this.lse = scope.alloc([B, H, T], 'ws.lse');
    this.h1 = scope.alloc([R, D], 'ws.h1');
    this.xn2 = scope.alloc([R, D], 'ws.xn2');
    this.rstd2 = scope.alloc([R], 'ws.rstd2');
    this.g = scope.alloc([R, F], 'ws.g');
    this.u = scope.alloc([R, F], 'ws.u');
    this.hmid = scope.alloc([R, F], 'ws.hmid');
    if (lora) for (const t of lora.targets) this.xa.set(t, scope.alloc([R, lora.rank], `ws.xa.${t}`));
  }
}

/** Floats one LayerWorkspace holds (to decide whether every layer's internals fit in memory at once). */
export function layerWorkspaceFloats(cfg: ModelConfig, R: number, loraRank: number, loraTargets: number): number {
  const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: Dh } = cfg;
  return R * (3 * D + 2 + 2 * H * Dh + 2 * Hkv * Dh + H + 3 * F + loraRank * loraTargets);
}

/** Gradient scratch for one layer's backward, shared by all layers of a pass. */
export class LayerGradScratch {
  readonly out: Tensor; // [R, D] recomputed layer output (written by the recompute, not read)
  readonly dHmid: Tensor; // [R, F]
  readonly dg: Tensor; // [R, F]
  readonly du: Tensor; // [R, F]
  readonly dXn: Tensor; // [R, D]
  readonly dO: Tensor; // [R, H*Dh]
  readonly dq: Tensor; // [R, H*Dh]
  readonly dk: Tensor; // [R, Hkv*Dh]
  readonly dv: Tensor; // [R, Hkv*Dh]
  readonly dyB: Tensor | null; // [R, r]

  constructor(scope: TensorScope, cfg: ModelConfig, R: number, lora: LoraAdapter | null) {
    const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: Dh } = cfg;
    this.out = scope.alloc([R, D], 'ws.out');
    this.dHmid = scope.alloc([R, F], 'ws.dHmid');
    this.dg = scope.alloc([R, F], 'ws.dg');
    this.du = scope.alloc([R, F], 'ws.du');
    this.dXn = scope.alloc([R, D], 'ws.dXn');
    this.dO = scope.alloc([R, H * Dh], 'ws.dO');
    this.dq = scope.alloc([R, H * Dh], 'ws.dq');
    this.dk = scope.alloc([R, Hkv * Dh], 'ws.dk');
    this.dv = scope.alloc([R, Hkv * Dh], 'ws.dv');
    this.dyB = lora ? scope.alloc([R, lora.rank], 'ws.dyB') : null;
  }
}

/** Where attention reads keys and values from. */
export type AttentionSource =
  /** the workspace's own k, v (training, scoring and prefill: past = 0, S = T) */
  | { kind: 'self'; onKV?: (k: Tensor, v: Tensor) => void }
  /** a KV cache [B, S, Hkv, Dh]: this pass's k, v are written at rows [past, past+T) first */
  | { kind: 'cache'; k: Tensor; v: Tensor; past: number; S: number };

export interface LayerContext {
  be: Backend;
  cfg: ModelConfig;
  /** [R] i32 RoPE positions */
  pos: Tensor;
  /** [B] i32 first visible key row per sequence */
  keyStart: Tensor;
  /** [Dh/2] RoPE inverse frequencies when the config scales RoPE (llama3, linear); absent: theta^(-2i/Dh) */
  invFreq?: Tensor;
}

/** The invFreq tensor a scaled-RoPE config needs (undefined for plain RoPE). */
export function ropeFrequencies(scope: TensorScope, cfg: ModelConfig): Tensor | undefined {
  if (!cfg.ropeScaling) return undefined;
  return scope.from([cfg.headDim / 2], Float32Array.from(ropeInverseFrequencies(cfg)), 'rope.invFreq');
}

function ropeArgs(ctx: LayerContext, x: Tensor): { x: Tensor; pos: Tensor; invFreq?: Tensor } {
  return ctx.invFreq ? { x, pos: ctx.pos, invFreq: ctx.invFreq } : { x, pos: ctx.pos };
}

type Proj = 'q' | 'k' | 'v' | 'o' | 'gate' | 'up' | 'down';

function projParams(cfg: ModelConfig, layer: LayerParams, proj: Proj): LinearParams {
  const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: Dh } = cfg;
  switch (proj) {
    case 'q':
      return { w: layer.q, bias: layer.qBias, nIn: D, nOut: H * Dh };
    case 'k':
      return { w: layer.k, bias: layer.kBias, nIn: D, nOut: Hkv * Dh };
    case 'v':
      return { w: layer.v, bias: layer.vBias, nIn: D, nOut: Hkv * Dh };
    case 'o':
      return { w: layer.o, bias: null, nIn: H * Dh, nOut: D };
    case 'gate':
      return { w: layer.gate, bias: null, nIn: D, nOut: F };
    case 'up':
      return { w: layer.up, bias: null, nIn: D, nOut: F };
    case 'down':
      return { w: layer.down, bias: null, nIn: F, nOut: D };
  }
}

function loraUse(lora: LayerLora | null, ws: LayerWorkspace, proj: Proj): LoraUse | null {
  const pair = lora?.layer[proj];
  if (!lora || !pair) return null;
  const merged = lora.merged?.[proj] ?? null;
  return { pair, scale: lora.adapter.scale, rank: lora.adapter.rank, xa: ws.xa.get(proj)!, merged };
}

export interface LayerLora {
  adapter: LoraAdapter;
  layer: LoraLayer;
  /** this layer's W + s·B·A per target when the pass merged them (lora-train-merge.ts) */
  merged?: MergedLayer;
}

/** out[R, D] = layer(x[R, D]); leaves every internal the backward needs in `ws`. */
export function layerForward(
  ctx: LayerContext,
  layer: LayerParams,
  lora: LayerLora | null,
  x: Tensor,
  out: Tensor,
  ws: LayerWorkspace,
  attn: AttentionSource,
): void {
  const { be, cfg } = ctx;
  const { hiddenSize: D, numHeads: H, numKvHeads: Hkv, headDim: Dh } = cfg;
  const { B, T, R } = ws;
  const lin = (proj: Proj, input: Tensor, y: Tensor) =>
    linearForward(be, input, projParams(cfg, layer, proj), y, R, loraUse(lora, ws, proj));

  be.run('rmsnorm', { t: { x, w: layer.inputNorm, y: ws.xn1, rstd: ws.rstd1 }, p: { R, D, eps: cfg.rmsNormEps } });
  lin('q', ws.xn1, ws.q);
  lin('k', ws.xn1, ws.k);
  lin('v', ws.xn1, ws.v);
  be.run('rope', { t: ropeArgs(ctx, ws.q), p: { R, nHeads: H, Dh, theta: cfg.ropeTheta, inverse: 0 } });
  be.run('rope', { t: ropeArgs(ctx, ws.k), p: { R, nHeads: Hkv, Dh, theta: cfg.ropeTheta, inverse: 0 } });
  if (attn.kind === 'self') {
    attn.onKV?.(ws.k, ws.v);
    be.run('attention', {
      t: { q: ws.q, k: ws.k, v: ws.v, keyStart: ctx.keyStart, o: ws.o, lse: ws.lse },
      p: { B, T, S: T, past: 0, H, Hkv, Dh },
    });
  } else {
    const W = Hkv * Dh;
    be.run('copyRows', { t: { src: ws.k, dst: attn.k }, p: { B, T, W, Sdst: attn.S, dstRow0: attn.past } });
    be.run('copyRows', { t: { src: ws.v, dst: attn.v }, p: { B, T, W, Sdst: attn.S, dstRow0: attn.past } });
    be.run('attention', {
      t: { q: ws.q, k: attn.k, v: attn.v, keyStart: ctx.keyStart, o: ws.o, lse: ws.lse },
      p: { B, T, S: attn.S, past: attn.past, H, Hkv, Dh },
    });
  }
  lin('o', ws.o, ws.h1);
  be.run('axpby', { t: { x, y: ws.h1 }, p: { n: R * D, a: 1, b: 1 } }); // h1 = x + attn
  be.run('rmsnorm', {
    t: { x: ws.h1, w: layer.postNorm, y: ws.xn2, rstd: ws.rstd2 },
    p: { R, D, eps: cfg.rmsNormEps },
  });
  lin('gate', ws.xn2, ws.g);
  lin('up', ws.xn2, ws.u);
  be.run('swiglu', { t: { g: ws.g, u: ws.u, h: ws.hmid }, p: { R, F: cfg.intermediateSize } });
  lin('down', ws.hmid, out);
  be.run('axpby', { t: { x: ws.h1, y: out }, p: { n: R * D, a: 1, b: 1 } }); // out = h1 + mlp
}

/** Scratch of the fused inference layer over B sequences of T rows (R = B·T). */
export class FusedWorkspace {
  readonly R: number;
  readonly xn1: Tensor; // [R, D]
  readonly rstd1: Tensor; // [R]
  readonly qkv: Tensor; // [R, (H+2Hkv)·Dh]
  readonly q: Tensor; // [B, T, H, Dh]
  readonly k: Tensor; // [B, T, Hkv, Dh] (attention over the pass's own keys)
  readonly v: Tensor; // [B, T, Hkv, Dh]
  readonly o: Tensor; // [B, T, H, Dh]
  readonly lse: Tensor; // [B, H, T]
  readonly xn2: Tensor; // [R, D]
  readonly rstd2: Tensor; // [R]
  readonly gu: Tensor; // [R, 2F]
  readonly hmid: Tensor; // [R, F]
  constructor(
    scope: TensorScope,
    cfg: ModelConfig,
    readonly B: number,
    readonly T: number,
  ) {
    const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: Dh } = cfg;
    const R = (this.R = B * T);
    this.xn1 = scope.alloc([R, D], 'fws.xn1');
    this.rstd1 = scope.alloc([R], 'fws.rstd1');
    this.qkv = scope.alloc([R, (H + 2 * Hkv) * Dh], 'fws.qkv');
    this.q = scope.alloc([B, T, H, Dh], 'fws.q');
    this.k = scope.alloc([B, T, Hkv, Dh], 'fws.k');
    this.v = scope.alloc([B, T, Hkv, Dh], 'fws.v');
    this.o = scope.alloc([B, T, H, Dh], 'fws.o');
    this.lse = scope.alloc([B, H, T], 'fws.lse');
    this.xn2 = scope.alloc([R, D], 'fws.xn2');
    this.rstd2 = scope.alloc([R], 'fws.rstd2');
    this.gu = scope.alloc([R, 2 * F], 'fws.gu');
    this.hmid = scope.alloc([R, F], 'fws.hmid');
  }
}

/** Floats one FusedWorkspace holds over R = B·T rows. */
export function fusedWorkspaceFloats(cfg: ModelConfig, R: number): number {
  const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: Dh } = cfg;
  return R * (2 * D + 2 + (H + 2 * Hkv) * Dh + 2 * H * Dh + 2 * Hkv * Dh + H + 3 * F);
}

/** x[R, D] := layer(x) in place, with a fused layer (inference only: nothing is kept for a backward). 9 kernels:
 *  rmsnorm, one matmul for q,k,v (+ bias), qkvRope (RoPE and the k, v writes), attention, o_proj accumulated into
 *  x (the residual add as the matmul's beta = 1), rmsnorm, one matmul for gate,up, swigluPacked, down_proj
 *  accumulated into x. The same arithmetic as layerForward on the merged weights, except the residual adds: a
 *  backend that accumulates a matmul in higher precision (the CPU backend, in float64) adds x before rounding once
 *  where layerForward rounds the matmul and then the add, so results may differ in the last bit there (on WebGPU the
 *  f32 sum is rounded first, as before). A greedy or sampled token flips only at an exact near-tie. */
export function layerForwardFused(
  ctx: LayerContext,
  layer: FusedLayer,
  x: Tensor,
  ws: FusedWorkspace,
  attn: AttentionSource,
): void {
  const { be, cfg } = ctx;
  const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: Dh } = cfg;
  const { B, T, R } = ws;
  const nQkv = (H + 2 * Hkv) * Dh;
  const mm = (a: Tensor, w: Tensor, c: Tensor, N: number, K: number, beta: 0 | 1, bias: Tensor | null = null) =>
    be.run('matmul', {
      t: bias ? { a, b: w, c, bias } : { a, b: w, c },
      p: { M: R, N, K, transA: 0, transB: 1, alpha: 1, beta },
    });
  be.run('rmsnorm', { t: { x, w: layer.inputNorm, y: ws.xn1, rstd: ws.rstd1 }, p: { R, D, eps: cfg.rmsNormEps } });
  mm(ws.xn1, layer.qkv, ws.qkv, nQkv, D, 0, layer.qkvBias);
  const kv = attn.kind === 'cache' ? attn : { k: ws.k, v: ws.v, past: 0, S: T };
  be.run('qkvRope', {
    t: { qkv: ws.qkv, pos: ctx.pos, ...(ctx.invFreq ? { invFreq: ctx.invFreq } : {}), q: ws.q, k: kv.k, v: kv.v },
    p: { B, T, H, Hkv, Dh, Sdst: kv.S, dstRow0: kv.past, theta: cfg.ropeTheta },
  });
  if (attn.kind === 'self') attn.onKV?.(ws.k, ws.v);
  be.run('attention', {
    t: { q: ws.q, k: kv.k, v: kv.v, keyStart: ctx.keyStart, o: ws.o, lse: ws.lse },
    p: { B, T, S: kv.S, past: kv.past, H, Hkv, Dh },
  });
  mm(ws.o, layer.o, x, D, H * Dh, 1); // x = x + o_proj(attn)
  be.run('rmsnorm', { t: { x, w: layer.postNorm, y: ws.xn2, rstd: ws.rstd2 }, p: { R, D, eps: cfg.rmsNormEps } });
  mm(ws.xn2, layer.gateUp, ws.gu, 2 * F, D, 0);
  be.run('swigluPacked', { t: { gu: ws.gu, h: ws.hmid }, p: { R, F } });
  mm(ws.hmid, layer.down, x, D, F, 1); // x = x + down_proj(mlp)
}

/** Where a layer's backward reads keys and values from, as its forward's AttentionSource. */
export type BackwardAttention =
  /** the workspace's own k, v (past = 0); with `extra`, dL/dk and dL/dv [B, T, Hkv, Dh] (after RoPE) that other
   *  queries (a shared context's rows, prefix-train.ts) add to those this pass's queries give */
  | { kind: 'self'; extra?: { dk: Tensor; dv: Tensor } }
  /** a KV cache [B, S, Hkv, Dh] whose rows [0, past) hold a context's keys and values: the attention backward writes
   *  dL/dk, dL/dv of every cache row into dk, dv [B, S, Hkv, Dh], hands them to `onContext` (which reads rows
   *  [0, past)), and the pass's own rows [past, past+T) (gathered by `ownRows` [B·T]) go on through the layer */
  | {
      kind: 'cache';
      k: Tensor;
      v: Tensor;
      past: number;
      S: number;
      dk: Tensor;
      dv: Tensor;
      ownRows: Tensor;
      onContext: (dk: Tensor, dv: Tensor) => void;
    };

export interface LayerGradTargets {
  /** full fine-tuning: gradient tensors of this layer's weights (accumulated) */
  full: LayerParams | null;
  /** LoRA: gradient tensors of this layer's A, B (accumulated) */
  lora: LoraLayer | null;
  /** whether dres is turned into dL/dx of the layer's input; false for the first layer when nothing below it
   *  trains (LoRA: the embedding is frozen), which skips its q, k, v input products and its input norm's backward */
  input: boolean;
}

/** Given dres = dL/d(out) [R, D] and the saved input x, accumulate parameter gradients and overwrite
 *  dres with dL/dx. With `recompute`, first recomputes the layer's internals into `ws` (attention as `attn` says);
 *  without, `ws` must still hold this layer's forward internals. */
export function layerBackward(
  ctx: LayerContext,
  layer: LayerParams,
  lora: LayerLora | null,
  grads: LayerGradTargets,
  x: Tensor,
  dres: Tensor,
  ws: LayerWorkspace,
  gws: LayerGradScratch,
  recompute: boolean,
  attn: BackwardAttention = { kind: 'self' },
): void {
  const { be, cfg } = ctx;
  const { hiddenSize: D, numHeads: H, numKvHeads: Hkv, headDim: Dh } = cfg;
  const { B, T, R } = ws;
  const W = Hkv * Dh;
  if (recompute) layerForward(ctx, layer, lora, x, gws.out, ws, attn.kind === 'self' ? { kind: 'self' } : attn);

  const full = grads.full;
  const back = (proj: Proj, input: Tensor, dy: Tensor, dx: Tensor | null, accumulateDx: boolean) => {
    const use = loraUse(lora, ws, proj);
    const bias = proj === 'q' ? full?.qBias : proj === 'k' ? full?.kBias : proj === 'v' ? full?.vBias : null;
    linearBackward(be, projParams(cfg, layer, proj), R, {
      x: input,
      dy,
      dx,
      accumulateDx,
      dW: full ? full[proj] : null,
      dBias: bias ?? null,
      lora: use ? { ...use, grad: grads.lora?.[proj] ?? null, dyB: gws.dyB! } : null,
    });
  };

  // MLP: out = h1 + down(hmid)
  back('down', ws.hmid, dres, gws.dHmid, false);
  be.run('swigluBackward', {
    t: { g: ws.g, u: ws.u, dh: gws.dHmid, dg: gws.dg, du: gws.du },
    p: { R, F: cfg.intermediateSize },
  });
  back('gate', ws.xn2, gws.dg, gws.dXn, false);
  back('up', ws.xn2, gws.du, gws.dXn, true);
  be.run('rmsnormBackward', {
    t: full
      ? { x: ws.h1, w: layer.postNorm, rstd: ws.rstd2, dy: gws.dXn, dx: dres, dw: full.postNorm }
      : { x: ws.h1, w: layer.postNorm, rstd: ws.rstd2, dy: gws.dXn, dx: dres },
    p: { R, D, accumulate: 1 },
  }); // dres = dL/dh1

  // attention: h1 = x + o_proj(o)
  back('o', ws.o, dres, gws.dO, false);
  if (attn.kind === 'self') {
    be.run('attentionBackward', {
      t: {
        q: ws.q,
        k: ws.k,
        v: ws.v,
        keyStart: ctx.keyStart,
        o: ws.o,
        lse: ws.lse,
        dout: gws.dO,
        dq: gws.dq,
        dk: gws.dk,
        dv: gws.dv,
      },
      p: { B, T, S: T, past: 0, H, Hkv, Dh },
    });
    if (attn.extra) {
      be.run('axpby', { t: { x: attn.extra.dk, y: gws.dk }, p: { n: R * W, a: 1, b: 1 } });
      be.run('axpby', { t: { x: attn.extra.dv, y: gws.dv }, p: { n: R * W, a: 1, b: 1 } });
    }
  } else {
    be.run('attentionBackward', {
      t: {
        q: ws.q,
        k: attn.k,
        v: attn.v,
        keyStart: ctx.keyStart,
        o: ws.o,
        lse: ws.lse,
        dout: gws.dO,
        dq: gws.dq,
        dk: attn.dk,
        dv: attn.dv,
      },
      p: { B, T, S: attn.S, past: attn.past, H, Hkv, Dh },
    });
    attn.onContext(attn.dk, attn.dv);
    be.run('embedding', { t: { ids: attn.ownRows, table: attn.dk, out: gws.dk }, p: { R, D: W } });
    be.run('embedding', { t: { ids: attn.ownRows, table: attn.dv, out: gws.dv }, p: { R, D: W } });
  }
  be.run('rope', { t: ropeArgs(ctx, gws.dq), p: { R, nHeads: H, Dh, theta: cfg.ropeTheta, inverse: 1 } });
  be.run('rope', { t: ropeArgs(ctx, gws.dk), p: { R, nHeads: Hkv, Dh, theta: cfg.ropeTheta, inverse: 1 } });
  const dXn = grads.input ? gws.dXn : null;
  back('q', ws.xn1, gws.dq, dXn, false);
  back('k', ws.xn1, gws.dk, dXn, true);
  back('v', ws.xn1, gws.dv, dXn, true);
  if (!grads.input) {
    if (full) throw new Error('layerBackward: full fine-tuning needs the input gradient (the norm weight and below)');
    return; // dres keeps dL/dh1: nothing reads it
  }
  be.run('rmsnormBackward', {
    t: full
      ? { x, w: layer.inputNorm, rstd: ws.rstd1, dy: gws.dXn, dx: dres, dw: full.inputNorm }
      : { x, w: layer.inputNorm, rstd: ws.rstd1, dy: gws.dXn, dx: dres },
    p: { R, D, accumulate: 1 },
  }); // dres = dL/dx
}
