// The token-level mask of the meta-action grammar (./grammar.ts): for the grammar state reached by the tokens drawn
// so far, the vocabulary ids whose decoded text keeps the answer valid, as the `sample` kernel's bitset (bit
// (i & 31) of word i >> 5). Per state the table is computed once, lazily, by walking every token's text through
// the grammar in sorted order: tokens that share a prefix with the previous one resume from the state after that
// prefix, and a rejected prefix skips every following token that shares it (a trie walk without building the trie).
// Length: a draw may only lead to a state whose shortest completion (in characters, each a token of its own) still
// fits the request's maxNewTokens with the end-of-turn token, so the answer is complete and valid whatever the
// logits and temperature, unless the cap is below the shortest answer. End-of-turn ids are allowed only in the
// accepting state, and then only they.
// Trained log-probs are the unmasked ones: the sampler draws from the masked, renormalised distribution (and reports
// that token's masked log-prob), but the trainer re-scores every rollout with Policy.score, which applies no mask,
// for pi_old, pi_ref and pi_theta alike. That is what the paper's stack does: vLLM's guided decoding (XGrammar)
// only shapes the draw, and verl / OpenRLHF recompute the old and current log-probs with the actor's plain forward.
// The ratio pi_theta / pi_old compares two unmasked probabilities, so it stays consistent; the forced tokens of the
// JSON structure get the episode's advantage like any other token.

import type { ChatTokenizer } from '../../../data/tokenizer.ts';
import type { TokenConstraint } from '../../../engine/policy/policy.ts';
import { ActionGrammar, REJECT, defaultGrammar } from './grammar.ts';

/**
 * Each id's text as the grammar sees it, or null for ids that never enter the answer: added / special tokens,
 * stop ids, ids beyond the tokenizer's vocabulary (a model's padded embedding rows), and ids whose text alone is
 * empty or not whole characters (a byte-level piece of a multi-byte character decodes to U+FFFD).
 */
export function tokenTexts(tokenizer: ChatTokenizer, vocabSize: number): Array<string | null> {
  const excluded = new Set([...(tokenizer.addedTokenIds ?? []), ...tokenizer.stopTokenIds]);
  return Array.from({ length: vocabSize }, (_, id) => {
    if (id >= tokenizer.vocabSize || excluded.has(id)) return null;
    const text = tokenizer.decode([id]);
    return text.length === 0 || text.includes('\uFFFD') ? null : text;
  });
}

/** The meta-action grammar over one vocabulary; implements the engine's TokenConstraint. */
export class ActionTokenMask implements TokenConstraint {
  readonly vocabSize: number;
  readonly words: number;
  private readonly order: Int32Array; // ids with a text, sorted by text (UTF-16 code units)
  private readonly lcp: Int32Array; // common prefix length with the previous id in `order`
  /** per state: the state after each id (REJECT if the id is not allowed there), computed on first use */
  private readonly dest = new Map<number, Int16Array>();
  private readonly masks = new Map<string, Uint32Array>();
  private readonly endMask: Uint32Array;
  private readonly maxDistance: number;

  constructor(
    private readonly texts: ReadonlyArray<string | null>,
    endIds: readonly number[],
    readonly grammar: ActionGrammar = defaultGrammar(),
  ) {
    this.vocabSize = texts.length;
    this.words = Math.ceil(this.vocabSize / 32);
    if (endIds.length === 0) throw new Error('json-actions: no end-of-turn id to end the answer with');
    this.endMask = new Uint32Array(this.words);
    for (const id of endIds) {
      if (!(id >= 0 && id < this.vocabSize))
        throw new Error(`json-actions: end-of-turn id ${id} is outside the vocabulary of ${this.vocabSize}`);
      this.endMask[id >>> 5] |= 1 << (id & 31);
    }
    const single = new Set(texts.filter((t): t is string => t !== null && t.length === 1));
    const missing = grammar.completionCharacters().filter((c) => !single.has(c));
    if (missing.length > 0)
      throw new Error(
        `json-actions: the vocabulary has no single-character token for ${missing.map((c) => JSON.stringify(c)).join(', ')}; the JSON answer cannot be guaranteed to finish`,
      );
    const ids = [];
    for (let i = 0; i < texts.length; i++) if (texts[i] !== null) ids.push(i);
    ids.sort((a, b) => (texts[a]! < texts[b]! ? -1 : texts[a]! > texts[b]! ? 1 : a - b));
    this.order = Int32Array.from(ids);
    this.lcp = new Int32Array(ids.length);
    for (let k = 1; k < ids.length; k++) {
      const a = texts[ids[k - 1]]!;
      const b = texts[ids[k]]!;
      let l = 0;
      while (l < a.length && l < b.length && a.charCodeAt(l) === b.charCodeAt(l)) l++;
      this.lcp[k] = l;
    }
    let m = 0;
    for (const d of grammar.distance) if (d < 1 << 30) m = Math.max(m, d);
    this.maxDistance = m;
  }

