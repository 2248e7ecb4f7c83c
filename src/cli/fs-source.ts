// A FileSource over a local directory, for the CLI and Node tests: the engine's loaders read model folders
// through it without importing node:fs themselves.
import { open, readFile, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { FileSource } from '../util/file-source.ts';

/** Chunk size for reads that report progress (large shards): 16 MiB. */
const CHUNK_BYTES = 16 * 1024 * 1024;

export function directoryFileSource(directory: string, name = directory): FileSource {
  const root = resolve(directory);
  return {
    name,
    async read(path, onProgress) {
      const full = resolve(join(root, path));
      if (full !== root && !full.startsWith(root + sep))
        throw new Error(`${name}: "${path}" is outside the model folder`);
      let size: number;
      try {
        const info = await stat(full);
        if (!info.isFile()) return null;
        size = info.size;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw e;
      }
      if (!onProgress) return new Uint8Array(await readFile(full));
      const out = new Uint8Array(size);
      const handle = await open(full, 'r');
      try {
        let done = 0;
        onProgress(0, size);
        while (done < size) {
          const { bytesRead } = await handle.read(out, done, Math.min(CHUNK_BYTES, size - done), done);
          if (bytesRead === 0) throw new Error(`${name}/${path}: file shrank while reading (${done} of ${size} bytes)`);
          done += bytesRead;
          onProgress(done, size);
        }
      } finally {
        await handle.close();
      }
      return out;
    },
  };
}
