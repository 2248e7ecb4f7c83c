// The current run's saves while steps come in faster than IndexedDB writes: a save still waiting behind a slow
// write takes the newer step's record instead of queueing one more write (store/context.ts persistRun), and the
// database still ends with every step; a write queued in between (a crash's) keeps its place in the order.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { openRunsDb, type RunsDb } from '../../../src/app/persist/runs-db.ts';
import type { SavedRun } from '../../../src/app/persist/run-types.ts';
import { createPlaygroundStore } from '../../../src/app/store/create-store.ts';
import type { TrainerClient, WorkerEvent } from '../../../src/app/worker/protocol.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { metrics, rollout } from '../../helpers/app/records.ts';

let dbCounter = 0;
const tick = () => new Promise((r) => setTimeout(r, 5));

/** the real database, with each put held until the test releases it, and every put's record kept */
async function heldDb() {
  const db = await openRunsDb(`run-save-${dbCounter++}`);
  const puts: SavedRun[] = [];
  const held: Array<() => void> = [];
  const wrapped: RunsDb = {
    ...db,
    async put(run) {
      puts.push(run);
      await new Promise<void>((release) => held.push(release));
      await db.put(run);
    },
  };
  const releaseAll = async () => {
    for (let i = 0; i < 50 && (held.length > 0 || i < 3); i++) {
      held.splice(0).forEach((release) => release());
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return { db, wrapped, puts, releaseAll };
}

async function setup() {
  const listeners = new Set<(e: WorkerEvent) => void>();
  const client: TrainerClient = {
    send: () => {},
    subscribe: (l) => (listeners.add(l), () => listeners.delete(l)),
    terminate: () => {},
  };
  const database = await heldDb();
  const store = createPlaygroundStore(
    { createClient: () => client, openDb: async () => database.wrapped },
    {
      config: getPreset('tiny-default'),
      preset: 'tiny-default',
      view: 'curves',
      backendPreference: 'wasm',
      modelSpec: { kind: 'embedded', name: 'tiny-rema' },
    },
  );
  await store.getState().start();
  const emit = (e: WorkerEvent) => listeners.forEach((l) => l(e));
  return { store, emit, ...database };
}

const step = (n: number): WorkerEvent => ({ type: 'step', metrics: metrics(n), rollouts: [rollout(n, 0, 0)] });

describe('saving the current run', () => {
  it('steps that arrive while a write is busy are saved together, and none is lost', async () => {
    const { store, emit, db, puts, releaseAll } = await setup();
    emit(step(1));
    await tick();
    for (let n = 2; n <= 6; n++) emit(step(n));
    await releaseAll();
    // the first write started at once; the five saves behind it became one write of the newest record
    expect(puts.map((r) => r.metrics.length)).toEqual([1, 6]);
    const id = store.getState().currentRun!.id;
    const saved = await db.get(id);
    expect(saved?.metrics.map((m) => m.step)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(saved?.rollouts[0].step).toBe(6);
  });

  it('a write queued between two saves of the run (a crash) keeps its place in the order', async () => {
    const { store, emit, db, puts, releaseAll } = await setup();
    emit(step(1));
    await tick();
    emit(step(2));
    emit({ type: 'error', message: 'training worker crashed', fatal: true, requestId: null });
    emit(step(3));
    await releaseAll();
    // step 1 (started at once), step 2 (waiting), the crash's record, then step 3 in a write of its own after it
    expect(puts.map((r) => [r.metrics.length, r.status])).toEqual([
      [1, 'paused'],
      [2, 'paused'],
      [2, 'crashed'],
      [3, 'paused'],
    ]);
    expect((await db.get(store.getState().currentRun!.id))?.metrics.map((m) => m.step)).toEqual([1, 2, 3]);
  });
});
