// Training (forward and backward) of sequences that share their context: a GRPO group's G completions of one prompt
// are G rows whose tokens before the first scored position are the same. Each distinct context runs through the
// layers once, as a training sequence of its own; each row runs only its own tokens, attending to a cache that holds
// its context's keys and values (prefix-score.ts does the same for a forward alone). The backward then runs twice:
//   rows      layer by layer from the loss, as runSequences; at each layer the attention backward also gives
//             dL/dk and dL/dv of the context's cache rows (catalog attentionBackward with past > 0), summed over the
//             rows that share the context (embeddingBackward as a scatter-add) into per-layer buffers
//   contexts  layer by layer from the top with no loss of their own (nothing is scored before the first position):
//             at each layer the rows' dL/dk, dL/dv join those of the context's own queries, then through RoPE, the
//             k and v projections (and their LoRA), the norms and the residual stream down to the embedding
// The gradients are the whole-row backward's (the loss is a sum over rows, and a context's tokens reach a row only
// through its keys and values); the sums run in another order, so they agree to rounding.
//   context  c_b = positions[0] - 1 tokens, left-padded into [U, P] (keyStart P - c_u masks the padding)
//   cache    [B, S = P + Ts, Hkv, Dh] per layer: rows [0, P) the context's (the same rows as its pass), rows
//            [P, P + Ts) the row's own tokens, right-padded to Ts, at positions c_b + t
import type { Backend, Tensor } from '../backend.ts';
import type { ModelConfig } from './config.ts';
import {
  embeddingGradient,
  headBackward,
  keepsEveryLayer,
  layerGradTargets,
  layerLora,
  lmHeadRows,
  type ActiveWeights,
  type BackwardRequest,
  type RunOptions,
  type SequenceResult,
} from './decoder.ts';
import { readF32, TensorScope, zeroTensor } from './device-ops.ts';
import {
  LayerGradScratch,
  LayerWorkspace,
  layerBackward,
  layerForward,
  ropeFrequencies,
  type AttentionSource,
  type LayerContext,
} from './layer.ts';
import { sharedPrefixLayout, type PrefixScoreInput } from './prefix-score.ts';
import { mergeForTraining } from './lora-train-merge.ts';

/** One pass's layer stack run forward with every layer's input kept, and its workspaces (one per layer when they
 *  fit the activation budget, else one, recomputed in the backward). */
interface KeptPass {
  inputs: Tensor[];
  workspaces: LayerWorkspace[];
  keepAll: boolean;
  hidden: Tensor;
}

/** Embedding then every layer (attention as attnOf(l) says) over B sequences of T rows, inputs kept. */
function forwardKept(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  scope: TensorScope,
  ctx: LayerContext,
  ids: Int32Array,
  B: number,
  T: number,
  budgetBytes: number,
  attnOf: (l: number, keepAll: boolean) => AttentionSource,
): KeptPass {
  const R = B * T;
  const D = cfg.hiddenSize;
  const keepAll = keepsEveryLayer(cfg, w, R, budgetBytes);
  const workspaces = Array.from(
    { length: keepAll ? cfg.numLayers : 1 },
    () => new LayerWorkspace(scope, cfg, B, T, w.lora),
  );
  const inputs: Tensor[] = [];
  let cur = scope.alloc([R, D], 'prefixTrain.hidden.0');
  be.run('embedding', {
    t: { ids: scope.from([R], ids, 'prefixTrain.ids'), table: w.params.embed, out: cur },
    p: { R, D },
  });
  for (let l = 0; l < cfg.numLayers; l++) {
    const next = scope.alloc([R, D], `prefixTrain.hidden.${l + 1}`);
    const ws = workspaces[keepAll ? l : 0];
    layerForward(ctx, w.params.layers[l], layerLora(w, l), cur, next, ws, attnOf(l, keepAll));
    inputs.push(cur);
    cur = next;
  }
  return { inputs, workspaces, keepAll, hidden: cur };
}

/** Log-probs and entropies of every sequence's positions, and the backward of `backward`'s loss into its sinks,
 *  each distinct context run once. `backward.coef` (and entropyCoef) run over the sequences' positions in order. */
