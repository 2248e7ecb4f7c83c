// Host-side token sampling (src/engine/sampling.ts): greedy, temperature, top-k and top-p give the intended
// distributions (checked empirically over many counter values), and draws are a pure function of
// (seed, stream, counter).
import { describe, expect, it } from 'vitest';
import { sampleMargin } from '../../../src/engine/kernels/cpu/sample.ts';
import { argmax, logSoftmaxAt, sampleToken, validateSampling } from '../../../src/engine/sampling.ts';
import { Rng, uniform01 } from '../../../src/util/rng.ts';

const logits = Float32Array.of(1.0, 2.5, 0.2, 2.0, -1.0, 0.7);

function target(temperature: number, keep: (i: number, p: number[]) => boolean): number[] {
  const w = Array.from(logits, (x) => Math.exp(x / temperature));
  const z = w.reduce((a, b) => a + b);
  const p = w.map((x) => x / z);
  const kept = p.map((x, i) => (keep(i, p) ? x : 0));
  const zk = kept.reduce((a, b) => a + b);
  return kept.map((x) => x / zk);
}

function empirical(params: Parameters<typeof sampleToken>[1], n = 20000): number[] {
  const counts: number[] = Array.from({ length: logits.length }, () => 0);
  for (let i = 0; i < n; i++) counts[sampleToken(logits, params, 7, i)]++;
  return counts.map((c) => c / n);
}

// reference, in float64: cut to the top-k tokens, then to the most likely tokens whose mass reaches topP of that,
// and draw by inverse CDF in id order with the same uniform number (the device sampler's definition)
function reference(l: Float32Array, p: { temperature: number; topP: number; topK: number }, u: number): number {
  const max = Math.max(...l);
  const w = Array.from(l, (x) => Math.exp((x - max) / p.temperature));
  const order = w.map((_x, i) => i).toSorted((a, b) => w[b] - w[a] || a - b);
  let kept = p.topK > 0 ? Math.min(p.topK, l.length) : l.length;
  if (p.topP < 1) {
    const mass = order.slice(0, kept).reduce((acc, i) => acc + w[i], 0);
    let m = 0;
    for (let j = 0; j < kept; j++) {
      m += w[order[j]];
      if (m >= p.topP * mass) {
        kept = j + 1;
        break;
      }
    }
  }
  const inSet = new Set(order.slice(0, kept));
  let rest = u * [...inSet].reduce((acc, i) => acc + w[i], 0);
  for (let i = 0; i < l.length; i++) {
    if (!inSet.has(i)) continue;
    rest -= w[i];
    if (rest < 0) return i;
  }
  return Math.max(...inSet);
}

describe('sampleToken', () => {
  it('temperature 0 is argmax; top-k 1 is argmax at any temperature', () => {
    expect(argmax(logits)).toBe(1);
    expect(sampleToken(logits, { temperature: 0, topP: 1, topK: 0, seed: 1 }, 0, 0)).toBe(1);
    for (let c = 0; c < 50; c++)
      expect(sampleToken(logits, { temperature: 2, topP: 1, topK: 1, seed: 3 }, 0, c)).toBe(1);
  });

  it('plain temperature sampling follows softmax(logits / T)', () => {
    const got = empirical({ temperature: 0.7, topP: 1, topK: 0, seed: 5 });
    const want = target(0.7, () => true);
    got.forEach((g, i) => expect(Math.abs(g - want[i])).toBeLessThan(0.015));
  });

  it('top-k keeps the k most likely tokens, renormalised', () => {
    const got = empirical({ temperature: 1, topP: 1, topK: 3, seed: 6 });
    const want = target(1, (i) => [1, 3, 0].includes(i));
    got.forEach((g, i) => expect(Math.abs(g - want[i])).toBeLessThan(0.015));
  });

  it('top-p keeps the smallest most-likely set reaching the mass', () => {
    const p = target(1, () => true);
    // p sorted: token 1, 3, 0, 5, 2, 4; choose topP so that exactly {1, 3} form the nucleus
    const topP = p[1] + p[3] * 0.5;
    const got = empirical({ temperature: 1, topP, topK: 0, seed: 8 });
    const want = target(1, (i) => i === 1 || i === 3);
    got.forEach((g, i) => expect(Math.abs(g - want[i])).toBeLessThan(0.015));
  });

  it('matches a full-sort reference on a large vocabulary, except at near-ties (float rounding at a CDF boundary)', () => {
    const rng = new Rng(99);
    const V = 3000;
    for (const [temperature, topP, topK] of [
      [1, 0.9, 0],
      [0.7, 1, 40],
      [1.3, 0.5, 200],
      [1, 0.95, 5],
    ]) {
      for (let trial = 0; trial < 5; trial++) {
        const big = Float32Array.from({ length: V }, () => 3 * rng.normal());
        for (let c = 0; c < 20; c++) {
          const params = { temperature, topP, topK, seed: trial };
          const u = uniform01(trial, 1, c);
          if (sampleToken(big, params, 1, c) !== reference(big, params, u))
            expect(sampleMargin(big, 0, V, params, u)).toBeLessThan(1e-5);
        }
      }
    }
  });

  it('is a pure function of (seed, stream, counter)', () => {
    const params = { temperature: 1, topP: 0.95, topK: 4, seed: 11 };
    const a = Array.from({ length: 40 }, (_, c) => sampleToken(logits, params, 2, c));
    const b = Array.from({ length: 40 }, (_, c) => sampleToken(logits, params, 2, c));
    const other = Array.from({ length: 40 }, (_, c) => sampleToken(logits, params, 3, c));
    expect(b).toEqual(a);
    expect(other).not.toEqual(a);
  });

  it('log-softmax and option validation', () => {
    const z = Array.from(logits).reduce((s, x) => s + Math.exp(x), 0);
    expect(logSoftmaxAt(logits, 3)).toBeCloseTo(2.0 - Math.log(z), 6);
    expect(() => validateSampling({ temperature: -1, topP: 1, topK: 0, seed: 0 })).toThrow(/temperature/);
    expect(() => validateSampling({ temperature: 1, topP: 0, topK: 0, seed: 0 })).toThrow(/topP/);
  });
});
