// Autoregressive decoding with a KV cache for a batch of prompts (e.g. a GRPO group of 8 sharing every
// decode step). Layout: each sequence's prompt is LEFT-aligned to a common length P inside a cache of
// S = P + maxNewTokens rows: sequence b's prompt sits at rows [P - len_b, P) and keyStart[b] = P - len_b masks
// the rows before it. Distinct prompts are prefilled once each, together in passes of at most `prefillTokens`
// padded tokens (bounding the prefill's scratch), and their keys/values gathered to every sequence that shares them.
// The caller decides each next token and when a sequence is done: from the logits row read back to the host
// (NextToken), or from a token drawn on the device by the catalog's `sample` kernel (DeviceSampler: only 16 bytes
// per sequence are read back per step). Finished rows are dropped from the caches once they are half of the batch.
// A call may keep its keys and values (kv-keep.ts) for a later call whose prompts start with its sequences: that one
// prefills only the tokens behind them (prefill-behind.ts), where that runs fewer padded rows.
import type { Backend, Tensor } from '../backend.ts';
import type { ModelConfig } from './config.ts';
import type { ActiveWeights } from './decoder.ts';
import { tensorFrom } from './device-ops.ts';
import type { KvCacheDtype } from './kv-cache.ts';
import { DecodeState } from './decode-state.ts';
import { distinctSequences } from './batch.ts';
import type { HostFloats } from './host-floats.ts';
import { KeptKv } from './kv-keep.ts';
import { prefillBatch } from './prefill.ts';
import { behindRows, prefillBehind } from './prefill-behind.ts';
import { passRowLimit } from './pass-rows.ts';
import { chooseAll, type DeviceSampler, type NextToken } from './token-choice.ts';

export type { DeviceSampler, DrawnToken, NextToken } from './token-choice.ts';

/** Default prefill token budget: prompts are prefilled together up to this many (padded) tokens per pass. 2048
 *  rows keep a GPU's matmuls full while a pass of the Qwen2.5-0.5B shape needs ~170 MiB of scratch (LoRA unmerged),
 *  so that math133-qwen0.5b with bf16 weights fits WebAssembly's 4 GiB (rema plan). */
export const DEFAULT_PREFILL_TOKENS = 2048;

export interface DecodeOptions {
  maxNewTokens: number;
  /** most padded prompt tokens prefilled in one pass (default DEFAULT_PREFILL_TOKENS; at least one prompt per
   *  pass): bounds the prefill's scratch memory; results do not depend on it */
  prefillTokens?: number;
  /** called after each decode step with the number of tokens produced so far (all sequences) */
  onStep?: (producedTokens: number) => void;
  /** storage of the KV cache (kv-cache.ts; default f32): f16 halves halve its memory and reads */
  kvDtype?: KvCacheDtype;
  /** keys and values an earlier call kept (with the same weights): prompts that start with its sequences prefill
   *  only the rest, when that pads at most BEHIND_SHARE of the rows a whole prefill runs (f32 caches only) */
  reuse?: KeptKv | null;
  /** keep this call's keys and values (on the host) for a later call's `reuse`, returned (f32 caches) */
  keep?: boolean;
  /** host arrays to read the kept keys and values into (KeptKvPool.hostFloats); absent: new ones */
  keepInto?: HostFloats;
}

/** A prefill behind kept prefixes is taken when its padded rows are at most this share of a whole prefill's. */
export const BEHIND_SHARE = 0.85;

/** Runs prefill + decode; every token decision goes through `chooser` (a NextToken over host logits, or a
 *  DeviceSampler). Returns the kept keys and values when `opts.keep`, else null. */