  /** Built from a chat tokenizer: its texts (tokenTexts) and its stop ids as the end of the answer. */
  static forTokenizer(tokenizer: ChatTokenizer, vocabSize: number): ActionTokenMask {
    return new ActionTokenMask(tokenTexts(tokenizer, vocabSize), tokenizer.stopTokenIds);
  }

  /**
   * The smallest maxNewTokens under which every answer drawn through this mask is complete: the first draw must
   * reach a state whose shortest completion (one token per character) and the end-of-turn token still fit.
   */
  smallestCap(): number {
    const dist = this.grammar.distance;
    let nearest = Infinity;
    for (const t of this.destinations(this.grammar.start)) if (t !== REJECT) nearest = Math.min(nearest, dist[t]);
    return nearest + 2;
  }

  /** The grammar state after `generated` (REJECT if some token was not allowed). */
  stateAfter(generated: readonly number[]): number {
    let s = this.grammar.start;
    for (const id of generated) {
      const t = this.texts[id];
      if (t === null || t === undefined) return REJECT;
      s = this.grammar.walk(s, t);
      if (s === REJECT) return REJECT;
    }
    return s;
  }

  allowed(generated: readonly number[], maxNewTokens: number): Uint32Array {
    const s = this.stateAfter(generated);
    if (s === REJECT)
      throw new Error(`json-actions: the ${generated.length} tokens drawn so far are not a prefix of a valid answer`);
    // the draw after this one must leave room for the rest: a content token now, distance more, then the end id,
    // all within maxNewTokens (the engine stops at maxNewTokens content tokens without an end id)
    return this.maskFor(s, maxNewTokens - 2 - generated.length);
  }

  /** The ids allowed in state `s` whose next state completes within `budget` more characters. */
  maskFor(s: number, budget: number): Uint32Array {
    if (this.grammar.isAccepting(s)) return this.endMask;
    const b = Math.max(-1, Math.min(budget, this.maxDistance));
    const key = `${s}:${b}`;
    let mask = this.masks.get(key);
    if (mask) return mask;
    const dest = this.destinations(s);
    const dist = this.grammar.distance;
    mask = new Uint32Array(this.words);
    let any = false;
    let nearest = Infinity;
    for (let id = 0; id < dest.length; id++) {
      const t = dest[id];
      if (t === REJECT) continue;
      nearest = Math.min(nearest, dist[t]);
      if (dist[t] <= b) {
        mask[id >>> 5] |= 1 << (id & 31);
        any = true;
      }
    }
    if (nearest === Infinity) throw new Error(`json-actions: no token continues the answer from grammar state ${s}`);
    if (!any) {
      // the cap is below the shortest answer: head for the end as fast as possible
      for (let id = 0; id < dest.length; id++)
        if (dest[id] !== REJECT && dist[dest[id]] === nearest) mask[id >>> 5] |= 1 << (id & 31);
    }
    this.masks.set(key, mask);
    return mask;
  }

  /** The state after each id from state `s` (REJECT where not allowed): the sorted walk. */
  private destinations(s: number): Int16Array {
    let dest = this.dest.get(s);
    if (dest) return dest;
    dest = new Int16Array(this.vocabSize).fill(REJECT);
    const g = this.grammar;
    let longest = 1;
    for (const t of this.texts) if (t !== null && t.length > longest) longest = t.length;
    const stack = new Int32Array(1 + longest);
    stack[0] = s;
    let valid = 0; // stack[0..valid] hold the states after the previous text's first `valid` characters
    let rejectedAt = Infinity; // the previous text's prefix of length rejectedAt + 1 was rejected
    for (let k = 0; k < this.order.length; k++) {
      const id = this.order[k];
      const text = this.texts[id]!;
      const l = this.lcp[k];
      if (l > rejectedAt) continue; // shares the rejected prefix
      rejectedAt = Infinity;
      let d = Math.min(l, valid);
      let cur = stack[d];
      for (; d < text.length; d++) {
        cur = g.step(cur, text[d]);
        if (cur === REJECT) break;
        stack[d + 1] = cur;
      }
      if (cur === REJECT) {
        rejectedAt = d;
        valid = d;
        continue;
      }
      valid = text.length;
      dest[id] = cur;
    }
    this.dest.set(s, dest);
    return dest;
  }
}
