// FileSource implementations for the page (engine and data loaders only see the FileSource interface):
// the embedded model served with the page, a local folder the user picked, and a Hugging Face repo downloaded
// with per-file byte progress and kept in the Cache API so the second load is offline. They work in the
// worker too (fetch, caches and File are available there).
import type { FileSource } from '../../util/file-source.ts';

type Progress = (loadedBytes: number, totalBytes: number | null) => void;

/** Reads a response body chunk by chunk, reporting bytes as they arrive. */
async function readWithProgress(response: Response, onProgress?: Progress): Promise<Uint8Array> {
  const header = response.headers.get('content-length');
  const total = header === null ? null : Number(header);
  if (!response.body) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    onProgress?.(bytes.length, total);
    return bytes;
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    onProgress?.(loaded, total);
  }
  const out = new Uint8Array(loaded);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}

/** A folder served over HTTP from the page's own origin, e.g. "/models/tiny-rema". */
export function httpFolderSource(baseUrl: string, name = baseUrl): FileSource {
  return {
    name,
    async read(path, onProgress) {
      const response = await fetch(`${baseUrl.replace(/\/$/, '')}/${path}`);
      if (response.status === 404) return null;
      if (!response.ok) throw new Error(`${name}/${path}: HTTP ${response.status} ${response.statusText}`);
      // vite preview answers unknown paths with index.html (SPA fallback): that is a missing file, not a model file
      if ((response.headers.get('content-type') ?? '').includes('text/html')) return null;
      return readWithProgress(response, onProgress);
    },
  };
}

/** A local folder: files keyed by their path inside the folder ("config.json", "onnx/model.onnx"). */
export function localFilesSource(files: ReadonlyMap<string, Blob>, name: string): FileSource {
  return {
    name,
    async read(path, onProgress) {
      const file = files.get(path);
      if (!file) return null;
      const bytes = new Uint8Array(await file.arrayBuffer());
      onProgress?.(bytes.length, bytes.length);
      return bytes;
    },
  };
}

/** Strips the picked folder's own name from each File's webkitRelativePath ("tiny/config.json" -> "config.json"). */
export function filesByRelativePath(files: Iterable<File>): Map<string, File> {
  const out = new Map<string, File>();
  for (const f of files) {
    const rel = (f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name;
    out.set(rel.includes('/') ? rel.slice(rel.indexOf('/') + 1) : rel, f);
  }
  return out;
}

/** Walks a File System Access directory handle (Chromium's showDirectoryPicker) into path -> File. */
export async function filesFromDirectoryHandle(dir: FileSystemDirectoryHandle, prefix = ''): Promise<Map<string, File>> {
  const out = new Map<string, File>();
  const entries = (dir as unknown as { values(): AsyncIterable<FileSystemHandle> }).values();
  for await (const handle of entries) {
    if (handle.kind === 'file') out.set(prefix + handle.name, await (handle as FileSystemFileHandle).getFile());
    else if (prefix.split('/').length < 4) {
      for (const [p, f] of await filesFromDirectoryHandle(handle as FileSystemDirectoryHandle, `${prefix}${handle.name}/`)) out.set(p, f);
    }
  }
  return out;
}

const repoIdPattern = /^[A-Za-z0-9][\w.-]*\/[\w.-]+$/;

/** Throws a message the page can show when the text is not "owner/name". */
export function validateRepoId(repo: string): string {
  const trimmed = repo.trim();
  if (!repoIdPattern.test(trimmed)) {
    throw new Error(`"${repo}" is not a Hugging Face repo id: expected "owner/name", e.g. "HuggingFaceTB/SmolLM2-135M-Instruct"`);
  }
  return trimmed;
}

export const hfCacheName = 'rema-hf-models';

/** A Hugging Face model repo; files are cached (Cache API) by URL, so a second load needs no network. */
export function huggingFaceSource(repo: string, revision = 'main', endpoint = 'https://huggingface.co'): FileSource {
  const id = validateRepoId(repo);
  const name = `hf://${id}`;
  return {
    name,
    async read(path, onProgress) {
      const url = `${endpoint}/${id}/resolve/${encodeURIComponent(revision)}/${path}`;
      const cache = typeof caches === 'undefined' ? null : await caches.open(hfCacheName);
      const cached = await cache?.match(url);
      if (cached) return readWithProgress(cached, onProgress);
      let response: Response;
      try {
        response = await fetch(url);
      } catch (e) {
        throw new Error(`${name}/${path}: download failed (${(e as Error).message}); are you offline?`, { cause: e });
      }
      if (response.status === 404) return null;
      if (response.status === 401 || response.status === 403) {
        throw new Error(`${name}: access denied (HTTP ${response.status}); the repo is gated or private`);
      }
      if (!response.ok) throw new Error(`${name}/${path}: HTTP ${response.status} ${response.statusText}`);
      const bytes = await readWithProgress(response, onProgress);
      await cache?.put(url, new Response(bytes.slice(), { headers: { 'content-length': String(bytes.length) } }));
      return bytes;
    },
  };
}
