// A forward pass without a backward over B rows of T tokens: the embedding, then every layer (the fused inference
// layout, or the base with LoRA), each attending where its caller says. Prefill (over the pass's own keys), scoring
// behind a shared context's cache and prefill behind kept rows all run their layers through it.
//   tokens, pos [B·T] i32; keyStart [B] i32; returns the last layer's output [B·T, D] (before the final norm)
import type { ActiveWeights } from './decoder.ts';
import type { ModelConfig } from './config.ts';
import type { TensorScope } from './device-ops.ts';
import type { Backend, Tensor } from '../backend.ts';
import {
  FusedWorkspace,
  LayerWorkspace,
  layerForward,
  layerForwardFused,
  ropeFrequencies,
  type AttentionSource,
  type LayerContext,
} from './layer.ts';

/** Rows of one pass: B sequences of T tokens (ids, RoPE positions) and each sequence's first visible key row. */
export interface PassRows {
  B: number;
  T: number;
  tokens: Int32Array;
  pos: Int32Array;
  keyStart: Int32Array;
}

/** Runs the pass; `eachLayer(l, run)` calls `run` once with layer l's attention source (and may prepare and
 *  finish around it). Tensors are the scope's, labelled `label`.x and so on. */
export function layerStack(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  scope: TensorScope,
  rows: PassRows,
  label: string,
  eachLayer: (l: number, run: (attn: AttentionSource) => void) => void,
): Tensor {
  const { B, T } = rows;
  const R = B * T;
  const D = cfg.hiddenSize;
  const ctx: LayerContext = {
    be,
    cfg,
    pos: scope.from([R], rows.pos, `${label}.pos`),
    keyStart: scope.from([B], rows.keyStart, `${label}.keyStart`),
    invFreq: ropeFrequencies(scope, cfg),
  };
  let cur = scope.alloc([R, D], `${label}.x`);
  be.run('embedding', {
    t: { ids: scope.from([R], rows.tokens, `${label}.ids`), table: w.params.embed, out: cur },
    p: { R, D },
  });
  if (w.fused) {
    const fws = new FusedWorkspace(scope, cfg, B, T);
    // (one hidden state updated in place: the residual adds are matmul epilogues)
    w.fused.forEach((layer, l) => eachLayer(l, (attn) => layerForwardFused(ctx, layer, cur, fws, attn)));
    return cur;
  }
  const ws = new LayerWorkspace(scope, cfg, B, T, w.lora);
  let nxt = scope.alloc([R, D], `${label}.y`);
  for (let l = 0; l < cfg.numLayers; l++) {
    const lora = w.lora ? { adapter: w.lora, layer: w.lora.layers[l] } : null;
    eachLayer(l, (attn) => layerForward(ctx, w.params.layers[l], lora, cur, nxt, ws, attn));
    [cur, nxt] = [nxt, cur];
  }
  return cur;
}
