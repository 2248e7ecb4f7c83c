// Downloading files of a Hugging Face hub repository (https://huggingface.co/<repo>/resolve/<revision>/<file>)
// with per-file byte progress, resumable downloads (HTTP Range from the bytes already stored) and a pluggable
// store: the CLI keeps files in the standard hub cache folder (cli/hub.ts), the browser in its own storage, tests
// in memory. The network is injected (`fetch`), so tests run it against a local server and nothing here touches
// node:* or the DOM.
import type { FileSource } from '../../util/file-source.ts';

export const HF_ENDPOINT = 'https://huggingface.co';

/** The subset of `fetch` the downloader uses. */
export type FetchLike = (
  url: string,
  init: { headers: Record<string, string>; signal?: AbortSignal },
) => Promise<Response>;

export interface HubFileKey {
  repo: string;
  revision: string;
  path: string;
}

/** Where downloaded files and interrupted downloads live. */
export interface HubStore {
  /** a finished file, or null */
  get(key: HubFileKey): Promise<Uint8Array | null>;
  /** true when the hub answered 404 for this file before (so an offline probe needs no network) */
  isMissing(key: HubFileKey): Promise<boolean>;
  markMissing(key: HubFileKey): Promise<void>;
  /** number of bytes an interrupted download already holds (0 when none) */
  partialSize(key: HubFileKey): Promise<number>;
  appendPartial(key: HubFileKey, chunk: Uint8Array): Promise<void>;
  clearPartial(key: HubFileKey): Promise<void>;
  /** the partial download is complete: make it the finished file (commit: the repo commit the hub reported) */
  finishPartial(key: HubFileKey, commit: string | null): Promise<void>;
}

export interface HubOptions {
  /** "Qwen/Qwen2.5-0.5B-Instruct" */
  repo: string;
  /** branch, tag or commit; default "main" */
  revision?: string;
  endpoint?: string;
  fetch?: FetchLike;
  store?: HubStore;
  /** a Hugging Face access token for gated or private repositories */
  token?: string;
  /** extra attempts after a dropped connection, each resuming where the last stopped; default 3 */
  retries?: number;
  /** never touch the network: files not in the store read as missing */
  offline?: boolean;
}

const REPO_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)?$/;

export function validateRepoId(repo: string): void {
  if (!REPO_ID.test(repo) || repo.includes('..'))
    throw new Error(`"${repo}" is not a Hugging Face repository id (expected "org/name")`);
}

export function hubFileUrl(repo: string, revision: string, path: string, endpoint = HF_ENDPOINT): string {
  validateRepoId(repo);
  const file = path.split('/').map(encodeURIComponent).join('/');
  return `${endpoint.replace(/\/+$/, '')}/${repo}/resolve/${encodeURIComponent(revision)}/${file}`;
}

/** "bytes 100-199/1000" -> {start: 100, total: 1000} */
function parseContentRange(header: string | null): { start: number; total: number | null } | null {
  const m = header?.match(/^bytes (\d+)-\d+\/(\d+|\*)$/);
  if (!m) return null;
  return { start: Number(m[1]), total: m[2] === '*' ? null : Number(m[2]) };
}

/**
 * One file: from the store when finished there, else downloaded (resuming a partial download). Returns null when
 * the repository has no such file (404), as FileSource requires.
 */
