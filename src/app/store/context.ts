// Things the slices share that are not state: the trainer client, the runs database and pending requests.
// Kept out of the zustand state so that selectors and devtools only see plain data.
import type { RunsDb } from '../persist/runs-db.ts';
import type { TrainerClient } from '../worker/protocol.ts';
import type { StoreDeps } from './types.ts';

export interface StoreContext {
  deps: StoreDeps;
  client: TrainerClient | null;
  unsubscribe: (() => void) | null;
  /** opened by start(); writes made before it resolves wait for it */
  db: Promise<RunsDb | null>;
  nextRequestId: number;
  loraRequests: Map<number, { resolve(files: Record<string, Uint8Array>): void; reject(e: Error): void }>;
  interventionRequestId: number | null;
  /** the page's id of the run it trains now, sent with each load and reset (protocol.ts RunTagged) */
  run: number;
  /** serialises IndexedDB writes so a slow write never lands after a newer one */
  dbQueue: Promise<void>;
}

export function createContext(deps: StoreDeps): StoreContext {
  return {
    deps,
    client: null,
    unsubscribe: null,
    db: Promise.resolve(null),
    nextRequestId: 1,
    loraRequests: new Map(),
    interventionRequestId: null,
    run: 0,
    dbQueue: Promise.resolve(),
  };
}

export function persist(ctx: StoreContext, write: (db: RunsDb) => Promise<void>): Promise<void> {
  ctx.dbQueue = ctx.dbQueue
    .then(async () => {
      const db = await ctx.db;
      if (db) await write(db);
    })
    .catch((e) => console.error('saving the run failed', e));
  return ctx.dbQueue;
}
