// A HubStore in IndexedDB, so a page (or its worker) keeps downloaded model files across visits and resumes an
// interrupted download where it stopped. Finished files are one record each; a download in progress is kept as
// numbered parts of up to PART_BYTES, so a dropped connection or a closed tab loses at most the unflushed tail.
import type { HubFileKey, HubStore } from './hub.ts';

const PART_BYTES = 8 * 1024 * 1024;
const FILES = 'files';
const PARTS = 'parts';
const MISSING = 'missing';

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.addEventListener('success', () => resolve(req.result));
    req.addEventListener('error', () => reject(req.error ?? new Error('IndexedDB request failed')));
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.addEventListener('complete', () => resolve());
    tx.addEventListener('error', () => reject(tx.error ?? new Error('IndexedDB transaction failed')));
    tx.addEventListener('abort', () => reject(tx.error ?? new Error('IndexedDB transaction aborted')));
  });
}

const id = (k: HubFileKey) => `${k.repo}@${k.revision}/${k.path}`;

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export interface IndexedDbHubStoreOptions {
  /** default: globalThis.indexedDB */
  indexedDB?: IDBFactory;
  /** default: "rema-hub-cache" */
  databaseName?: string;
  /** size of the parts an in-progress download is written in; default 8 MiB */
  partBytes?: number;
}

export function indexedDbHubStore(options: IndexedDbHubStoreOptions = {}): HubStore {
  const factory = options.indexedDB ?? globalThis.indexedDB;
  if (!factory) throw new Error('IndexedDB is not available here; use memoryHubStore() instead');
  const name = options.databaseName ?? 'rema-hub-cache';
  const partBytes = options.partBytes ?? PART_BYTES;
  let opened: Promise<IDBDatabase> | null = null;
  const db = () => {
    opened ??= new Promise<IDBDatabase>((resolve, reject) => {
      const req = factory.open(name, 1);
      req.addEventListener('upgradeneeded', () => {
        req.result.createObjectStore(FILES);
        req.result.createObjectStore(PARTS);
        req.result.createObjectStore(MISSING);
      });
      req.addEventListener('success', () => resolve(req.result));
      req.addEventListener('error', () => reject(req.error ?? new Error(`cannot open IndexedDB "${name}"`)));
    });
    return opened;
  };
  /** bytes appended but not yet written as a part */
  const pending = new Map<string, Uint8Array[]>();
  const pendingBytes = (key: string) => (pending.get(key) ?? []).reduce((n, c) => n + c.length, 0);

  async function storedParts(key: string): Promise<Uint8Array[]> {
    const tx = (await db()).transaction(PARTS, 'readonly');
    const range = IDBKeyRange.bound([key, 0], [key, Number.MAX_SAFE_INTEGER]);
    return (await request(tx.objectStore(PARTS).getAll(range))) as Uint8Array[];
  }

  async function flush(key: string): Promise<void> {
    const chunks = pending.get(key);
    if (!chunks || chunks.length === 0) return;
    const index = (await storedParts(key)).length;
    const tx = (await db()).transaction(PARTS, 'readwrite');
    tx.objectStore(PARTS).put(concat(chunks), [key, index]);
    await done(tx);
    pending.delete(key);
  }

  async function clear(key: string): Promise<void> {
    pending.delete(key);
    const tx = (await db()).transaction(PARTS, 'readwrite');
    tx.objectStore(PARTS).delete(IDBKeyRange.bound([key, 0], [key, Number.MAX_SAFE_INTEGER]));
    await done(tx);
  }

  return {
    async get(k) {
      const tx = (await db()).transaction(FILES, 'readonly');
      const record = (await request(tx.objectStore(FILES).get(id(k)))) as { bytes: Uint8Array } | undefined;
      return record ? record.bytes : null;
    },
    async isMissing(k) {
      const tx = (await db()).transaction(MISSING, 'readonly');
      return (await request(tx.objectStore(MISSING).get(id(k)))) !== undefined;
    },
    async markMissing(k) {
      const tx = (await db()).transaction(MISSING, 'readwrite');
      tx.objectStore(MISSING).put(true, id(k));
      await done(tx);
    },
    async partialSize(k) {
      const parts = await storedParts(id(k));
      return parts.reduce((n, p) => n + p.length, 0) + pendingBytes(id(k));
    },
    async appendPartial(k, chunk) {
      const key = id(k);
      const list = pending.get(key) ?? [];
      list.push(chunk.slice());
      pending.set(key, list);
      if (pendingBytes(key) >= partBytes) await flush(key);
    },
    async clearPartial(k) {
      await clear(id(k));
    },
    async finishPartial(k, commit) {
      const key = id(k);
      const bytes = concat([...(await storedParts(key)), ...(pending.get(key) ?? [])]);
      const tx = (await db()).transaction(FILES, 'readwrite');
      tx.objectStore(FILES).put({ bytes, commit }, key);
      await done(tx);
      await clear(key);
    },
  };
}
