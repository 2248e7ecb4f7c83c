// Keys and values a decode call keeps for the next one. In a multi-turn rollout an agent's next prompt starts with
// its previous prompt and the tokens it drew (then the other agent's turn and the chat template's markers), so the
// next prefill needs to run only the tokens behind the longest prefix already computed (prefill-behind.ts).
// A store holds, per sequence of the call that made it, its tokens (the prompt and each drawn token that was fed
// back) and their keys and values, on the host: they cost no device (or WebAssembly heap) memory between calls, and
// a later call uploads only the rows it reads. The rows are only valid for the weights that computed them: the
// owner (EnginePolicy) drops its stores when the weights change, and hands their arrays back (release) to be read
// into again.
//   per call that kept and layer: k, v [Σ n, Hkv·Dh] f32 on the host (n = a sequence's tokens), all of one call's
//   in one host array
import type { Backend, Tensor } from '../backend.ts';
import { downloadInto, tensorFrom } from './device-ops.ts';
import type { HostFloats } from './host-floats.ts';

/** One kept sequence: its tokens, and per layer its keys and values: rows [at, at + n) of k[l], v[l] ([*, W]
 *  arrays shared by the sequences kept together). */
export interface KeptSequence {
  tokens: readonly number[];
  at: number;
  k: Float32Array[];
  v: Float32Array[];
}

/** Where a prompt's longest kept prefix lies: sequence `slot`'s first `length` tokens (slot -1, length 0: none). */
export interface KeptMatch {
  slot: number;
  length: number;
}

/** The host bytes a multi-turn run keeps by default on the CPU and WASM backends (rl/policy-setup.ts, rl/plan.ts). */
export const DEFAULT_KEEP_KV_BYTES = 64 * 1024 * 1024;

export class KeptKv {
  readonly sequences: KeptSequence[] = [];
  /** the host arrays the rows were read into, one per take() */
  private arrays: Float32Array[] = [];

  /** A store for the keys and values of `layers` layers of W = Hkv·Dh values a row; its host arrays come from
   *  `hostFloats` when given (else new ones). */
  constructor(
    readonly layers: number,
    readonly W: number,
    private readonly hostFloats: HostFloats | null = null,
  ) {}

  /** Empties the store and returns its host arrays (for HostFloats.give): nothing may read its rows afterwards. */
  release(): Float32Array[] {
    const arrays = this.arrays;
    this.arrays = [];
    this.sequences.length = 0;
    return arrays;
  }

  /** Host bytes of the kept keys and values. */
  get bytes(): number {
    return this.sequences.reduce((s, q) => s + 2 * this.layers * q.tokens.length * this.W * 4, 0);
  }

  /** Reads the rows of sequences kept in a decode call's layer caches [Bc, S, Hkv, Dh]: `seqs[i]`'s tokens sit at
   *  rows [start_i, start_i + n_i) of cache row `rows[i]`. Per layer, k and v are gathered on the device to one
   *  tensor [Σ n_i, Hkv, Dh] and read back into one host array for the call. */
  async take(
    be: Backend,
    caches: ReadonlyArray<{ k: Tensor; v: Tensor }>,
    rows: readonly number[],
    seqs: ReadonlyArray<{ tokens: readonly number[]; start: number }>,
  ): Promise<void> {
    if (rows.length === 0) return;
    if (rows.length !== seqs.length) throw new Error('KeptKv.take: one sequence per cache row');
    if (caches.length !== this.layers) throw new Error(`KeptKv.take: ${caches.length} layers, ${this.layers} kept`);
    const S = caches[0].k.shape[1];
    const n = seqs.reduce((sum, q) => sum + q.tokens.length, 0);
    const rowIds = new Int32Array(n);
    const kept: KeptSequence[] = [];
    let at = 0;
    seqs.forEach((q, i) => {
      for (let j = 0; j < q.tokens.length; j++) rowIds[at + j] = rows[i] * S + q.start + j;
      kept.push({ tokens: q.tokens, at, k: [], v: [] });
      at += q.tokens.length;
    });
    if (n === 0) return;
    const ids = tensorFrom(be, [n], rowIds, 'kept.ids');
    let packed: Tensor | null = null;
    const floats = n * this.W; // one layer's k (or v)
    const host = this.hostFloats?.take(2 * this.layers * floats) ?? new Float32Array(2 * this.layers * floats);
    this.arrays.push(host);
    try {
      packed = be.alloc([n, this.W], 'f32', 'kept.rows', true); // every row written by the gather below
      let offset = 0;
      for (const c of caches) {
        for (const kind of ['k', 'v'] as const) {
          be.run('embedding', { t: { ids, table: c[kind], out: packed }, p: { R: n, D: this.W } });
          const rowsOut = host.subarray(offset, offset + floats);
          await downloadInto(be, packed, rowsOut);
          for (const q of kept) q[kind].push(rowsOut);
          offset += floats;
        }
      }
    } finally {
      be.free(ids);
      if (packed) be.free(packed);
    }
    this.sequences.push(...kept);
  }

  /** The sequence holding the longest prefix of `prompt`, leaving at least its last token to run (its logits
   *  choose the first new token). */
  match(prompt: readonly number[]): KeptMatch {
    let best: KeptMatch = { slot: -1, length: 0 };
    const most = prompt.length - 1;
    this.sequences.forEach((s, slot) => {
      const limit = Math.min(most, s.tokens.length);
      let m = 0;
      while (m < limit && s.tokens[m] === prompt[m]) m++;
      if (m > best.length) best = { slot, length: m };
    });
    return best;
  }
}
