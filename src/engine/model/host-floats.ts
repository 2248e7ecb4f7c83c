// Host Float32Arrays handed back when what they held is dropped, and handed out again. A multi-turn rollout reads
// back about 20 MB of kept keys and values a step (kv-keep.ts) and drops them at the next optimiser step; a fresh
// array of that size costs its page faults and zero-filling every time, more than the copy into it.

/** Spare host arrays, best fit first. */
export class HostFloats {
  private spare: Float32Array[] = [];

  /** `maxSpareBytes`: arrays handed back beyond this many bytes in all are let go (the largest first). */
  constructor(readonly maxSpareBytes: number) {}

  /** An array of at least `n` floats (its contents are whatever it held): the smallest spare one that fits, else a
   *  new one with a quarter more room, so that a slightly longer request next time still fits. */
  take(n: number): Float32Array {
    let best = -1;
    for (let i = 0; i < this.spare.length; i++)
      if (this.spare[i].length >= n && (best < 0 || this.spare[i].length < this.spare[best].length)) best = i;
    if (best < 0) return new Float32Array(Math.ceil(n * 1.25));
    return this.spare.splice(best, 1)[0];
  }

  /** Hands arrays back; their holder must not read them again. */
  give(arrays: readonly Float32Array[]): void {
    this.spare.push(...arrays);
    this.spare.sort((a, b) => a.length - b.length);
    while (this.spare.length > 0 && this.spareBytes > this.maxSpareBytes) this.spare.pop();
  }

  get spareBytes(): number {
    return this.spare.reduce((s, a) => s + a.byteLength, 0);
  }
}
