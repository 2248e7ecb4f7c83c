// The sampler's path for a row without a mask, top-k or top-p, greedy or at temperature 1 (sampleWhole in
// src/engine/kernels/cpu/sample.ts, the path of every rollout and evaluation) against the general path, which the
// same row takes with a mask that allows every token: the same token, log-prob bits, entropy bits and kept count,
// for vocabularies of one token per block and of several, with ties, -Infinity logits and a flat row.
import { describe, expect, it } from 'vitest';
import { maskWords, sampleRow, type SampleParams } from '../../../src/engine/kernels/cpu/sample.ts';
import { Rng } from '../../../src/util/rng.ts';

function row(V: number, seed: number, kind: 'normal' | 'ties' | 'masked-out' | 'flat'): Float32Array {
  const rng = new Rng(seed);
  return Float32Array.from({ length: V }, (_, i) => {
    if (kind === 'flat') return 0.25;
    const x = 3 * rng.normal();
    if (kind === 'ties') return Math.round(x);
    if (kind === 'masked-out' && i % 3 === 0) return -Infinity;
    return x;
  });
}

describe('sample: a whole unfiltered row', () => {
  it('draws what the general path draws, bit for bit', () => {
    for (const V of [40, 256, 700, 3000]) {
      const everyToken = { words: new Uint32Array(maskWords(V)).fill(0xffffffff), off: 0 };
      for (const kind of ['normal', 'ties', 'masked-out', 'flat'] as const) {
        const x = row(V, V + kind.length, kind);
        for (const p of [
          { temperature: 1, topK: 0, topP: 1, seed: 1 },
          { temperature: 0, topK: 0, topP: 1, seed: 1 },
        ] satisfies SampleParams[]) {
          for (const u of [0, 0.03, 0.5, 0.97, 0.999999]) {
            const fast = sampleRow(x, 0, V, p, u);
            const general = sampleRow(x, 0, V, p, u, everyToken);
            expect(fast, `V ${V} ${kind} temperature ${p.temperature} u ${u}`).toEqual(general);
          }
        }
      }
    }
  });
});
