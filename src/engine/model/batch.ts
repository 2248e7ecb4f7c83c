// Host-side packing of token sequences into the padded [B, T] layout the decoder runs on.
// Training and scoring use RIGHT padding (every query sees at least itself, no masking needed, padded rows get
// zero gradient); rows whose log-prob is wanted are gathered into a compact list so the LM head only runs there.

export interface SequenceInput {
  tokens: readonly number[];
  /** indices t >= 1 whose log p(tokens[t] | tokens[<t]) is wanted, ascending */
  positions: readonly number[];
}

export interface SequenceBatch {
  B: number;
  T: number;
  /** [B*T] token ids (0 in padding) */
  ids: Int32Array;
  /** [B*T] RoPE positions */
  pos: Int32Array;
  /** [B] first visible key row (0: right padding) */
  keyStart: Int32Array;
  /** [Rq] row b*T + t - 1 whose hidden state predicts tokens[t] */
  selectedRows: Int32Array;
  /** [Rq] tokens[t] */
  targets: Int32Array;
  /** per sequence, where its selected rows start in selectedRows ([B+1]) */
  selectedStart: Int32Array;
}

export function packSequences(seqs: readonly SequenceInput[], vocabSize: number): SequenceBatch {
  if (seqs.length === 0) throw new Error('packSequences: empty batch');
  const B = seqs.length;
  let T = 0;
  let Rq = 0;
  seqs.forEach((s, b) => {
    if (s.tokens.length === 0) throw new Error(`sequence ${b}: no tokens`);
    T = Math.max(T, s.tokens.length);
    Rq += s.positions.length;
  });
  const ids = new Int32Array(B * T);
  const pos = new Int32Array(B * T);
  const selectedRows = new Int32Array(Rq);
  const targets = new Int32Array(Rq);
  const selectedStart = new Int32Array(B + 1);
  let q = 0;
  seqs.forEach((s, b) => {
    checkSequence(s, b, vocabSize);
    selectedStart[b] = q;
    ids.set(s.tokens, b * T);
    for (let t = 0; t < T; t++) pos[b * T + t] = t;
    for (const p of s.positions) {
      selectedRows[q] = b * T + p - 1;
      targets[q] = s.tokens[p];
      q++;
    }
  });
  selectedStart[B] = q;
  return { B, T, ids, pos, keyStart: new Int32Array(B), selectedRows, targets, selectedStart };
}

/** Throws, naming sequence `b`, unless every token id lies in the vocabulary and the positions are ascending
 *  integers in [1, tokens.length). */
export function checkSequence(s: SequenceInput, b: number, vocabSize: number): void {
  s.tokens.forEach((id, t) => {
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize) {
      throw new Error(`sequence ${b}, token ${t}: id ${id} is outside the vocabulary [0, ${vocabSize})`);
    }
  });
  let prev = 0;
  for (const p of s.positions) {
    if (!Number.isInteger(p) || p < 1 || p >= s.tokens.length || p <= prev) {
      throw new Error(`sequence ${b}: position ${p} must be an ascending integer in [1, ${s.tokens.length})`);
    }
    prev = p;
  }
}

/** The distinct token lists of `seqs` in order of first appearance, and which one each sequence is. */
export function distinctSequences(seqs: ReadonlyArray<readonly number[]>): {
  unique: Array<readonly number[]>;
  uniqueOf: number[];
} {
  const unique: Array<readonly number[]> = [];
  const uniqueOf: number[] = [];
  const seen = new Map<string, number>();
  for (const s of seqs) {
    const key = s.join(',');
    let u = seen.get(key);
    if (u === undefined) {
      u = unique.length;
      seen.set(key, u);
      unique.push(s);
    }
    uniqueOf.push(u);
  }
  return { unique, uniqueOf };
}

/** Group rows by token id for embeddingBackward: unique ids, CSR row lists. */
export function groupRowsById(ids: Int32Array): { uniqueIds: Int32Array; rowStart: Int32Array; rowList: Int32Array } {
  const order = Array.from(ids.keys()).toSorted((a, b) => ids[a] - ids[b] || a - b);
  const unique: number[] = [];
  const starts: number[] = [];
  order.forEach((row, i) => {
    if (i === 0 || ids[row] !== ids[order[i - 1]]) {
      unique.push(ids[row]);
      starts.push(i);
    }
  });
  starts.push(order.length);
  return { uniqueIds: Int32Array.from(unique), rowStart: Int32Array.from(starts), rowList: Int32Array.from(order) };
}
