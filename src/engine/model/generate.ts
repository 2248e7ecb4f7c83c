// Autoregressive decoding with a KV cache for a batch of prompts (e.g. a GRPO group of 8 sharing every
// decode step). Layout: each sequence's prompt is LEFT-aligned to a common length P inside a cache of
// S = P + maxNewTokens rows: sequence b's prompt sits at rows [P - len_b, P) and keyStart[b] = P - len_b masks
// the rows before it. Distinct prompts are prefilled once each, together in passes of at most `prefillTokens`
// padded tokens (bounding the prefill's scratch), and their keys/values gathered to every sequence that shares them.
// The caller decides each next token and when a sequence is done: from the logits row read back to the host
// (NextToken), or from a token drawn on the device by the catalog's `sample` kernel (DeviceSampler: only 16 bytes
// per sequence are read back per step). Finished rows are dropped from the caches once they are half of the batch.
import type { Backend, RepeatRecording, Tensor } from '../backend.ts';
import type { SamplingParams } from '../policy/policy.ts';
import type { ModelConfig } from './config.ts';
import type { ActiveWeights } from './decoder.ts';
import {
  FusedWorkspace,
  LayerWorkspace,
  layerForward,
  layerForwardFused,
  ropeFrequencies,
  type LayerContext,
} from './layer.ts';
import { readF32, tensorFrom, TensorScope } from './device-ops.ts';
import { allocKvCache, type KvCacheDtype } from './kv-cache.ts';

/** Called with the next-token logits [V] of sequence b at generation step `step` (0 = after the prompt).
 *  Returns the token to feed next, or null when the sequence is finished. */
export type NextToken = (b: number, logits: Float32Array, step: number) => number | null;

/** A token drawn on the device, with its log-prob and the entropy of its distribution at temperature 1. */
export interface DrawnToken {
  token: number;
  logp: number;
  entropy: number;
}

/** Draw every next token on the device with the `sample` kernel. */
export interface DeviceSampler {
  sampling: SamplingParams;
  /** sequence b draws with uniform01(sampling.seed, streams[b], step) */
  streams: readonly number[];
  /** Called with sequence b's drawn token at generation step `step`; returns the token to feed next, or null when
   *  the sequence is finished. */
  next(b: number, drawn: DrawnToken, step: number): number | null;
  /** The token mask of sequence b's draw at `step` (ceil(V / 32) words; the `sample` kernel's mask), or null for
   *  every token. Absent: no sequence is masked (the kernel's plain variant). */
  mask?(b: number, step: number): Uint32Array | null;
}

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
}

/** Runs prefill + decode; every token decision goes through `chooser` (a NextToken over host logits, or a
 *  DeviceSampler). */
