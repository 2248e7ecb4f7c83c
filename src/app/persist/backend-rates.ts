// The rates the "auto" backend measured (worker/backend-auto.ts), kept across reloads in the browser's Storage
// (localStorage) under the key the worker gave them: the adapter, the CPU backend's build, the model's name and
// shape. The worker gets them with each load and measures only when none matches. A few entries, newest first;
// unreadable or unavailable storage reads as empty (the page then measures again).
import type { CachedBackendRates } from '../worker/protocol.ts';

export interface BackendRatesStore {
  list(): CachedBackendRates[];
  put(entry: CachedBackendRates): void;
}

const STORAGE_KEY = 'rema:auto-backend-rates';
const MAX_ENTRIES = 8;

function isEntry(x: unknown): x is CachedBackendRates {
  const e = x as CachedBackendRates;
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.key === 'string' &&
    typeof e.measured_ms === 'number' &&
    Array.isArray(e.rates) &&
    e.rates.every((r) => typeof r?.backend === 'string' && typeof r.decode_ms_per_token === 'number')
  );
}

export function storageBackendRates(storage: Storage | undefined): BackendRatesStore {
  const list = (): CachedBackendRates[] => {
    try {
      const parsed: unknown = JSON.parse(storage?.getItem(STORAGE_KEY) ?? '[]');
      return Array.isArray(parsed) ? parsed.filter(isEntry) : [];
    } catch {
      return [];
    }
  };
  return {
    list,
    put(entry) {
      const kept = [entry, ...list().filter((e) => e.key !== entry.key)].slice(0, MAX_ENTRIES);
      try {
        storage?.setItem(STORAGE_KEY, JSON.stringify(kept));
      } catch (e) {
        console.warn(`the auto backend's measurement was not kept (${(e as Error).message})`);
      }
    },
  };
}
