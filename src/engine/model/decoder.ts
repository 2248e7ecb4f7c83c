// The whole decoder over a packed batch: embedding -> L layers -> final norm -> (gathered rows) LM head.
// `runSequences` returns per-token log-probs and entropies of the selected rows and, when asked, runs the
// backward of  L = Σ coef·logp + entCoef·H  into gradient buffers (full weights and/or a LoRA adapter),
// storing only each layer's input and recomputing the rest (layer.ts).
import type { Backend, Tensor } from '../backend.ts';
import type { ModelConfig } from './config.ts';
import type { DecoderParams } from './params.ts';
import type { LoraAdapter } from './lora.ts';
import { groupRowsById, type SequenceBatch } from './batch.ts';
import {
  FusedWorkspace,
  LayerGradScratch,
  LayerWorkspace,
  layerBackward,
  layerForward,
  layerForwardFused,
  layerWorkspaceFloats,
  ropeFrequencies,
  type LayerContext,
  type LayerGradTargets,
  type LayerLora,
} from './layer.ts';
import type { FusedLayer } from './lora-merge.ts';
import { mergeForTraining, type MergedLayer } from './lora-train-merge.ts';
import { readF32, TensorScope, zeroTensor } from './device-ops.ts';

/** The weights a pass runs with: base (or a full trainable copy) plus an optional LoRA adapter. */
export interface ActiveWeights {
  params: DecoderParams;
  lora: LoraAdapter | null;
  /** an inference copy with concatenated projections (lora-merge.ts): when given, its layers replace
   *  params.layers (and lora is null); forward only */
  fused?: FusedLayer[];
  /** per layer, `lora`'s projections merged into the base for a training pass (lora-train-merge.ts) */
  merged?: MergedLayer[];
}

/** Where gradients go (accumulated, never zeroed here). */
export interface GradientSinks {
  full: DecoderParams | null;
  lora: LoraAdapter | null;
}

/** What layer l's backward produces into `sinks`: its weights' gradients, and dL/dx of its input except below the
 *  first layer, where only the embedding's gradient (full fine-tuning) needs it. */
export function layerGradTargets(sinks: GradientSinks, l: number): LayerGradTargets {
  const { full, lora } = sinks;
  return { full: full ? full.layers[l] : null, lora: lora ? lora.layers[l] : null, input: l > 0 || full !== null };
}

export interface BackwardRequest {
  /** [Rq] dL/dlogp per selected row, or a function giving them from this forward's [Rq] log-probs */
  coef: Float32Array | ((logprobs: Float32Array) => Float32Array);
  /** [Rq] dL/dH per selected row, or null for zeros */
  entropyCoef: Float32Array | null;
  sinks: GradientSinks;
}

export interface SequenceResult {
  /** [Rq] */
  logprobs: Float32Array;
  /** [Rq] */
  entropy: Float32Array;
}

/** Layer l's part of the active LoRA adapter, or null. */
export function layerLora(w: ActiveWeights, l: number): LayerLora | null {
  if (!w.lora) return null;
  return w.merged
    ? { adapter: w.lora, layer: w.lora.layers[l], merged: w.merged[l] }
    : { adapter: w.lora, layer: w.lora.layers[l] };
}

/** Whether a backward over R rows keeps every layer's internals (one workspace per layer) within `budgetBytes`,
 *  instead of recomputing each layer's forward. */
export function keepsEveryLayer(cfg: ModelConfig, w: ActiveWeights, R: number, budgetBytes: number): boolean {
  const [rank, targets] = w.lora ? [w.lora.rank, w.lora.targets.length] : [0, 0];
  return 4 * cfg.numLayers * layerWorkspaceFloats(cfg, R, rank, targets) <= budgetBytes;
}

/** Embedding then all layers. Returns the final hidden state [R, D] (unnormalised) and, when `keep`, every
 *  layer's input (inputs[l] is the input of layer l). Layer l runs in workspaces[l % workspaces.length]. */
