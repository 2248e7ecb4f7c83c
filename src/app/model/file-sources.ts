// FileSource implementations for the page (engine and data loaders only see the FileSource interface): the
// embedded model served with the page and a local folder the user picked. Hugging Face repos use the engine's
// hub downloader (engine/io/hub.ts) with its IndexedDB store. They work in the worker too.
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
export async function filesFromDirectoryHandle(
  dir: FileSystemDirectoryHandle,
  prefix = '',
): Promise<Map<string, File>> {
  const out = new Map<string, File>();
  const entries = (dir as unknown as { values(): AsyncIterable<FileSystemHandle> }).values();
  for await (const handle of entries) {
    if (handle.kind === 'file') out.set(prefix + handle.name, await (handle as FileSystemFileHandle).getFile());
    else if (prefix.split('/').length < 4) {
      for (const [p, f] of await filesFromDirectoryHandle(
        handle as FileSystemDirectoryHandle,
        `${prefix}${handle.name}/`,
      ))
        out.set(p, f);
    }
  }
  return out;
}
