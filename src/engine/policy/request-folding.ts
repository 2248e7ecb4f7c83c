// Scoring and training requests folded into those that contain them: a request whose tokens begin with all of
// another's tokens (same adapter) computes, causally, the same log-probs at the other's positions, so one forward
// (and backward) of the longer serves both. In a GRPO batch this happens where samples of one prompt agree: two
// episodes whose agent drew the same message, an episode that ended where another went on. The folded request scores
// the union of the positions; a position both score (with the same target) gets the sum of their coefficients, as
// the gradient of Σ coef·logp is linear in them, and a coefficient function (an on-policy step) gets its own
// positions' log-probs. Results are handed back per request.
import type { GradientRequest, ScoreRequest, ScoreResult } from './policy.ts';

/** Where each request went: requests folded[host[i]] holds request i's positions at indices at[i]. */
export interface Folding {
  folded: ScoreRequest[];
  host: Int32Array;
  at: Int32Array[];
}

/** The target a request scores at its k-th position. */
function targetAt(r: ScoreRequest, k: number): number {
  return r.targets ? r.targets[k] : r.tokens[r.positions[k]];
}

/** A trie of the hosts' tokens: the node a request's tokens lead to lists, in order, the hosts that begin with
 *  all of them (a host is longer than every request folded after it). */
interface Node {
  next: Map<number, Node>;
  hosts: number[];
}

const node = (): Node => ({ next: new Map(), hosts: [] });

function insert(root: Node, tokens: readonly number[], h: number): void {
  root.hosts.push(h);
  let at = root;
  for (const t of tokens) {
    let child = at.next.get(t);
    if (!child) at.next.set(t, (child = node()));
    child.hosts.push(h);
    at = child;
  }
}

/** The hosts that begin with all of `tokens`, in order. */
function containing(root: Node, tokens: readonly number[]): readonly number[] {
  let at: Node | undefined = root;
  for (const t of tokens) {
    at = at.next.get(t);
    if (!at) return [];
  }
  return at.hosts;
}

/** Folds every request into the longest one (of its adapter) whose tokens begin with all of its tokens and which
 *  scores any position both have with the same target. */
export function foldRequests(requests: readonly ScoreRequest[]): Folding {
  const order = requests
    .map((_, i) => i)
    .toSorted((a, b) => requests[b].tokens.length - requests[a].tokens.length || a - b);
  const hosts: Array<{ request: ScoreRequest; targets: Map<number, number>; members: number[] }> = [];
  const host = new Int32Array(requests.length);
  const tries = new Map<string | null, Node>(); // per adapter

  for (const i of order) {
    const r = requests[i];
    let trie = tries.get(r.adapter);
    if (!trie) tries.set(r.adapter, (trie = node()));
    const found =
      containing(trie, r.tokens).find((h) =>
        r.positions.every((p, k) => {
          const t = hosts[h].targets.get(p);
          return t === undefined || t === targetAt(r, k);
        }),
      ) ?? -1;
    let h = found;
    if (found < 0) {
      h = hosts.push({ request: r, targets: new Map(), members: [] }) - 1;
      insert(trie, r.tokens, h);
    }
    r.positions.forEach((p, k) => hosts[h].targets.set(p, targetAt(r, k)));
    hosts[h].members.push(i);
    host[i] = h;
  }
  const at: Int32Array[] = Array.from({ length: requests.length });
  const folded = hosts.map((h) => {
    const positions = [...h.targets.keys()].toSorted((a, b) => a - b);
    const index = new Map(positions.map((p, k) => [p, k]));
    for (const i of h.members) at[i] = Int32Array.from(requests[i].positions, (p) => index.get(p)!);
    const targets = positions.map((p) => h.targets.get(p)!);
    const own = h.request;
    const overridden = targets.some((t, k) => t !== own.tokens[positions[k]]);
    return {
      tokens: own.tokens,
      positions,
      adapter: own.adapter,
      ...(overridden ? { targets } : {}),
    };
  });
  return { folded, host, at };
}

/** The folded requests with each position's coefficients summed over the requests that score it. */
export function foldGradients(requests: readonly GradientRequest[], f: Folding): GradientRequest[] {
  return f.folded.map((r, j) => {
    const members = requests.map((_, i) => i).filter((i) => f.host[i] === j);
    const n = r.positions.length;
    const sum = (coefs: (i: number) => Float32Array | null) => {
      const out = new Float32Array(n);
      for (const i of members) {
        const c = coefs(i);
        if (c) f.at[i].forEach((k, m) => (out[k] += c[m]));
      }
      return out;
    };
    const fixed = members.every((i) => typeof requests[i].coef !== 'function');
    const coef = fixed
      ? sum((i) => requests[i].coef as Float32Array)
      : (logprobs: Float32Array) =>
          sum((i) => {
            const c = requests[i].coef;
            return typeof c === 'function' ? c(Float32Array.from(f.at[i], (k) => logprobs[k])) : c;
          });
    const entropy = members.some((i) => requests[i].entropyCoef);
    return { ...r, coef, ...(entropy ? { entropyCoef: sum((i) => requests[i].entropyCoef ?? null) } : {}) };
  });
}

/** Each request's results from its host's. */
export function unfoldResults(results: readonly ScoreResult[], f: Folding): ScoreResult[] {
  return Array.from(f.host, (j, i) => ({
    logprobs: Float32Array.from(f.at[i], (k) => results[j].logprobs[k]),
    entropy: Float32Array.from(f.at[i], (k) => results[j].entropy[k]),
  }));
}