function forwardHidden(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  batch: SequenceBatch,
  scope: TensorScope,
  ctx: LayerContext,
  workspaces: LayerWorkspace[],
  keep: boolean,
): { hidden: Tensor; inputs: Tensor[] } {
  const R = batch.B * batch.T;
  const D = cfg.hiddenSize;
  const ids = scope.from([R], batch.ids, 'ids');
  const inputs: Tensor[] = [];
  let cur = scope.alloc([R, D], 'hidden.0');
  be.run('embedding', { t: { ids, table: w.params.embed, out: cur }, p: { R, D } });
  if (w.fused) {
    if (keep) throw new Error('decoder: fused inference weights have no backward');
    const fws = new FusedWorkspace(scope, cfg, batch.B, batch.T);
    for (const layer of w.fused) layerForwardFused(ctx, layer, cur, fws, { kind: 'self' });
    return { hidden: cur, inputs };
  }
  let spare = keep ? null : scope.alloc([R, D], 'hidden.spare');
  for (let l = 0; l < cfg.numLayers; l++) {
    const next = spare ?? scope.alloc([R, D], `hidden.${l + 1}`);
    layerForward(ctx, w.params.layers[l], layerLora(w, l), cur, next, workspaces[l % workspaces.length], {
      kind: 'self',
    });
    inputs.push(cur);
    if (!keep) spare = cur;
    cur = next;
  }
  return { hidden: cur, inputs };
}

export interface RunOptions {
  /** keep every layer's internals (no recompute in the backward) when they fit in this many bytes; default 0 */
  activationBudgetBytes?: number;
  /**
   * Log-probs (and entropies) of softmax(logits / temperature), as verl scores a rollout sampled at that temperature
   * (dp_actor._forward_micro_batch: logits.div_(temperature)); default 1. The backward is that of the scaled objective.
   */
  temperature?: number;
  /** benchmarks: when given, the pass syncs the device after the forward and records the forward's and the backward's seconds */
  timings?: { forwardS: number; backwardS: number };
}

/** Log-probs / entropies of the selected rows, and optionally the backward. */
export async function runSequences(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  batch: SequenceBatch,
  backward: BackwardRequest | null,
  options: RunOptions = {},
): Promise<SequenceResult> {
  const scope = new TensorScope(be);
  const t0 = performance.now();
  let t1 = t0;
  try {
    const { B, T } = batch;
    const R = B * T;
    const D = cfg.hiddenSize;
    const Rq = batch.selectedRows.length;
    if (Rq === 0) return { logprobs: new Float32Array(0), entropy: new Float32Array(0) };
    const ctx: LayerContext = {
      be,
      cfg,
      pos: scope.from([R], batch.pos, 'pos'),
      keyStart: scope.from([B], batch.keyStart, 'keyStart'),
      invFreq: ropeFrequencies(scope, cfg),
    };
    if (backward && w.fused) throw new Error('runSequences: fused inference weights cannot take a backward');
    if (backward && w.lora && !w.merged) {
      const merged = mergeForTraining(be, scope, cfg, w.params, w.lora);
      if (merged) w = { ...w, merged };
    }
    const keepAll = backward !== null && keepsEveryLayer(cfg, w, R, options.activationBudgetBytes ?? 0);
    const workspaces = w.fused
      ? []
      : Array.from({ length: keepAll ? cfg.numLayers : 1 }, () => new LayerWorkspace(scope, cfg, B, T, w.lora));
    const { hidden, inputs } = forwardHidden(be, cfg, w, batch, scope, ctx, workspaces, backward !== null);

    const temperature = options.temperature ?? 1;
    const head = lmHeadRows(be, cfg, w, scope, hidden, batch.selectedRows, batch.targets, temperature);
    if (options.timings) {
      await be.sync();
      t1 = performance.now();
    }

    let logprobs: Float32Array | null = null;
    if (backward) {
      const { full } = backward.sinks;
      const dres = scope.alloc([R, D], 'dres');
      logprobs = await headBackward(be, cfg, w, scope, head, backward, temperature, dres);
      const gws = new LayerGradScratch(scope, cfg, R, w.lora);
      for (let l = cfg.numLayers - 1; l >= 0; l--) {
        const grads = layerGradTargets(backward.sinks, l);
        // the last layer's internals are still in its workspace; others are recomputed unless all were kept
        const recompute = !keepAll && l !== cfg.numLayers - 1;
        layerBackward(
          ctx,
          w.params.layers[l],
          layerLora(w, l),
          grads,
          inputs[l],
          dres,
          workspaces[keepAll ? l : 0],
          gws,
          recompute,
        );
      }
      if (full) embeddingGradient(be, scope, batch.ids, dres, full.embed, D);
    }
    const out = { logprobs: logprobs ?? (await readF32(be, head.logp)), entropy: await readF32(be, head.entropy) };
    if (options.timings) {
      options.timings.forwardS = (t1 - t0) / 1000;
      options.timings.backwardS = (performance.now() - t1) / 1000;
    }
    return out;
  } finally {
    scope.freeAll();
  }
}

