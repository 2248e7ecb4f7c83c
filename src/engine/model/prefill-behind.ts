// The prefill of prompts whose first tokens have keys and values in a kept store (kv-keep.ts): only the last
// tokens of each prompt run through the layers, against a cache holding the kept rows before them, as a decode step
// of several tokens does. The result is prefill.ts's: caches [U, S, Hkv, Dh] per layer with prompt u at rows
// [P - len_u, P), and the next-token logits [U, V]. A pass of Uc prompts runs the last Ts tokens of each (Ts: the
// pass's longest rest behind a kept prefix; a prompt with a shorter rest runs some of its kept tokens again, one
// shorter than Ts is left-padded), at rows [P - Ts, P) of its cache, after the kept rows of its first len_u - Ts
// tokens are uploaded to rows [P - len_u, P - Ts). A pass of every prompt runs on the decode caches themselves;
// passes of fewer use a pass cache [Uc, P] per layer (one layer at a time), copied to their sequences' caches.
// Row by row the arithmetic is a decode step's (the kept rows were computed by the prefill and decode steps before),
// so logits agree with a whole prefill's to rounding.
import type { Backend, Tensor } from '../backend.ts';
import type { ModelConfig } from './config.ts';
import type { ActiveWeights } from './decoder.ts';
import { TensorScope } from './device-ops.ts';
import type { KeptKv, KeptMatch } from './kv-keep.ts';
import { layerStack } from './layer-stack.ts';
import { prefillInto } from './prefill.ts';

/** Prompts per pass in order, each pass at most `rowBudget` padded suffix rows (at least one prompt). */
export function behindPasses(suffixes: readonly number[], rowBudget: number): Array<[number, number]> {
  const passes: Array<[number, number]> = [];
  let u0 = 0;
  while (u0 < suffixes.length) {
    let u1 = u0 + 1;
    let Ts = suffixes[u0];
    while (u1 < suffixes.length && (u1 + 1 - u0) * Math.max(Ts, suffixes[u1]) <= rowBudget) {
      Ts = Math.max(Ts, suffixes[u1]);
      u1++;
    }
    passes.push([u0, u1]);
    u0 = u1;
  }
  return passes;
}

/** Padded rows the layers run for prompts of `lengths` with `matched` kept tokens, behind the kept prefixes and
 *  (prefill.ts, prompts in order of length) whole, for passes of at most `rowBudget` rows. */
export function behindRows(
  lengths: readonly number[],
  matched: readonly number[],
  rowBudget: number,
): { behind: number; whole: number } {
  const padded = (sizes: number[]) => {
    sizes.sort((a, b) => a - b);
    return behindPasses(sizes, rowBudget).reduce((s, [u0, u1]) => s + (u1 - u0) * sizes[u1 - 1], 0);
  };
  return { behind: padded(lengths.map((n, u) => n - matched[u])), whole: padded([...lengths]) };
}

/** Prefill of `prompts` (left-aligned to P in caches of S rows) behind `matches` in `kept`; prompts in order of
 *  the length of their rest pad least. */
export async function prefillBehind(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  prompts: ReadonlyArray<readonly number[]>,
  matches: readonly KeptMatch[],
  kept: KeptKv,
  P: number,
  S: number,
  rowBudget: number,
): Promise<{ caches: Array<{ k: Tensor; v: Tensor }>; logits: Tensor }> {
  const rests = prompts.map((p, u) => p.length - matches[u].length);
  return prefillInto(be, cfg, w, prompts.length, S, 'f32', (caches, last) => {
    for (const [u0, u1] of behindPasses(rests, rowBudget)) {
      const ps = new TensorScope(be);
      try {
        behindPass(be, cfg, w, ps, { prompts, matches, kept, u0, u1, P, S }, caches, last);
      } finally {
        ps.freeAll();
      }
    }
  });
}

/** One pass over prompts [u0, u1) of a prefill behind kept rows. */
interface BehindPass {
  prompts: ReadonlyArray<readonly number[]>;
  matches: readonly KeptMatch[];
  kept: KeptKv;
  u0: number;
  u1: number;
  P: number;
  S: number;
}

