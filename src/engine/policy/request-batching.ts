// How EnginePolicy (engine-policy.ts) batches requests: grouped by adapter, packed into chunks within a budget of
// padded tokens, their per-token coefficients concatenated, and the targets a request overrides written into the
// packed batch.
import type { ScoreRequest } from './policy.ts';

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
