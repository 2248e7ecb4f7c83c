// Scoring (log-probs and entropies, no backward) of sequences that share their context: a GRPO group's G
// completions of one prompt are G rows whose tokens before the first scored position are the same. Each distinct
// context runs through the layers once (prefill.ts, into KV caches), its cache rows are copied to every sequence
// that has it, and only each sequence's own tokens (from the last context token on) run through the layers against
// that cache, as a decode step of several tokens does. The work of the context is paid once per group instead of
// once per row: for G 8 and a prompt of several times the completion's length, most of a reference pass.
// Row by row the arithmetic is the plain forward's (runSequences) except where a kernel picks another code path for
// another number of rows (few-row matmuls), so log-probs agree to rounding.
//   context c_b = positions[0] - 1 tokens (the hidden state at token c_b predicts positions[0]): cached
//   suffix   tokens[c_b ..]: run, right-padded to Ts, at cache rows [P, P + Ts) behind the context, which sits
//            left-aligned at rows [P - c_b, P) (keyStart P - c_b masks the rows before it)
import type { Backend, Tensor } from '../backend.ts';
import { checkSequence, distinctSequences, type SequenceInput } from './batch.ts';
import type { ModelConfig } from './config.ts';
import type { ActiveWeights, SequenceResult } from './decoder.ts';
import { headLogprobs } from './decoder.ts';
import { TensorScope } from './device-ops.ts';
import { layerStack } from './layer-stack.ts';
import { prefillBatch } from './prefill.ts';
import { prefillChunkPrompts } from './generate.ts';

/** A sequence to score: tokens, ascending positions (>= 2, so its context is not empty), and the token scored at
 *  each position. */
export interface PrefixScoreInput extends SequenceInput {
  targets: Int32Array;
}

/** Context (tokens before the last one in front of the first scored position) of a sequence. */
export function contextOf(s: SequenceInput): readonly number[] {
  return s.tokens.slice(0, s.positions[0] - 1);
}

/** Tokens the layers run for `seqs` with shared contexts run once, and without (every row whole). */
export function prefixSharingTokens(seqs: readonly SequenceInput[]): { shared: number; plain: number } {
  const seen = new Set<string>();
  let shared = 0;
  let plain = 0;
  for (const s of seqs) {
    plain += s.tokens.length;
    if (s.positions.length === 0) continue;
    const c = contextOf(s);
    const key = c.join(',');
    if (!seen.has(key)) {
      seen.add(key);
      shared += c.length;
    }
    shared += s.tokens.length - c.length;
  }
  return { shared, plain };
}

/** The layout of sequences that share contexts, for the passes that run each distinct context once: the distinct
 *  contexts and which one each sequence has, the longest context P and own part Ts (S = P + Ts cache rows), and the
 *  own parts' pass [B·Ts]: tokens right-padded, RoPE positions c_b + t, keyStart P - c_b, the rows whose hidden
 *  state predicts each scored position with its target, and where each sequence's rows start ([B+1]). Throws, naming
 *  `caller` and the sequence, when a sequence has no context or a token or position is out of range. */
export function sharedPrefixLayout(seqs: readonly PrefixScoreInput[], vocabSize: number, caller: string) {
  seqs.forEach((s, b) => {
    if (s.positions.length === 0 || s.positions[0] < 2)
      throw new Error(`${caller}: sequence ${b} has no context before its first scored position`);
    checkSequence(s, b, vocabSize);
  });
  const B = seqs.length;
  const { unique: contexts, uniqueOf } = distinctSequences(seqs.map(contextOf));
  const P = Math.max(...contexts.map((c) => c.length));
  const Ts = Math.max(...seqs.map((s, b) => s.tokens.length - contexts[uniqueOf[b]].length));
  const R = B * Ts;
  const tokens = new Int32Array(R);
  const pos = new Int32Array(R);
  const keyStart = new Int32Array(B);
  let Rq = 0;
  for (const s of seqs) Rq += s.positions.length;
  const selected = new Int32Array(Rq);
  const targets = new Int32Array(Rq);
  const starts = new Int32Array(B + 1);
  let q = 0;
  seqs.forEach((s, b) => {
    const c = contexts[uniqueOf[b]].length;
    keyStart[b] = P - c;
    for (let t = 0; t < Ts; t++) {
      tokens[b * Ts + t] = t < s.tokens.length - c ? s.tokens[c + t] : 0;
      pos[b * Ts + t] = c + t;
    }
    starts[b] = q;
    s.positions.forEach((p, k) => {
      selected[q] = b * Ts + (p - 1 - c);
      targets[q++] = s.targets[k];
    });
  });
  starts[B] = q;
  return { contexts, uniqueOf, P, Ts, S: P + Ts, tokens, pos, keyStart, selected, targets, starts };
}

/** Log-probs and entropies of every sequence's positions (softmax(logits / temperature)), the contexts run once. */
export async function scoreSharedPrefixes(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  seqs: readonly PrefixScoreInput[],
  temperature: number,
  prefillTokens?: number,
): Promise<SequenceResult[]> {
  const B = seqs.length;
  const { numKvHeads: Hkv, headDim: Dh } = cfg;
  const W = Hkv * Dh;
  const { contexts, uniqueOf, P, Ts, S, tokens, pos, keyStart, selected, targets, starts } = sharedPrefixLayout(
    seqs,
    cfg.vocabSize,
    'scoreSharedPrefixes',
  );
  const scope = new TensorScope(be);
  const caches: Array<{ k: Tensor; v: Tensor }> = [];
  try {
    // the distinct contexts into caches [U, S, Hkv, Dh] (rows [P - c_u, P)), then one cache row per sequence
    const prefilled = await prefillBatch(be, cfg, w, contexts, P, S, prefillChunkPrompts(P, prefillTokens), 'f32');
    be.free(prefilled.logits);
    const rowIds = new Int32Array(B * S);
    uniqueOf.forEach((u, b) => {
      for (let j = 0; j < S; j++) rowIds[b * S + j] = u * S + j;
    });
    const ids = scope.from([B * S], rowIds, 'prefix.cacheRows');
    try {
      for (const c of prefilled.caches) {
        const k = be.alloc([B, S, Hkv, Dh], 'f32', 'prefix.cache.k', true);
        let v: Tensor;
        try {
          v = be.alloc([B, S, Hkv, Dh], 'f32', 'prefix.cache.v', true);
        } catch (err) {
          be.free(k);
          throw err;
        }
        caches.push({ k, v });
        // every row: the context's rows, and (overwritten by the suffix pass) the rows behind it
        be.run('embedding', { t: { ids, table: c.k, out: k }, p: { R: B * S, D: W } });
        be.run('embedding', { t: { ids, table: c.v, out: v }, p: { R: B * S, D: W } });
      }
    } finally {
      for (const c of prefilled.caches) {
        be.free(c.k);
        be.free(c.v);
      }
    }

    // the suffixes, right-padded to Ts, at positions c_b + t behind their contexts
    const cur = layerStack(be, cfg, w, scope, { B, T: Ts, tokens, pos, keyStart }, 'prefix', (l, run) =>
      run({ kind: 'cache', k: caches[l].k, v: caches[l].v, past: P, S }),
    );
    const head = await headLogprobs(be, cfg, w, scope, cur, selected, targets, temperature);
    return seqs.map((_, b) => ({
      logprobs: head.logprobs.slice(starts[b], starts[b + 1]),
      entropy: head.entropy.slice(starts[b], starts[b + 1]),
    }));
  } finally {
    for (const c of caches) {
      be.free(c.k);
      be.free(c.v);
    }
    scope.freeAll();
  }
}