export async function downloadHubFile(
  options: HubOptions & { path: string; onProgress?: (loadedBytes: number, totalBytes: number | null) => void },
): Promise<Uint8Array | null> {
  const { repo, path, onProgress, token } = options;
  const revision = options.revision ?? 'main';
  const store = options.store ?? memoryHubStore();
  const key: HubFileKey = { repo, revision, path };
  const url = hubFileUrl(repo, revision, path, options.endpoint);
  const cached = await store.get(key);
  if (cached) {
    onProgress?.(cached.length, cached.length);
    return cached;
  }
  if (await store.isMissing(key)) return null;
  if (options.offline) return null;
  const fetchImpl = options.fetch ?? ((u, init) => fetch(u, init));
  const attempts = 1 + (options.retries ?? 3);
  let lastProblem = '';
  for (let attempt = 0; attempt < attempts; attempt++) {
    const have = await store.partialSize(key);
    const headers: Record<string, string> = {};
    if (token) headers.Authorization = `Bearer ${token}`;
    if (have > 0) headers.Range = `bytes=${have}-`;
    let response: Response;
    try {
      response = await fetchImpl(url, { headers });
    } catch (e) {
      lastProblem = (e as Error).message;
      continue;
    }
    if (response.status === 404) {
      await response.body?.cancel();
      await store.markMissing(key);
      return null;
    }
    if (response.status === 401 || response.status === 403) {
      throw new Error(
        `${url}: HTTP ${response.status}: the repository is gated or private (log in or pass an access token)`,
      );
    }
    if (response.status === 416) {
      // the stored partial is not a prefix the server recognises: start over
      await response.body?.cancel();
      await store.clearPartial(key);
      lastProblem = 'HTTP 416 for the resume range';
      continue;
    }
    let loaded: number;
    let total: number | null;
    if (response.status === 206) {
      const range = parseContentRange(response.headers.get('content-range'));
      if (!range || range.start !== have) {
        await response.body?.cancel();
        await store.clearPartial(key);
        lastProblem = `unexpected Content-Range ${response.headers.get('content-range')}`;
        continue;
      }
      loaded = have;
      total = range.total;
    } else if (response.status === 200) {
      if (have > 0) await store.clearPartial(key); // the server ignored Range: take the whole file
      loaded = 0;
      const length = response.headers.get('content-length');
      total = length === null ? null : Number(length);
    } else {
      throw new Error(`${url}: HTTP ${response.status} ${response.statusText}`);
    }
    if (!response.body) throw new Error(`${url}: response has no body`);
    onProgress?.(loaded, total);
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        await store.appendPartial(key, value);
        loaded += value.length;
        onProgress?.(loaded, total);
      }
    } catch (e) {
      lastProblem = `connection lost after ${loaded} bytes: ${(e as Error).message}`;
      continue; // resume from what the store now holds
    }
    if (total !== null && loaded !== total) {
      lastProblem = `connection closed after ${loaded} of ${total} bytes`;
      continue;
    }
    await store.finishPartial(key, response.headers.get('x-repo-commit'));
    const bytes = await store.get(key);
    if (!bytes) throw new Error(`${url}: the store lost the file it just finished`);
    return bytes;
  }
  throw new Error(`${url}: download failed after ${attempts} attempts: ${lastProblem}`);
}

/** A FileSource over a hub repository, named "hf://<repo>@<revision>" in error messages. */
export function hubFileSource(options: HubOptions): FileSource {
  validateRepoId(options.repo);
  const store = options.store ?? memoryHubStore();
  const revision = options.revision ?? 'main';
  return {
    name: `hf://${options.repo}@${revision}`,
    read: (path, onProgress) => downloadHubFile({ ...options, revision, store, path, onProgress }),
  };
}

const storeId = (k: HubFileKey) => `${k.repo}@${k.revision}/${k.path}`;

/** Keeps everything in memory (tests; a page that does not persist downloads). */
export function memoryHubStore(): HubStore {
  const id = storeId;
  const done = new Map<string, Uint8Array>();
  const partial = new Map<string, Uint8Array[]>();
  const missing = new Set<string>();
  return {
    get: async (k) => done.get(id(k)) ?? null,
    isMissing: async (k) => missing.has(id(k)),
    markMissing: async (k) => void missing.add(id(k)),
    partialSize: async (k) => (partial.get(id(k)) ?? []).reduce((n, c) => n + c.length, 0),
    appendPartial: async (k, chunk) => {
      const list = partial.get(id(k)) ?? [];
      list.push(chunk.slice());
      partial.set(id(k), list);
    },
    clearPartial: async (k) => void partial.delete(id(k)),
    finishPartial: async (k) => {
      const chunks = partial.get(id(k)) ?? [];
      const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const c of chunks) {
        out.set(c, at);
        at += c.length;
      }
      done.set(id(k), out);
      partial.delete(id(k));
    },
  };
}