export async function trainSharedPrefixes(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  seqs: readonly PrefixScoreInput[],
  backward: BackwardRequest,
  options: RunOptions = {},
): Promise<SequenceResult[]> {
  if (w.fused) throw new Error('trainSharedPrefixes: fused inference weights cannot take a backward');
  const B = seqs.length;
  const { hiddenSize: D, numKvHeads: Hkv, headDim: Dh, numLayers: L } = cfg;
  const W = Hkv * Dh;
  const layout = sharedPrefixLayout(seqs, cfg.vocabSize, 'trainSharedPrefixes');
  const { contexts, uniqueOf, P, Ts, S, selected, targets, starts } = layout;
  const U = contexts.length;
  const budget = options.activationBudgetBytes ?? 0;
  const temperature = options.temperature ?? 1;
  const scope = new TensorScope(be);
  try {
    if (w.lora && !w.merged) {
      const merged = mergeForTraining(be, scope, cfg, w.params, w.lora);
      if (merged) w = { ...w, merged };
    }
    const invFreq = ropeFrequencies(scope, cfg);

    // the contexts, left-padded to P: a training pass whose keys and values (after RoPE) every row reads
    const ctxIds = new Int32Array(U * P);
    const ctxPos = new Int32Array(U * P);
    const ctxStart = new Int32Array(U);
    contexts.forEach((c, u) => {
      ctxStart[u] = P - c.length;
      ctxIds.set(c, u * P + P - c.length);
      for (let t = 0; t < c.length; t++) ctxPos[u * P + P - c.length + t] = t;
    });
    const ctxCtx: LayerContext = {
      be,
      cfg,
      pos: scope.from([U * P], ctxPos, 'prefixTrain.ctxPos'),
      keyStart: scope.from([U], ctxStart, 'prefixTrain.ctxKeyStart'),
      invFreq,
    };
    const ctxK: Tensor[] = [];
    const ctxV: Tensor[] = [];
    const ctxPass = forwardKept(be, cfg, w, scope, ctxCtx, ctxIds, U, P, budget, (l, keepAll) => ({
      kind: 'self',
      onKV: (k, v) => {
        if (keepAll) {
          // layer l's own workspace, kept until the backward
          ctxK[l] = k;
          ctxV[l] = v;
          return;
        }
        ctxK[l] = scope.alloc([U * P, W], `prefixTrain.ctxK.${l}`);
        ctxV[l] = scope.alloc([U * P, W], `prefixTrain.ctxV.${l}`);
        be.run('axpby', { t: { x: k, y: ctxK[l] }, p: { n: U * P * W, a: 1, b: 0 } });
        be.run('axpby', { t: { x: v, y: ctxV[l] }, p: { n: U * P * W, a: 1, b: 0 } });
      },
    }));

    // the rows' own tokens behind their contexts' cache rows
    const R = B * Ts;
    const rowIds = layout.tokens;
    const cacheRows = new Int32Array(B * S); // cache row b*S + j <- context row u*P + j (j >= P: overwritten)
    const ownRows = new Int32Array(R); // the rows' own cache rows b*S + P + t
    uniqueOf.forEach((u, b) => {
      for (let j = 0; j < S; j++) cacheRows[b * S + j] = u * P + Math.min(j, P - 1);
      for (let t = 0; t < Ts; t++) ownRows[b * Ts + t] = b * S + P + t;
    });
    const rowCtx: LayerContext = {
      be,
      cfg,
      pos: scope.from([R], layout.pos, 'prefixTrain.pos'),
      keyStart: scope.from([B], layout.keyStart, 'prefixTrain.keyStart'),
      invFreq,
    };
    // one cache for every layer (B copies of the contexts' rows: the largest tensor of the pass for long prompts),
    // filled with layer l's context rows before the layer runs forward, and again before its backward
    const cacheIds = scope.from([B * S], cacheRows, 'prefixTrain.cacheRows');
    const cacheK = scope.alloc([B, S, Hkv, Dh], 'prefixTrain.cacheK');
    const cacheV = scope.alloc([B, S, Hkv, Dh], 'prefixTrain.cacheV');
    const fillContext = (l: number) => {
      be.run('embedding', { t: { ids: cacheIds, table: ctxK[l], out: cacheK }, p: { R: B * S, D: W } });
      be.run('embedding', { t: { ids: cacheIds, table: ctxV[l], out: cacheV }, p: { R: B * S, D: W } });
    };
    const cache = { kind: 'cache', k: cacheK, v: cacheV, past: P, S } as const;
    const rowPass = forwardKept(be, cfg, w, scope, rowCtx, rowIds, B, Ts, budget, (l) => {
      fillContext(l);
      return cache;
    });

    const head = lmHeadRows(be, cfg, w, scope, rowPass.hidden, selected, targets, temperature);
    const { full } = backward.sinks;
    const dres = scope.alloc([R, D], 'prefixTrain.dres');
    const logprobs = await headBackward(be, cfg, w, scope, head, backward, temperature, dres);

    // rows' backward; each layer's context rows of dL/dk, dL/dv summed per context into ctxDk[l], ctxDv[l]
    const scatter = contextScatter(scope, uniqueOf, U, P, S);
    const ownIds = scope.from([R], ownRows, 'prefixTrain.ownRows');
    const dkS = scope.alloc([B, S, Hkv, Dh], 'prefixTrain.dkCache');
    const dvS = scope.alloc([B, S, Hkv, Dh], 'prefixTrain.dvCache');
    const ctxDk: Tensor[] = [];
    const ctxDv: Tensor[] = [];
    const rowGws = new LayerGradScratch(scope, cfg, R, w.lora);
    for (let l = L - 1; l >= 0; l--) {
      const ws = rowPass.workspaces[rowPass.keepAll ? l : 0];
      const recompute = !rowPass.keepAll && l !== L - 1;
      fillContext(l);
      if (!recompute) {
        // the layer's own k, v rows are still in its workspace (a recompute writes them itself)
        be.run('copyRows', { t: { src: ws.k, dst: cacheK }, p: { B, T: Ts, W, Sdst: S, dstRow0: P } });
        be.run('copyRows', { t: { src: ws.v, dst: cacheV }, p: { B, T: Ts, W, Sdst: S, dstRow0: P } });
      }
      ctxDk[l] = scope.alloc([U * P, W], `prefixTrain.ctxDk.${l}`);
      ctxDv[l] = scope.alloc([U * P, W], `prefixTrain.ctxDv.${l}`);
      const onContext = (dk: Tensor, dv: Tensor) => {
        zeroTensor(be, ctxDk[l]);
        zeroTensor(be, ctxDv[l]);
        be.run('embeddingBackward', { t: { dout: dk, ...scatter, dtable: ctxDk[l] }, p: { U: U * P, D: W } });
        be.run('embeddingBackward', { t: { dout: dv, ...scatter, dtable: ctxDv[l] }, p: { U: U * P, D: W } });
      };
      layerBackward(
        rowCtx,
        w.params.layers[l],
        layerLora(w, l),
        layerGradTargets(backward.sinks, l),
        rowPass.inputs[l],
        dres,
        ws,
        rowGws,
        recompute,
        { ...cache, dk: dkS, dv: dvS, ownRows: ownIds, onContext },
      );
    }
    if (full) embeddingGradient(be, scope, rowIds, dres, full.embed, D);

    // the contexts' backward: no loss of their own, the rows' dL/dk, dL/dv added at every layer
    const ctxDres = scope.alloc([U * P, D], 'prefixTrain.ctxDres');
    zeroTensor(be, ctxDres);
    const ctxGws = new LayerGradScratch(scope, cfg, U * P, w.lora);
    for (let l = L - 1; l >= 0; l--) {
      layerBackward(
        ctxCtx,
        w.params.layers[l],
        layerLora(w, l),
        layerGradTargets(backward.sinks, l),
        ctxPass.inputs[l],
        ctxDres,
        ctxPass.workspaces[ctxPass.keepAll ? l : 0],
        ctxGws,
        !ctxPass.keepAll && l !== L - 1,
        { kind: 'self', extra: { dk: ctxDk[l], dv: ctxDv[l] } },
      );
    }
    if (full) embeddingGradient(be, scope, ctxIds, ctxDres, full.embed, D);

    const lp = logprobs ?? (await readF32(be, head.logp));
    const entropy = await readF32(be, head.entropy);
    return seqs.map((_, b) => ({
      logprobs: lp.slice(starts[b], starts[b + 1]),
      entropy: entropy.slice(starts[b], starts[b + 1]),
    }));
  } finally {
    scope.freeAll();
  }
}