/** The head over rows `selected` of `hidden` [R, D]: gathered, final norm, scaled by 1 / temperature (logits / T =
 *  (h / T) W^T), then the fused LM head + log-softmax and entropy at each row's target. Tensors live in `scope`. */
export function lmHeadRows(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  scope: TensorScope,
  hidden: Tensor,
  selected: Int32Array,
  targetIds: Int32Array,
  temperature: number,
) {
  const D = cfg.hiddenSize;
  const V = cfg.vocabSize;
  const Rq = selected.length;
  const rows = scope.from([Rq], selected, 'selectedRows');
  const targets = scope.from([Rq], targetIds, 'targets');
  const hSel = scope.alloc([Rq, D], 'hSel');
  const hSelN = scope.alloc([Rq, D], 'hSelNorm');
  const rstdF = scope.alloc([Rq], 'rstdFinal');
  const logp = scope.alloc([Rq], 'logp');
  const entropy = scope.alloc([Rq], 'entropy');
  const lse = scope.alloc([Rq], 'lse');
  be.run('embedding', { t: { ids: rows, table: hidden, out: hSel }, p: { R: Rq, D } });
  be.run('rmsnorm', {
    t: { x: hSel, w: w.params.finalNorm, y: hSelN, rstd: rstdF },
    p: { R: Rq, D, eps: cfg.rmsNormEps },
  });
  if (!(temperature > 0) || !Number.isFinite(temperature))
    throw new Error(`runSequences: temperature must be a positive number, got ${temperature}`);
  let hHead = hSelN;
  if (temperature !== 1) {
    hHead = scope.alloc([Rq, D], 'hSelNormScaled');
    be.run('axpby', { t: { x: hSelN, y: hHead }, p: { n: Rq * D, a: 1 / temperature, b: 0 } });
  }
  be.run('logprob', { t: { h: hHead, w: w.params.lmHead, target: targets, logp, entropy, lse }, p: { R: Rq, D, V } });
  return { rows, targets, hSel, rstdF, hSelN, hHead, logp, entropy, lse };
}

/** What lmHeadRows leaves for the head's backward. */
export type HeadRows = ReturnType<typeof lmHeadRows>;

/**
 * The head's backward for `backward`'s loss over the rows lmHeadRows gathered: the LM head's and the final norm's
 * gradients into backward.sinks.full, and dres [R, D] := dL/dhidden (zero but at the selected rows). Returns the
 * forward's log-probs when the coefficients are a function of them (read before the backward), else null.
 */