/** The last Ts tokens of the pass's prompts through every layer, each layer against its cache with the kept rows
 *  uploaded; each prompt's last hidden state to last[u]. */
function behindPass(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  scope: TensorScope,
  { prompts, matches, kept, u0, u1, P, S }: BehindPass,
  caches: ReadonlyArray<{ k: Tensor; v: Tensor }>,
  last: Tensor,
): void {
  const Uc = u1 - u0;
  const whole = Uc === caches[0].k.shape[0]; // the pass runs on the decode caches themselves
  const { hiddenSize: D, numKvHeads: Hkv, headDim: Dh } = cfg;
  const W = Hkv * Dh;
  const len = (i: number) => prompts[u0 + i].length;
  let Ts = 0;
  for (let i = 0; i < Uc; i++) Ts = Math.max(Ts, len(i) - matches[u0 + i].length);
  // the last Ts tokens of each prompt (left-padded where it is shorter) at rows [P - Ts, P), positions as in the
  // prompt; a padding query sees no key (keyStart P - len > its row) and its keys and values land in masked rows
  const R = Uc * Ts;
  const tokens = new Int32Array(R);
  const pos = new Int32Array(R);
  const keyStart = new Int32Array(Uc);
  for (let i = 0; i < Uc; i++) {
    const p = prompts[u0 + i];
    keyStart[i] = P - len(i);
    for (let t = 0; t < Ts; t++) {
      const at = len(i) - Ts + t;
      tokens[i * Ts + t] = at >= 0 ? p[at] : 0;
      pos[i * Ts + t] = Math.max(at, 0);
    }
  }
  const Sc = whole ? S : P; // rows of the cache a pass attends over

  /** Layer l's cache for the pass, the kept rows of each prompt's first len - Ts tokens uploaded. */
  const layerCache = (l: number, layerScope: TensorScope) => {
    const c = whole
      ? caches[l]
      : {
          k: layerScope.zeros([Uc, P, Hkv, Dh], `behind.k.${l}`),
          v: layerScope.zeros([Uc, P, Hkv, Dh], `behind.v.${l}`),
        };
    for (let i = 0; i < Uc; i++) {
      const n = len(i) - Ts;
      if (n <= 0) continue;
      const seq = kept.sequences[matches[u0 + i].slot];
      const at = (i * Sc + P - len(i)) * W;
      be.upload(c.k, seq.k[l].subarray(seq.at * W, (seq.at + n) * W), at);
      be.upload(c.v, seq.v[l].subarray(seq.at * W, (seq.at + n) * W), at);
    }
    return c;
  };
  const cur = layerStack(be, cfg, w, scope, { B: Uc, T: Ts, tokens, pos, keyStart }, 'behind', (l, run) => {
    const layerScope = new TensorScope(be);
    try {
      const c = layerCache(l, layerScope);
      run({ kind: 'cache', k: c.k, v: c.v, past: P - Ts, S: Sc });
      if (!whole)
        for (const kind of ['k', 'v'] as const)
          be.run('copyRows', {
            t: { src: c[kind], dst: caches[l][kind] },
            p: { B: Uc, T: P, W, Sdst: S, dstRow0: 0, dstB0: u0 },
          });
    } finally {
      layerScope.freeAll();
    }
  });
  // every prompt's last token is the pass's last row
  const rows = scope.alloc([Uc, D], 'behind.passLast');
  be.run('embedding', {
    t: {
      ids: scope.from(
        [Uc],
        Int32Array.from({ length: Uc }, (_, i) => i * Ts + Ts - 1),
        'behind.lastRows',
      ),
      table: cur,
      out: rows,
    },
    p: { R: Uc, D },
  });
  be.run('copyRows', { t: { src: rows, dst: last }, p: { B: 1, T: Uc, W: D, Sdst: last.shape[0], dstRow0: u0 } });
}