export async function decodeBatch(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  prompts: readonly (readonly number[])[],
  chooser: NextToken | DeviceSampler,
  opts: DecodeOptions,
): Promise<KeptKv | null> {
  const B = prompts.length;
  if (B === 0 || opts.maxNewTokens <= 0) return null;
  const kvDtype = opts.kvDtype ?? 'f32';
  if ((opts.keep || opts.reuse) && kvDtype !== 'f32') throw new Error('generate: keep and reuse need an f32 KV cache');
  const { numKvHeads: Hkv, headDim: Dh, vocabSize: V } = cfg;
  prompts.forEach((p, b) => {
    if (p.length === 0) throw new Error(`generate: prompt ${b} is empty`);
    for (const id of p)
      if (!Number.isInteger(id) || id < 0 || id >= V)
        throw new Error(`generate: prompt ${b} has token id ${id} outside [0, ${V})`);
  });
  const P = Math.max(...prompts.map((p) => p.length));
  const S = P + opts.maxNewTokens;
  // (positions beyond max_position_embeddings are allowed, as in transformers: RoPE extrapolates, quality may drop)
  const W = Hkv * Dh;
  // caches[l] = { k, v } [Bc, S, Hkv, Dh]; replaced (and the old ones freed) when rows are compacted
  let caches: Array<{ k: Tensor; v: Tensor }> = [];
  let state: DecodeState | null = null;
  try {
    // distinct prompts are prefilled once, together (left-padded to P), then their cache rows are gathered to
    // one row per sequence
    let { unique, uniqueOf } = distinctSequences(prompts);
    const rowBudget = Math.min(
      opts.prefillTokens ?? DEFAULT_PREFILL_TOKENS,
      passRowLimit(cfg, be.limits.maxStorageBufferBindingSize),
    );
    let matches = opts.reuse ? unique.map((p) => opts.reuse!.match(p)) : null;
    if (matches) {
      const rows = behindRows(
        unique.map((p) => p.length),
        matches.map((m) => m.length),
        rowBudget,
      );
      if (rows.behind > BEHIND_SHARE * rows.whole) matches = null;
    }
    // shortest first (behind kept prefixes: shortest rest first), so that a prefill pass pads its prompts only to
    // about their own length; only where the cache rows are gathered to the sequences anyway (shared prompts) or
    // there are several passes (behind kept prefixes), so all-distinct prompts in one pass take no copy
    const reordered =
      unique.length !== B ||
      (matches !== null &&
        unique.length * Math.max(...unique.map((p, u) => p.length - matches![u].length)) > rowBudget);
    if (reordered) {
      const size = (u: number) => unique[u].length - (matches?.[u].length ?? 0);
      const order = unique.map((_, u) => u).toSorted((a, b) => size(a) - size(b) || a - b);
      const rank: number[] = [];
      order.forEach((u, r) => (rank[u] = r));
      unique = order.map((u) => unique[u]);
      if (matches) matches = order.map((u) => matches![u]);
      uniqueOf = uniqueOf.map((u) => rank[u]);
    }
    const prefilled = matches
      ? await prefillBehind(be, cfg, w, unique, matches, opts.reuse!, P, S, rowBudget)
      : await prefillBatch(be, cfg, w, unique, P, S, prefillChunkPrompts(P, rowBudget), kvDtype);
    caches = prefilled.caches;
    // each sequence's choice after its prompt, from its unique prompt's logits row
    const first = await chooseAll(be, chooser, prefilled.logits, uniqueOf, Array.from(uniqueOf.keys()), 0, V).finally(
      () => be.free(prefilled.logits),
    );
    if (reordered) caches = compactCaches(be, caches, uniqueOf, S, W);
    const keyStart = Int32Array.from(prompts, (p) => P - p.length);
    // the tokens fed back so far, whose keys and values the cache holds behind each prompt
    const fedBack: number[][] = prompts.map(() => []);
    const kept = opts.keep ? new KeptKv(cfg.numLayers, W, opts.keepInto ?? null) : null;
    const keep = async (cacheRows: readonly number[], seqs: readonly number[]) =>
      kept?.take(
        be,
        caches,
        cacheRows,
        seqs.map((b) => ({ tokens: [...prompts[b], ...fedBack[b]], start: keyStart[b] })),
      );
    const fed: Array<number | null> = first;
    let produced = fed.filter((t) => t !== null).length;
    opts.onStep?.(produced);

    // decode: one token per live sequence per step. rows[r] = the sequence in cache row r; once half of the rows
    // have finished, the caches are compacted to the live rows so finished sequences cost nothing.
    let rows = Array.from({ length: B }, (_, b) => b);
    for (let step = 1; step < opts.maxNewTokens; step++) {
      const live = rows.filter((b) => fed[b] !== null);
      if (live.length === 0) break;
      if (live.length <= rows.length / 2) {
        const dropped = rows.filter((b) => fed[b] === null);
        await keep(
          dropped.map((b) => rows.indexOf(b)),
          dropped,
        );
        caches = compactCaches(
          be,
          caches,
          live.map((b) => rows.indexOf(b)),
          S,
          W,
        );
        rows = live;
        state?.free();
        state = null;
      }
      state ??= new DecodeState(
        be,
        cfg,
        w,
        Int32Array.from(rows, (b) => keyStart[b]),
      );
      const past = P + step - 1; // cache row of the token fed now
      be.upload(
        state.ids,
        Int32Array.from(rows, (b) => fed[b] ?? 0),
      );
      be.upload(
        state.pos,
        Int32Array.from(rows, (b) => past - keyStart[b]),
      );
      for (const b of rows) if (fed[b] !== null) fedBack[b].push(fed[b]);
      const logits = state.step(caches, past, S);
      const alive = rows.map((b) => fed[b] !== null);
      const chosen = await chooseAll(
        be,
        chooser,
        logits,
        rows.map((_b, r) => r),
        rows,
        step,
        V,
        alive,
        state.sampler,
      );
      rows.forEach((b, r) => {
        if (!alive[r]) return;
        fed[b] = chosen[r];
        if (fed[b] !== null) produced++;
      });
      opts.onStep?.(produced);
    }
    await keep(
      rows.map((_b, r) => r),
      rows,
    );
    return kept;
  } finally {
    state?.free();
    for (const c of caches) {
      be.free(c.k);
      be.free(c.v);
    }
  }
}

