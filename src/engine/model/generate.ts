// Autoregressive decoding with a KV cache for a batch of prompts (e.g. a GRPO group of 8 sharing every
// decode step). Layout: each sequence's prompt is LEFT-aligned to a common length P inside a cache of
// S = P + maxNewTokens rows: sequence b's prompt sits at rows [P - len_b, P) and keyStart[b] = P - len_b masks
// the rows before it. Identical prompts are prefilled once and their keys/values copied to every member.
// The caller decides each next token from the logits (sampling.ts) and when a sequence is done.
import type { Backend, Tensor } from '../backend.ts';
import type { ModelConfig } from './config.ts';
import type { ActiveWeights } from './decoder.ts';
import { LayerWorkspace, layerForward, ropeFrequencies, type LayerContext } from './layer.ts';
import { readF32, TensorScope } from './device-ops.ts';

/** Called with the next-token logits [V] of sequence b at generation step `step` (0 = after the prompt).
 *  Returns the token to feed next, or null when the sequence is finished. */
export type NextToken = (b: number, logits: Float32Array, step: number) => number | null;

export interface DecodeOptions {
  maxNewTokens: number;
  /** called after each decode step with the number of tokens produced so far (all sequences) */
  onStep?: (producedTokens: number) => void;
}

/** Runs prefill + decode; every token decision goes through `next`. */
export async function decodeBatch(
  be: Backend, cfg: ModelConfig, w: ActiveWeights, prompts: readonly (readonly number[])[], next: NextToken, opts: DecodeOptions,
): Promise<void> {
  const B = prompts.length;
  if (B === 0 || opts.maxNewTokens <= 0) return;
  const { hiddenSize: D, numKvHeads: Hkv, headDim: Dh, vocabSize: V } = cfg;
  prompts.forEach((p, b) => {
    if (p.length === 0) throw new Error(`generate: prompt ${b} is empty`);
    for (const id of p) if (!Number.isInteger(id) || id < 0 || id >= V) throw new Error(`generate: prompt ${b} has token id ${id} outside [0, ${V})`);
  });
  const P = Math.max(...prompts.map((p) => p.length));
  const S = P + opts.maxNewTokens;
  if (S > cfg.maxPositionEmbeddings) {
    throw new Error(`generate: prompt (${P}) + maxNewTokens (${opts.maxNewTokens}) exceeds max_position_embeddings ${cfg.maxPositionEmbeddings}`);
  }
  const W = Hkv * Dh;
  const scope = new TensorScope(be);
  try {
    const cacheK: Tensor[] = [];
    const cacheV: Tensor[] = [];
    for (let l = 0; l < cfg.numLayers; l++) {
      cacheK.push(scope.zeros([B, S, Hkv, Dh], `cache.k.${l}`));
      cacheV.push(scope.zeros([B, S, Hkv, Dh], `cache.v.${l}`));
    }
    const keyStart = Int32Array.from(prompts, (p) => P - p.length);
    const fed: Array<number | null> = Array.from({ length: B }, () => null);
    let produced = 0;

    // prefill each distinct prompt once
    const groups = new Map<string, number[]>();
    prompts.forEach((p, b) => {
      const key = p.join(',');
      const members = groups.get(key);
      if (members) members.push(b);
      else groups.set(key, [b]);
    });
    for (const members of groups.values()) {
      const prompt = prompts[members[0]];
      const logits = await prefill(be, cfg, w, prompt, (l, k, v) => {
        for (const b of members) {
          const dstRow0 = b * S + keyStart[b];
          be.run('copyRows', { t: { src: k, dst: cacheK[l] }, p: { B: 1, T: prompt.length, W, Sdst: B * S, dstRow0 } });
          be.run('copyRows', { t: { src: v, dst: cacheV[l] }, p: { B: 1, T: prompt.length, W, Sdst: B * S, dstRow0 } });
        }
      });
      for (const b of members) {
        fed[b] = next(b, logits, 0);
        if (fed[b] !== null) produced++;
      }
    }
    opts.onStep?.(produced);

    // decode: one token per live sequence per step
    const ws = new LayerWorkspace(scope, cfg, B, 1, w.lora);
    const ids = scope.alloc([B], 'decode.ids', 'i32');
    const pos = scope.alloc([B], 'decode.pos', 'i32');
    const ks = scope.from([B], keyStart, 'decode.keyStart');
    const ctx: LayerContext = { be, cfg, pos, keyStart: ks, invFreq: ropeFrequencies(scope, cfg) };
    const x = scope.alloc([B, D], 'decode.x');
    const y = scope.alloc([B, D], 'decode.y');
    const hn = scope.alloc([B, D], 'decode.hNorm');
    const rstd = scope.alloc([B], 'decode.rstd');
    const logits = scope.alloc([B, V], 'decode.logits');
    for (let step = 1; step < opts.maxNewTokens; step++) {
      if (fed.every((t) => t === null)) break;
      const past = P + step - 1; // cache row of the token fed now
      be.upload(ids, Int32Array.from(fed, (t) => t ?? 0));
      be.upload(pos, Int32Array.from(keyStart, (k) => past - k));
      be.run('embedding', { t: { ids, table: w.params.embed, out: x }, p: { R: B, D } });
      let cur = x;
      let nxt = y;
      for (let l = 0; l < cfg.numLayers; l++) {
        const lora = w.lora ? { adapter: w.lora, layer: w.lora.layers[l] } : null;
        layerForward(ctx, w.params.layers[l], lora, cur, nxt, ws, { kind: 'cache', k: cacheK[l], v: cacheV[l], past, S });
        [cur, nxt] = [nxt, cur];
      }
      be.run('rmsnorm', { t: { x: cur, w: w.params.finalNorm, y: hn, rstd }, p: { R: B, D, eps: cfg.rmsNormEps } });
      be.run('lmHead', { t: { h: hn, w: w.params.lmHead, logits }, p: { R: B, D, V } });
      const host = await readF32(be, logits);
      for (let b = 0; b < B; b++) {
        if (fed[b] === null) continue;
        fed[b] = next(b, host.subarray(b * V, (b + 1) * V), step);
        if (fed[b] !== null) produced++;
      }
      opts.onStep?.(produced);
    }
  } finally {
    scope.freeAll();
  }
}

