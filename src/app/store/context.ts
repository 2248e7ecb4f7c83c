// Things the slices share that are not state: the trainer client, the runs database and pending requests.
// Kept out of the zustand state so that selectors and devtools only see plain data.
import type { SavedRun } from '../persist/run-types.ts';
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
  /** the last queued write when it is a run's save that has not started (persistRun): a newer save of the same run
   *  replaces its record instead of queueing one more write */
  waitingSave: { id: string; run: SavedRun; done: Promise<void> } | null;
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
    waitingSave: null,
  };
}

export function persist(ctx: StoreContext, write: (db: RunsDb) => Promise<void>): Promise<void> {
  // a write queued after a waiting save: that save keeps its record, so the two land in order
  ctx.waitingSave = null;
  ctx.dbQueue = ctx.dbQueue
    .then(async () => {
      const db = await ctx.db;
      if (db) await write(db);
    })
    .catch((e) => console.error('saving the run failed', e));
  return ctx.dbQueue;
}

/**
 * Saves `run` (the whole record: every step's metrics so far). While the database is still busy with earlier
 * writes and this run's previous save has not started, that save takes this newer record instead: each save holds
 * everything the one before it did, so nothing is lost, and a database slower than the steps costs the main thread
 * one structured clone of the run per write, not one per step.
 */
export function persistRun(ctx: StoreContext, run: SavedRun): Promise<void> {
  const waiting = ctx.waitingSave;
  if (waiting && waiting.id === run.id) {
    waiting.run = run;
    return waiting.done;
  }
  const slot = { id: run.id, run, done: Promise.resolve() };
  slot.done = persist(ctx, (db) => {
    if (ctx.waitingSave === slot) ctx.waitingSave = null;
    return db.put(slot.run);
  });
  ctx.waitingSave = slot;
  return slot.done;
}
