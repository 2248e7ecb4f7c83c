// Ablations live in their own IndexedDB database (through `idb`), next to the runs database, written from the
// page's main thread after every step of an ablation run, so a reload or a crashed worker loses at most the run
// in progress.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { AblationRecord } from './ablation-types.ts';

interface AblationSchema extends DBSchema {
  ablations: { key: string; value: AblationRecord };
}

export interface AblationDb {
  get(id: string): Promise<AblationRecord | undefined>;
  list(): Promise<AblationRecord[]>;
  put(record: AblationRecord): Promise<void>;
  remove(id: string): Promise<void>;
}

export async function openAblationDb(name = 'rema-playground-ablations'): Promise<AblationDb> {
  const db: IDBPDatabase<AblationSchema> = await openDB<AblationSchema>(name, 1, {
    upgrade(database) {
      database.createObjectStore('ablations', { keyPath: 'id' });
    },
  });
  return {
    get: (id) => db.get('ablations', id),
    list: () => db.getAll('ablations'),
    async put(record) {
      await db.put('ablations', record);
    },
    async remove(id) {
      await db.delete('ablations', id);
    },
  };
}
