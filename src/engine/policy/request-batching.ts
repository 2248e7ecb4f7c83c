// How EnginePolicy (engine-policy.ts) batches requests: grouped by adapter, packed into chunks within a budget of
// padded tokens, their per-token coefficients concatenated, and the targets a request overrides written into the
// packed batch. Coefficients given as a function of the log-probs are called per chunk with that chunk's forward.
import type { SequenceInput } from '../model/batch.ts';
import { contextOf } from '../model/prefix-score.ts';
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

/** The padded rows (B·T summed over chunks) of running sequences `indices` whole, longest first in chunks of at most
 *  `maxBatchTokens` padded rows, as EnginePolicy does. */
export function wholeRows(seqs: readonly SequenceInput[], indices: readonly number[], maxBatchTokens: number): number {
  const length = (i: number) => seqs[i].tokens.length;
  const byLength = indices.toSorted((a, b) => length(b) - length(a) || a - b);
  return chunkByTokens(byLength, length, maxBatchTokens).reduce((s, c) => s + c.length * length(c[0]), 0);
}

/** How a call over `seqs` runs with shared contexts (model/prefix-score.ts, model/prefix-train.ts): the sequences
 *  whose context (the tokens before the last one in front of the first scored position) at least one other sequence
 *  has, in chunks of longest suffix first (each chunk's suffix pass within `maxBatchTokens` padded rows; a chunk runs
 *  each of its distinct contexts once, padded to its longest), and the others (`rest`: run whole). Null when no
 *  context is shared, or when the plan's padded rows (contexts and suffixes, and `rest` run whole) would be more than
 *  85% of running every sequence whole. */
export function prefixSharingPlan(
  seqs: readonly SequenceInput[],
  maxBatchTokens: number,
): { chunks: number[][]; rest: number[] } | null {
  const keys = seqs.map((s) => (s.positions.length > 0 && s.positions[0] >= 2 ? contextOf(s).join(',') : null));
  const count = new Map<string, number>();
  for (const k of keys) if (k !== null) count.set(k, (count.get(k) ?? 0) + 1);
  const isShared = (i: number) => keys[i] !== null && count.get(keys[i]!)! >= 2;
  const all = seqs.map((_, i) => i);
  const shared = all.filter(isShared);
  if (shared.length === 0) return null;
  const context = (i: number) => seqs[i].positions[0] - 1;
  const suffix = (i: number) => seqs[i].tokens.length - context(i);
  const order = shared.toSorted(
    (a, b) => suffix(b) - suffix(a) || (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0) || a - b,
  );
  const { chunks, rows: sharedRows } = cheapestChunks(order, suffix, (i) => keys[i]!, context, maxBatchTokens);
  const rest = all.filter((i) => !isShared(i));
  const rows = sharedRows + wholeRows(seqs, rest, maxBatchTokens);
  if (rows > 0.85 * wholeRows(seqs, all, maxBatchTokens)) return null;
  return { chunks, rest };
}

/** Padded rows a chunk costs beyond its contexts and suffixes: the kernels of one more pass. */
const CHUNK_ROWS = 64;

/**
 * The split of `order` (longest suffix first) into consecutive chunks with the fewest padded rows in all: a chunk
 * of sequences i..j runs each of its distinct contexts padded to the longest (contexts × longest context) and its
 * suffixes padded to the first's (count × suffix(order[i])), plus CHUNK_ROWS; its suffix rows within `maxBatchTokens`
 * (a single sequence always fits). Dynamic programming over the end of the last chunk, O(n²).
 */
function cheapestChunks(
  order: readonly number[],
  suffix: (i: number) => number,
  key: (i: number) => string,
  context: (i: number) => number,
  maxBatchTokens: number,
): { chunks: number[][]; rows: number } {
  const n = order.length;
  const best = new Float64Array(n + 1).fill(Infinity); // best[j]: rows of order[0..j) in chunks
  const from = new Int32Array(n + 1); // where the last chunk of best[j] starts
  best[0] = 0;
  for (let i = 0; i < n; i++) {
    if (best[i] === Infinity) continue;
    const seen = new Set<string>();
    let longestContext = 0;
    for (let j = i; j < n; j++) {
      if (j > i && (j - i + 1) * suffix(order[i]) > maxBatchTokens) break;
      seen.add(key(order[j]));
      longestContext = Math.max(longestContext, context(order[j]));
      const cost = best[i] + seen.size * longestContext + (j - i + 1) * suffix(order[i]) + CHUNK_ROWS;
      if (cost < best[j + 1]) {
        best[j + 1] = cost;
        from[j + 1] = i;
      }
    }
  }
  const chunks: number[][] = [];
  for (let j = n; j > 0; j = from[j]) chunks.unshift(order.slice(from[j], j));
  return { chunks, rows: best[n] - CHUNK_ROWS * chunks.length };
}