/** embeddingBackward's rows for summing a cache-shaped [B, S, W] gradient's context rows into [U·P, W]: context row
 *  u·P + j takes cache rows b·S + j of every sequence b of context u. */
function contextScatter(
  scope: TensorScope,
  uniqueOf: readonly number[],
  U: number,
  P: number,
  S: number,
): { uniqueIds: Tensor; rowStart: Tensor; rowList: Tensor } {
  const members: number[][] = Array.from({ length: U }, () => []);
  uniqueOf.forEach((u, b) => members[u].push(b));
  const uniqueIds = Int32Array.from({ length: U * P }, (_, i) => i);
  const rowStart = new Int32Array(U * P + 1);
  const rowList = new Int32Array(uniqueOf.length * P);
  let at = 0;
  for (let u = 0; u < U; u++)
    for (let j = 0; j < P; j++) {
      rowStart[u * P + j] = at;
      for (const b of members[u]) rowList[at++] = b * S + j;
    }
  rowStart[U * P] = at;
  return {
    uniqueIds: scope.from([U * P], uniqueIds, 'prefixTrain.ctxRows'),
    rowStart: scope.from([U * P + 1], rowStart, 'prefixTrain.ctxRowStart'),
    rowList: scope.from([rowList.length], rowList, 'prefixTrain.ctxRowList'),
  };
}
