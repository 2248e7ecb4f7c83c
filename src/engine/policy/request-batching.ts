// How EnginePolicy (engine-policy.ts) batches requests: grouped by adapter, packed into chunks within a budget of
// padded tokens, their per-token coefficients concatenated, and the targets a request overrides written into the
// packed batch. Coefficients given as a function of the log-probs are called per chunk with that chunk's forward.
import type { SequenceInput } from '../model/batch.ts';
import { contextOf, prefixSharingTokens } from '../model/prefix-score.ts';
import type { GradientRequest, ScoreRequest } from './policy.ts';

export function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, number[]> {
  const groups = new Map<K, number[]>();
  items.forEach((item, i) => {
    const k = key(item);
    const g = groups.get(k);
    if (g) g.push(i);
    else groups.set(k, [i]);
  });
  return groups;
}

/** Consecutive chunks whose (count × longest length) stays within `budget` (a longer single item goes alone). */
export function chunkByTokens(indices: readonly number[], length: (i: number) => number, budget: number): number[][] {
  const chunks: number[][] = [];
  let cur: number[] = [];
  let longest = 0;
  for (const i of indices) {
    const L = Math.max(longest, length(i));
    if (cur.length > 0 && (cur.length + 1) * L > budget) {
      chunks.push(cur);
      cur = [];
      longest = 0;
    }
    cur.push(i);
    longest = Math.max(longest, length(i));
  }
  if (cur.length > 0) chunks.push(cur);
  return chunks;
}

export function concat(parts: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * The chunk's coefficients in its packed order: concatenated when every request gives them, else a function of
 * the chunk's log-probs (GradientRequest.coef as a function: each such request gets its own slice and must answer
 * one coefficient per position).
 */
export function chunkCoefficients(
  requests: readonly GradientRequest[],
): Float32Array | ((logprobs: Float32Array) => Float32Array) {
  if (requests.every((r) => typeof r.coef !== 'function')) return concat(requests.map((r) => r.coef as Float32Array));
  return (logprobs) => {
    const parts: Float32Array[] = [];
    let at = 0;
    requests.forEach((r, k) => {
      const n = r.positions.length;
      const c = typeof r.coef === 'function' ? r.coef(logprobs.subarray(at, at + n)) : r.coef;
      if (c.length !== n)
        throw new Error(
          `accumulateGradients: request ${k} of a chunk gave ${c.length} coefficients for ${n} positions`,
        );
      parts.push(c);
      at += n;
    });
    return concat(parts);
  };
}

/** The token scored at each of a request's positions: tokens[position], or its ScoreRequest.targets. */
export function targetIds(r: ScoreRequest, index: number, vocabSize: number): Int32Array {
  const targets = Int32Array.from(r.positions, (p) => r.tokens[p]);
  overrideTargets(targets, 0, r, index, vocabSize);
  return targets;
}

/** ScoreRequest.targets: the token scored at each position when it is not tokens[position]. */
export function overrideTargets(
  targets: Int32Array,
  start: number,
  r: ScoreRequest,
  index: number,
  vocabSize: number,
): void {
  if (!r.targets) return;
  if (r.targets.length !== r.positions.length)
    throw new Error(`score: request ${index} has ${r.targets.length} targets for ${r.positions.length} positions`);
  r.targets.forEach((id, k) => {
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize)
      throw new Error(`score: request ${index}, target ${k}: id ${id} is outside the vocabulary [0, ${vocabSize})`);
    targets[start + k] = id;
  });
}

/** How a forward-only scoring call over `seqs` runs with shared contexts (model/prefix-score.ts): chunks of sequence
 *  indices, by context and then longest suffix first (each chunk's suffix pass within `maxBatchTokens` padded rows,
 *  sequences of one context kept together where they fit), or null when sharing would save less than a quarter of
 *  the tokens (or a sequence has no context to share). */
export function prefixSharingChunks(seqs: readonly SequenceInput[], maxBatchTokens: number): number[][] | null {
  if (seqs.length < 2 || seqs.some((s) => s.positions.length === 0 || s.positions[0] < 2)) return null;
  const { shared, plain } = prefixSharingTokens(seqs);
  if (shared > 0.75 * plain) return null;
  const keys = seqs.map((s) => contextOf(s).join(','));
  const suffix = seqs.map((s) => s.tokens.length - s.positions[0] + 1);
  const order = seqs
    .map((_, i) => i)
    .toSorted((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : suffix[b] - suffix[a] || a - b));
  return chunkByTokens(order, (i) => suffix[i], maxBatchTokens);
}
