// Runs live in IndexedDB (through `idb`), written from the page's main thread after every step, so a run
// survives a reload and a crash of the training worker. One object store, keyed by run id.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { SavedRun } from './run-types.ts';

interface RunsSchema extends DBSchema {
  runs: { key: string; value: SavedRun; indexes: { byCreated: number } };
}

export interface RunsDb {
  list(): Promise<SavedRun[]>;
  get(id: string): Promise<SavedRun | undefined>;
  put(run: SavedRun): Promise<void>;
  remove(id: string): Promise<void>;
}

export async function openRunsDb(name = 'rema-playground'): Promise<RunsDb> {
  const db: IDBPDatabase<RunsSchema> = await openDB<RunsSchema>(name, 1, {
    upgrade(database) {
      const store = database.createObjectStore('runs', { keyPath: 'id' });
      store.createIndex('byCreated', 'createdAt');
    },
  });
  return {
    /** newest first */
    async list() {
      return (await db.getAllFromIndex('runs', 'byCreated')).toReversed();
    },
    get: (id) => db.get('runs', id),
    async put(run) {
      await db.put('runs', run);
    },
    async remove(id) {
      await db.delete('runs', id);
    },
  };
}