export async function headBackward(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  scope: TensorScope,
  head: HeadRows,
  backward: BackwardRequest,
  temperature: number,
  dres: Tensor,
): Promise<Float32Array | null> {
  const { rows, targets, hSel, rstdF, hSelN, hHead, logp, entropy, lse } = head;
  const D = cfg.hiddenSize;
  const V = cfg.vocabSize;
  const Rq = rows.shape[0];
  let logprobs: Float32Array | null = null;
  let coefs: Float32Array;
  if (typeof backward.coef === 'function') {
    logprobs = await readF32(be, logp);
    coefs = backward.coef(logprobs);
  } else coefs = backward.coef;
  if (coefs.length !== Rq) throw new Error(`backward: ${coefs.length} coefficients for ${Rq} positions`);
  const { full } = backward.sinks;
  const coef = scope.from([Rq], coefs, 'coef');
  const entCoef = scope.from([Rq], backward.entropyCoef ?? new Float32Array(Rq), 'entCoef');
  const dhSelN = scope.alloc([Rq, D], 'dhSelNorm');
  const dhSel = scope.alloc([Rq, D], 'dhSel');
  const dhHead = hHead === hSelN ? dhSelN : scope.alloc([Rq, D], 'dhSelNormScaled');
  be.run('logprobBackward', {
    t: {
      h: hHead,
      w: w.params.lmHead,
      target: targets,
      lse,
      entropy,
      coef,
      entCoef,
      dh: dhHead,
      ...(full ? { dw: full.lmHead } : {}),
    },
    p: { R: Rq, D, V },
  });
  if (dhHead !== dhSelN) be.run('axpby', { t: { x: dhHead, y: dhSelN }, p: { n: Rq * D, a: 1 / temperature, b: 0 } });
  be.run('rmsnormBackward', {
    t: {
      x: hSel,
      w: w.params.finalNorm,
      rstd: rstdF,
      dy: dhSelN,
      dx: dhSel,
      ...(full ? { dw: full.finalNorm } : {}),
    },
    p: { R: Rq, D, accumulate: 0 },
  });
  // scatter the selected rows' gradient back into dres[R, D] (each row selected once)
  zeroTensor(be, dres);
  const iota = Int32Array.from({ length: Rq + 1 }, (_, i) => i);
  be.run('embeddingBackward', {
    t: {
      dout: dhSel,
      uniqueIds: rows,
      rowStart: scope.from([Rq + 1], iota, 'rowStart'),
      rowList: scope.from([Rq], iota.subarray(0, Rq), 'rowList'),
      dtable: dres,
    },
    p: { U: Rq, D },
  });
  return logprobs;
}

/** Full fine-tuning: the embedding table's gradient dEmbed += dres [R, D] of rows with token ids `ids` [R]. */
export function embeddingGradient(
  be: Backend,
  scope: TensorScope,
  ids: Int32Array,
  dres: Tensor,
  dEmbed: Tensor,
  D: number,
): void {
  const g = groupRowsById(ids);
  be.run('embeddingBackward', {
    t: {
      dout: dres,
      uniqueIds: scope.from([g.uniqueIds.length], g.uniqueIds, 'uniqueIds'),
      rowStart: scope.from([g.rowStart.length], g.rowStart, 'tokRowStart'),
      rowList: scope.from([g.rowList.length], g.rowList, 'tokRowList'),
      dtable: dEmbed,
    },
    p: { U: g.uniqueIds.length, D },
  });
}

/** Log-probs and entropies [Rq] of rows `selected` of `hidden` (lmHeadRows), read back. */
export async function headLogprobs(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  scope: TensorScope,
  hidden: Tensor,
  selected: Int32Array,
  targets: Int32Array,
  temperature: number,
): Promise<SequenceResult> {
  const head = lmHeadRows(be, cfg, w, scope, hidden, selected, targets, temperature);
  return { logprobs: await readF32(be, head.logp), entropy: await readF32(be, head.entropy) };
}

/** Full logits [B*T, V] of every row (tests and small-vocabulary tools; never used for training). */
export async function computeLogits(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  batch: SequenceBatch,
): Promise<Float32Array> {
  const scope = new TensorScope(be);
  try {
    const { B, T } = batch;
    const R = B * T;
    const D = cfg.hiddenSize;
    const ctx: LayerContext = {
      be,
      cfg,
      pos: scope.from([R], batch.pos, 'pos'),
      keyStart: scope.from([B], batch.keyStart, 'keyStart'),
      invFreq: ropeFrequencies(scope, cfg),
    };
    const { hidden } = forwardHidden(
      be,
      cfg,
      w,
      batch,
      scope,
      ctx,
      w.fused ? [] : [new LayerWorkspace(scope, cfg, B, T, w.lora)],
      false,
    );
    const hn = scope.alloc([R, D], 'hNorm');
    const rstd = scope.alloc([R], 'rstd');
    const logits = scope.alloc([R, cfg.vocabSize], 'logits');
    be.run('rmsnorm', { t: { x: hidden, w: w.params.finalNorm, y: hn, rstd }, p: { R, D, eps: cfg.rmsNormEps } });
    be.run('lmHead', { t: { h: hn, w: w.params.lmHead, logits }, p: { R, D, V: cfg.vocabSize } });
    return await readF32(be, logits);
  } finally {
    scope.freeAll();
  }
}
