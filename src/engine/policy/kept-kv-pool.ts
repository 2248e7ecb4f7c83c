// The kept keys and values (model/kv-keep.ts, on the host) a policy holds between generate calls, under a byte
// budget: a multi-turn rollout's turn t+2 of an agent reads the store its turn t kept (the other agent's turn t+1
// kept one too), so a few stores are alive at a time. A store belongs to the adapter whose weights computed it; the
// policy clears the pool whenever weights change (an optimiser step, a loaded adapter). The host arrays of the
// stores it lets go are read into again by later stores (hostFloats).
import { HostFloats } from '../model/host-floats.ts';
import type { KeptKv } from '../model/kv-keep.ts';

interface PoolEntry {
  adapter: string | null;
  store: KeptKv;
  /** held most of a generate call's prompts since the last retireRead: their continuations were kept after it */
  read: boolean;
}

export class KeptKvPool {
  private entries: PoolEntry[] = [];
  /** the host arrays of stores let go, for the stores of later calls (KeptKv's hostFloats) */
  readonly hostFloats: HostFloats;

  constructor(readonly budgetBytes: number) {
    this.hostFloats = new HostFloats(budgetBytes);
  }

  /** The store of `adapter` that holds the most tokens of `prompts` (each prompt's longest kept prefix), or null. */
  best(adapter: string | null, prompts: ReadonlyArray<readonly number[]>): KeptKv | null {
    let best: PoolEntry | null = null;
    let most = 0;
    for (const e of this.entries) {
      if (e.adapter !== adapter) continue;
      const held = prompts.reduce((s, p) => s + e.store.match(p).length, 0);
      if (held > most) [best, most] = [e, held];
    }
    if (!best) return null;
    // (a store of the other agent's turn holds only the chat template's first tokens of these prompts)
    if (most >= prompts.reduce((s, p) => s + p.length, 0) / 2) best.read = true;
    return best.store;
  }

  /** Adds a store, then lets the oldest go until the pool fits its budget (the new one too, when it alone does not). */
  add(adapter: string | null, store: KeptKv): void {
    this.entries.push({ adapter, store, read: false });
    while (this.entries.length > 0 && this.bytes > this.budgetBytes) this.letGo(this.entries.shift()!);
  }

  /** Lets go of the stores that held most of a generate call's prompts: what their sequences went on to is in the
   *  stores that call kept. */
  retireRead(): void {
    for (const e of this.entries) if (e.read) this.letGo(e);
    this.entries = this.entries.filter((e) => !e.read);
  }

  clear(): void {
    for (const e of this.entries) this.letGo(e);
    this.entries = [];
  }

  private letGo(e: PoolEntry): void {
    this.hostFloats.give(e.store.release());
  }

  get bytes(): number {
    return this.entries.reduce((s, e) => s + e.store.bytes, 0);
  }
}