export async function decodeBatch(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  prompts: readonly (readonly number[])[],
  chooser: NextToken | DeviceSampler,
  opts: DecodeOptions,
): Promise<void> {
  const B = prompts.length;
  if (B === 0 || opts.maxNewTokens <= 0) return;
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
    const uniqueOf: number[] = [];
    const unique: Array<readonly number[]> = [];
    const seen = new Map<string, number>();
    for (const p of prompts) {
      const key = p.join(',');
      let u = seen.get(key);
      if (u === undefined) {
        u = unique.length;
        seen.set(key, u);
        unique.push(p);
      }
      uniqueOf.push(u);
    }
    const prefilled = await prefillBatch(
      be,
      cfg,
      w,
      unique,
      P,
      S,
      prefillChunkPrompts(P, opts.prefillTokens),
      opts.kvDtype ?? 'f32',
    );
    caches = prefilled.caches;
    // each sequence's choice after its prompt, from its unique prompt's logits row
    const first = await chooseAll(be, chooser, prefilled.logits, uniqueOf, Array.from(uniqueOf.keys()), 0, V).finally(
      () => be.free(prefilled.logits),
    );
    if (unique.length !== B) caches = compactCaches(be, caches, uniqueOf, S, W);
    const keyStart = Int32Array.from(prompts, (p) => P - p.length);
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

/** Buffers of one decode step over Bc cache rows. */
class DecodeState {
  private readonly scope: TensorScope;
  readonly ids: Tensor; // [Bc] i32 token fed at this step
  readonly pos: Tensor; // [Bc] i32 its RoPE position
  private readonly ctx: LayerContext;
  private readonly ws: LayerWorkspace | FusedWorkspace;
  private readonly x: Tensor; // [Bc, D]
  private readonly y: Tensor; // [Bc, D]
  private readonly hn: Tensor; // [Bc, D]
  private readonly rstd: Tensor; // [Bc]
  private readonly logits: Tensor; // [Bc, V]
  /** the `sample` kernel's buffers for these rows (allocated once per state) */
  readonly sampler: SamplerBuffers;
  /** the step's kernels as recorded by Backend.repeat (later steps replay them) */
  private recording: RepeatRecording | null = null;

  constructor(
    private readonly be: Backend,
    private readonly cfg: ModelConfig,
    private readonly w: ActiveWeights,
    keyStart: Int32Array,
  ) {
    const Bc = keyStart.length;
    const { hiddenSize: D, vocabSize: V } = cfg;
    const scope = (this.scope = new TensorScope(be));
    try {
      this.ws = w.fused ? new FusedWorkspace(scope, cfg, Bc, 1) : new LayerWorkspace(scope, cfg, Bc, 1, w.lora);
      this.ids = scope.alloc([Bc], 'decode.ids', 'i32');
      this.pos = scope.alloc([Bc], 'decode.pos', 'i32');
      this.ctx = {
        be,
        cfg,
        pos: this.pos,
        keyStart: scope.from([Bc], keyStart, 'decode.keyStart'),
        invFreq: ropeFrequencies(scope, cfg),
      };
      this.x = scope.alloc([Bc, D], 'decode.x');
      this.y = scope.alloc([Bc, D], 'decode.y');
      this.hn = scope.alloc([Bc, D], 'decode.hNorm');
      this.rstd = scope.alloc([Bc], 'decode.rstd');
      this.logits = scope.alloc([Bc, V], 'decode.logits');
      this.sampler = {
        rowOf: scope.alloc([Bc], 'decode.sample.rowOf', 'i32'),
        stream: scope.alloc([Bc], 'decode.sample.stream', 'i32'),
        out: scope.alloc([Bc, 4], 'decode.sample.out', 'i32'),
        streamsOf: null,
        recording: null,
      };
    } catch (err) {
      scope.freeAll(); // out of memory partway: free what was allocated, the caller sees the allocation's error
      throw err;
    }
  }

  /** Embed ids, run every layer against the caches (writing this step's k, v at row `past`); the logits [Bc, V]
   *  (owned by this state) are recorded, not read. Steps after the first replay the first one's kernels where the
   *  backend records them (Backend.repeat): only the ids, positions and cache row change between steps. */
  step(caches: ReadonlyArray<{ k: Tensor; v: Tensor }>, past: number, S: number): Tensor {
    if (this.be.repeat) this.recording = this.be.repeat(this.recording, () => this.encode(caches, past, S));
    else this.encode(caches, past, S);
    return this.logits;
  }

  private encode(caches: ReadonlyArray<{ k: Tensor; v: Tensor }>, past: number, S: number): void {
    const { be, cfg, w } = this;
    const Bc = this.ws.B;
    const { hiddenSize: D, vocabSize: V } = cfg;
    be.run('embedding', { t: { ids: this.ids, table: w.params.embed, out: this.x }, p: { R: Bc, D } });
    let cur = this.x;
    let nxt = this.y;
    const ws = this.ws;
    for (let l = 0; l < cfg.numLayers; l++) {
      const attn = { kind: 'cache', k: caches[l].k, v: caches[l].v, past, S } as const;
      if (ws instanceof FusedWorkspace) {
        layerForwardFused(this.ctx, w.fused![l], cur, ws, attn); // in place: the residual adds are matmul epilogues
        continue;
      }
      const lora = w.lora ? { adapter: w.lora, layer: w.lora.layers[l] } : null;
      layerForward(this.ctx, w.params.layers[l], lora, cur, nxt, ws, attn);
      [cur, nxt] = [nxt, cur];
    }
    be.run('rmsnorm', {
      t: { x: cur, w: w.params.finalNorm, y: this.hn, rstd: this.rstd },
      p: { R: Bc, D, eps: cfg.rmsNormEps },
    });
    be.run('lmHead', { t: { h: this.hn, w: w.params.lmHead, logits: this.logits }, p: { R: Bc, D, V } });
  }

  free(): void {
    this.recording?.dispose();
    this.recording = null;
    this.sampler.recording?.dispose();
    this.sampler.recording = null;
    this.scope.freeAll();
  }
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
        const dst = be.alloc([Bn, S, src.shape[2], src.shape[3]], src.dtype, `cache.${kind}.${l}`);
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

/** Prefill U prompts left-padded to P tokens, `chunkPrompts` prompts per pass (so the scratch of one pass is
 *  bounded by the token budget, not by U): prompt u occupies rows [P - len_u, P) of its cache row, padding queries
 *  see no key (the attention kernel gives them o = 0). Each pass attends over its own keys and values, which are
 *  then copied into the caches at its prompts' rows; every prompt's arithmetic is the same whatever the chunking
 *  (rows are independent in every kernel), so the results are too. Returns caches [U, S, Hkv, Dh] per layer holding
 *  the prompts' roped keys and values, and the next-token logits [U, V] after each prompt. */
async function prefillBatch(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  prompts: ReadonlyArray<readonly number[]>,
  P: number,
  S: number,
  chunkPrompts: number,
  kvDtype: KvCacheDtype,
): Promise<{ caches: Array<{ k: Tensor; v: Tensor }>; logits: Tensor }> {
  const U = prompts.length;
  const { hiddenSize: D, vocabSize: V, numKvHeads: Hkv, headDim: Dh } = cfg;
  const W = Hkv * Dh;
  const caches: Array<{ k: Tensor; v: Tensor }> = [];
  const scope = new TensorScope(be);
  try {
    for (let l = 0; l < cfg.numLayers; l++) {
      const k = allocKvCache(be, [U, S, Hkv, Dh], kvDtype, `cache.k.${l}`);
      try {
        caches.push({ k, v: allocKvCache(be, [U, S, Hkv, Dh], kvDtype, `cache.v.${l}`) });
      } catch (err) {
        be.free(k);
        throw err;
      }
    }
    const last = scope.alloc([U, D], 'prefill.last'); // each prompt's last hidden state
    for (let u0 = 0; u0 < U; u0 += chunkPrompts) {
      const chunk = prompts.slice(u0, u0 + chunkPrompts);
      const cs = new TensorScope(be);
      try {
        prefillChunk(
          be,
          cfg,
          w,
          cs,
          chunk,
          P,
          (l, k, v) => {
            be.run('copyRows', {
              t: { src: k, dst: caches[l].k },
              p: { B: chunk.length, T: P, W, Sdst: S, dstRow0: 0, dstB0: u0 },
            });
            be.run('copyRows', {
              t: { src: v, dst: caches[l].v },
              p: { B: chunk.length, T: P, W, Sdst: S, dstRow0: 0, dstB0: u0 },
            });
          },
          (rows) =>
            be.run('copyRows', {
              t: { src: rows, dst: last },
              p: { B: 1, T: chunk.length, W: D, Sdst: U, dstRow0: u0 },
            }),
        );
      } finally {
        cs.freeAll();
      }
    }
    const hn = scope.alloc([U, D], 'prefill.hNorm');
    const rstd = scope.alloc([U], 'prefill.rstd');
    be.run('rmsnorm', { t: { x: last, w: w.params.finalNorm, y: hn, rstd }, p: { R: U, D, eps: cfg.rmsNormEps } });
    const logits = be.alloc([U, V], 'f32', 'prefill.logits'); // the caller's (freed after the first choice)
    try {
      be.run('lmHead', { t: { h: hn, w: w.params.lmHead, logits }, p: { R: U, D, V } });
    } catch (err) {
      be.free(logits);
      throw err;
    }
    return { caches, logits };
  } catch (err) {
    for (const c of caches) {
      be.free(c.k);
      be.free(c.v);
    }
    throw err;
  } finally {
    scope.freeAll();
  }
}

/** One prefill pass over Uc prompts left-padded to P: every layer over the pass's own keys (onKV(l, k, v) with
 *  layer l's roped keys and values [Uc, P, Hkv, Dh]), then onLast with the prompts' last hidden rows [Uc, D]. */
function prefillChunk(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  scope: TensorScope,
  prompts: ReadonlyArray<readonly number[]>,
  P: number,
  onKV: (l: number, k: Tensor, v: Tensor) => void,
  onLast: (rows: Tensor) => void,
): void {
  const U = prompts.length;
  const R = U * P;
  const D = cfg.hiddenSize;
  const keyStart = Int32Array.from(prompts, (p) => P - p.length);
  const ids = new Int32Array(R);
  const pos = new Int32Array(R);
  prompts.forEach((p, u) => {
    ids.set(p, u * P + keyStart[u]);
    for (let t = keyStart[u]; t < P; t++) pos[u * P + t] = t - keyStart[u];
  });
  const ctx: LayerContext = {
    be,
    cfg,
    pos: scope.from([R], pos, 'prefill.pos'),
    keyStart: scope.from([U], keyStart, 'prefill.keyStart'),
    invFreq: ropeFrequencies(scope, cfg),
  };
  const idsT = scope.from([R], ids, 'prefill.ids');
  let cur = scope.alloc([R, D], 'prefill.x');
  be.run('embedding', { t: { ids: idsT, table: w.params.embed, out: cur }, p: { R, D } });
  if (w.fused) {
    const fws = new FusedWorkspace(scope, cfg, U, P);
    w.fused.forEach((layer, l) =>
      layerForwardFused(ctx, layer, cur, fws, { kind: 'self', onKV: (k, v) => onKV(l, k, v) }),
    );
  } else {
    const ws = new LayerWorkspace(scope, cfg, U, P, w.lora);
    let nxt = scope.alloc([R, D], 'prefill.y');
    for (let l = 0; l < cfg.numLayers; l++) {
      const lora = w.lora ? { adapter: w.lora, layer: w.lora.layers[l] } : null;
      layerForward(ctx, w.params.layers[l], lora, cur, nxt, ws, { kind: 'self', onKV: (k, v) => onKV(l, k, v) });
      [cur, nxt] = [nxt, cur];
    }
  }
  const rows = scope.alloc([U, D], 'prefill.chunkLast');
  const lastRows = Int32Array.from({ length: U }, (_, u) => u * P + P - 1);
  be.run('embedding', {
    t: { ids: scope.from([U], lastRows, 'prefill.lastRows'), table: cur, out: rows },
    p: { R: U, D },
  });
  onLast(rows);
}

/** The `sample` kernel's index, stream and output tensors for a fixed set of rows. */
interface SamplerBuffers {
  rowOf: Tensor;
  stream: Tensor;
  out: Tensor;
  /** the sequences whose streams `stream` holds (uploaded once), or null */
  streamsOf: readonly number[] | null;
  /** the draw as recorded by Backend.repeat (a decode state's buffers draw once per step) */
  recording: RepeatRecording | null;
}

/** Sampler buffers for R rows (the caller frees them); none are left allocated when one allocation fails. */
function samplerBuffers(be: Backend, R: number): SamplerBuffers {
  const scope = new TensorScope(be);
  try {
    return {
      rowOf: scope.alloc([R], 'sample.rowOf', 'i32'),
      stream: scope.alloc([R], 'sample.stream', 'i32'),
      out: scope.alloc([R, 4], 'sample.out', 'i32'),
      streamsOf: null,
      recording: null,
    };
  } catch (err) {
    scope.freeAll();
    throw err;
  }
}

/** The choice of every row r (sequence seqOf[r], logits row rowOf[r] of `logits`) at `step`; rows with live[r]
 *  false are skipped (null). Host chooser: reads the logits back. Device sampler: draws with the `sample` kernel and
 *  reads back 16 bytes per row. */
async function chooseAll(
  be: Backend,
  chooser: NextToken | DeviceSampler,
  logits: Tensor,
  rowOf: readonly number[],
  seqOf: readonly number[],
  step: number,
  V: number,
  live: readonly boolean[] | null = null,
  buffers: SamplerBuffers | null = null,
): Promise<Array<number | null>> {
  const R = rowOf.length;
  if (typeof chooser === 'function') {
    const host = await readF32(be, logits);
    return rowOf.map((row, r) =>
      live && !live[r] ? null : chooser(seqOf[r], host.subarray(row * V, (row + 1) * V), step),
    );
  }
  const owned = buffers === null;
  const buf: SamplerBuffers = buffers ?? samplerBuffers(be, R);
  try {
    if (buf.streamsOf !== seqOf) {
      be.upload(buf.rowOf, Int32Array.from(rowOf));
      be.upload(
        buf.stream,
        Int32Array.from(seqOf, (b) => chooser.streams[b]),
      );
      buf.streamsOf = seqOf;
    }
    const s = chooser.sampling;
    const words = uploadMasks(be, chooser, seqOf, live, step, V);
    const draw = () =>
      be.run('sample', {
        t: { logits, rowOf: buf.rowOf, stream: buf.stream, out: buf.out, ...(words ? { mask: words } : {}) },
        p: {
          R,
          L: logits.shape[0],
          V,
          temperature: s.temperature,
          topK: s.topK,
          topP: s.topP,
          seed: s.seed,
          counter: step,
        },
      });
    try {
      // a decode state's buffers draw at every step: only the step counter changes (Backend.repeat)
      if (!owned && be.repeat) buf.recording = be.repeat(buf.recording, draw);
      else draw();
    } finally {
      if (words) be.free(words);
    }
    const raw = await be.download(buf.out);
    if (!(raw instanceof Int32Array))
      throw new Error(`generate: sample output is ${raw.constructor.name}, expected Int32Array`);
    const f = new Float32Array(raw.buffer, raw.byteOffset, raw.length);
    return rowOf.map((_row, r) =>
      live && !live[r]
        ? null
        : chooser.next(seqOf[r], { token: raw[r * 4], logp: f[r * 4 + 1], entropy: f[r * 4 + 2] }, step),
    );
  } finally {
    if (owned) for (const t of [buf.rowOf, buf.stream, buf.out]) be.free(t);
  }
}

/** The rows' token masks [R, ceil(V / 32)] on the device, or null when no live row is masked (rows without a mask,
 *  and finished rows, allow every token). */
function uploadMasks(
  be: Backend,
  chooser: DeviceSampler,
  seqOf: readonly number[],
  live: readonly boolean[] | null,
  step: number,
  V: number,
): Tensor | null {
  if (!chooser.mask) return null;
  const W = Math.ceil(V / 32);
  const words = new Int32Array(seqOf.length * W).fill(-1);
  let any = false;
  seqOf.forEach((b, r) => {
    if (live && !live[r]) return;
    const m = chooser.mask!(b, step);
    if (m === null) return;
    if (m.length !== W)
      throw new Error(
        `generate: the token mask of sequence ${b} has ${m.length} words, expected ceil(${V} / 32) = ${W}`,
      );
    words.set(new Int32Array(m.buffer, m.byteOffset, W), r * W);
    any = true;
  });
  if (!any) return null;
  return tensorFrom(be, [seqOf.length, W], words, 'sample.mask');
}