/** Forward one prompt (B = 1), handing each layer's roped k, v [1, L, Hkv, Dh] to `onKV`; returns the
 *  next-token logits [V] after the last prompt token. */
async function prefill(
  be: Backend, cfg: ModelConfig, w: ActiveWeights, prompt: readonly number[], onKV: (layer: number, k: Tensor, v: Tensor) => void,
): Promise<Float32Array> {
  const L = prompt.length;
  const { hiddenSize: D, vocabSize: V } = cfg;
  const scope = new TensorScope(be);
  try {
    const ctx: LayerContext = {
      be, cfg,
      pos: scope.from([L], Int32Array.from({ length: L }, (_, i) => i), 'prefill.pos'),
      keyStart: scope.from([1], new Int32Array(1), 'prefill.keyStart'),
      invFreq: ropeFrequencies(scope, cfg),
    };
    const ws = new LayerWorkspace(scope, cfg, 1, L, w.lora);
    let cur = scope.alloc([L, D], 'prefill.x');
    let nxt = scope.alloc([L, D], 'prefill.y');
    be.run('embedding', { t: { ids: scope.from([L], Int32Array.from(prompt), 'prefill.ids'), table: w.params.embed, out: cur }, p: { R: L, D } });
    for (let l = 0; l < cfg.numLayers; l++) {
      const lora = w.lora ? { adapter: w.lora, layer: w.lora.layers[l] } : null;
      layerForward(ctx, w.params.layers[l], lora, cur, nxt, ws, { kind: 'self', onKV: (k, v) => onKV(l, k, v) });
      [cur, nxt] = [nxt, cur];
    }
    const last = scope.alloc([1, D], 'prefill.last');
    const hn = scope.alloc([1, D], 'prefill.hNorm');
    const rstd = scope.alloc([1], 'prefill.rstd');
    const logits = scope.alloc([1, V], 'prefill.logits');
    be.run('embedding', { t: { ids: scope.from([1], Int32Array.of(L - 1), 'prefill.lastRow'), table: cur, out: last }, p: { R: 1, D } });
    be.run('rmsnorm', { t: { x: last, w: w.params.finalNorm, y: hn, rstd }, p: { R: 1, D, eps: cfg.rmsNormEps } });
    be.run('lmHead', { t: { h: hn, w: w.params.lmHead, logits }, p: { R: 1, D, V } });
    return await readF32(be, logits);
  } finally {
    scope.freeAll();
  }
}