/** Prompts per prefill pass for prompts padded to P tokens under a token budget (at least 1). */
export function prefillChunkPrompts(P: number, prefillTokens = DEFAULT_PREFILL_TOKENS): number {
  if (!(prefillTokens >= 1)) throw new Error(`generate: prefillTokens must be at least 1, got ${prefillTokens}`);
  return Math.max(1, Math.floor(prefillTokens / P));
}
/** Replaces each cache in `caches` (in place) by one holding only cache rows `keep` (in that order), gathered with
 *  the embedding kernel over the cache viewed as a table of [Bc·S, W] rows; each old cache is freed as soon as its
 *  replacement is filled, so the peak is one extra cache. If an allocation fails partway, `caches` holds exactly the
 *  live tensors (replaced ones new, the rest old), so the caller frees each once and the allocation's error surfaces. */
function compactCaches(
  be: Backend,
  caches: Array<{ k: Tensor; v: Tensor }>,
  keep: readonly number[],
  S: number,
  W: number,
): Array<{ k: Tensor; v: Tensor }> {
  const Bn = keep.length;
  const rowIds = new Int32Array(Bn * S);
  keep.forEach((r, i) => {
    for (let j = 0; j < S; j++) rowIds[i * S + j] = r * S + j;
  });
  const ids = tensorFrom(be, [Bn * S], rowIds, 'cache.compact.ids');
  try {
    caches.forEach((c, l) => {
      for (const kind of ['k', 'v'] as const) {
        const src = c[kind];
        // every element is written by the gather below: no zero fill first
        const dst = be.alloc([Bn, S, src.shape[2], src.shape[3]], src.dtype, `cache.${kind}.${l}`, true);
        try {
          be.run('embedding', { t: { ids, table: src, out: dst }, p: { R: Bn * S, D: W } });
        } catch (err) {
          be.free(dst);
          throw err;
        }
        be.free(src);
        c[kind] = dst;
      }
    });
  } finally {
    be.free(ids);
  }
  return caches;
}
