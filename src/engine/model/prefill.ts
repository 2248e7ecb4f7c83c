// The prefill of a decode call: distinct prompts, left-padded to a common length, run through every layer in
// passes bounded by a token budget; their keys and values are written into fresh KV caches and the next-token logits
// after each prompt are returned.
import type { Backend, Tensor } from '../backend.ts';
import type { ModelConfig } from './config.ts';
import type { ActiveWeights } from './decoder.ts';
import { TensorScope } from './device-ops.ts';
import { allocKvCache, type KvCacheDtype } from './kv-cache.ts';
import { layerStack } from './layer-stack.ts';

/** Prefill U prompts left-padded to P tokens, `chunkPrompts` prompts per pass (so the scratch of one pass is
 *  bounded by the token budget, not by U; a pass runs its prompts padded to its own longest, so prompts in order of
 *  length pad little): prompt u occupies rows [P - len_u, P) of its cache row, padding queries
 *  see no key (the attention kernel gives them o = 0). Each pass attends over its own keys and values, which are
 *  then copied into the caches at its prompts' rows; every prompt's arithmetic is the same whatever the chunking
 *  (rows are independent in every kernel), so the results are too. Returns caches [U, S, Hkv, Dh] per layer holding
 *  the prompts' roped keys and values, and the next-token logits [U, V] after each prompt. */
export async function prefillBatch(
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
  const W = cfg.numKvHeads * cfg.headDim;
  const D = cfg.hiddenSize;
  return prefillInto(be, cfg, w, U, S, kvDtype, (caches, last) => {
    for (let u0 = 0; u0 < U; u0 += chunkPrompts) {
      const chunk = prompts.slice(u0, u0 + chunkPrompts);
      // a pass pads its prompts to its own longest, Pc <= P, and its rows land at [P - Pc, P) of the caches
      const Pc = Math.max(...chunk.map((p) => p.length));
      const cs = new TensorScope(be);
      try {
        prefillChunk(
          be,
          cfg,
          w,
          cs,
          chunk,
          Pc,
          (l, k, v) => {
            be.run('copyRows', {
              t: { src: k, dst: caches[l].k },
              p: { B: chunk.length, T: Pc, W, Sdst: S, dstRow0: P - Pc, dstB0: u0 },
            });
            be.run('copyRows', {
              t: { src: v, dst: caches[l].v },
              p: { B: chunk.length, T: Pc, W, Sdst: S, dstRow0: P - Pc, dstB0: u0 },
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
  });
}

/** Fresh zeroed caches [U, S, Hkv, Dh] per layer and each prompt's last hidden state last[U, D], filled by `fill`
 *  (passes over the prompts), then the next-token logits from `last`: the frame of every prefill. The caches are
 *  freed if anything throws. */
export function prefillInto(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  U: number,
  S: number,
  kvDtype: KvCacheDtype,
  fill: (caches: ReadonlyArray<{ k: Tensor; v: Tensor }>, last: Tensor) => void,
): { caches: Array<{ k: Tensor; v: Tensor }>; logits: Tensor } {
  const { hiddenSize: D, numKvHeads: Hkv, headDim: Dh } = cfg;
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
    fill(caches, last);
    return { caches, logits: nextLogits(be, cfg, w, scope, last) };
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

/** The next-token logits [U, V] (the caller's to free) from each prompt's last hidden state last[U, D]: final norm
 *  and LM head. */
export function nextLogits(be: Backend, cfg: ModelConfig, w: ActiveWeights, scope: TensorScope, last: Tensor): Tensor {
  const U = last.shape[0];
  const { hiddenSize: D, vocabSize: V } = cfg;
  const hn = scope.alloc([U, D], 'prefill.hNorm');
  const rstd = scope.alloc([U], 'prefill.rstd');
  be.run('rmsnorm', { t: { x: last, w: w.params.finalNorm, y: hn, rstd }, p: { R: U, D, eps: cfg.rmsNormEps } });
  const logits = be.alloc([U, V], 'f32', 'prefill.logits');
  try {
    be.run('lmHead', { t: { h: hn, w: w.params.lmHead, logits }, p: { R: U, D, V } });
  } catch (err) {
    be.free(logits);
    throw err;
  }
  return logits;
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
  const cur = layerStack(be, cfg, w, scope, { B: U, T: P, tokens: ids, pos, keyStart }, 'prefill', (l, run) =>
    run({ kind: 'self', onKV: (k, v) => onKV(l, k, v) }),
  );
  const rows = scope.alloc([U, D], 'prefill.chunkLast');
  const lastRows = Int32Array.from({ length: U }, (_, u) => u * P + P - 1);
  be.run('embedding', {
    t: { ids: scope.from([U], lastRows, 'prefill.lastRows'), table: cur, out: rows },
    p: { R: U, D },
  });
  onLast(rows);
}
