// Seeded, counter-based randomness: the same (seed, stream, counter) always gives the same number, whatever
// the batch composition or backend. SplitMix64-style mixing on 32-bit halves (Math.imul keeps it exact in JS).

/** Hash three 32-bit integers into a uniform float in [0, 1). */
export function uniform01(seed: number, stream: number, counter: number): number {
  let h = mix32((seed >>> 0) ^ 0x9e3779b9);
  h = mix32(h ^ (stream >>> 0));
  h = mix32(h ^ (counter >>> 0));
  return (h >>> 8) / 0x1000000;
}

function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** A small sequential PRNG (mulberry32) for data generation and shuffling. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** uniform in [0, 1) */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** integer in [lo, hi] inclusive */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  /** standard normal (Box-Muller) */
  normal(): number {
    const u = Math.max(this.next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }
  /** current state, for resumable checkpoints */
  get seedState(): number {
    return this.state;
  }
  set seedState(s: number) {
    this.state = s >>> 0;
  }
}
