// A FileSource over files already in memory: files the user dropped on the page, a zip's entries, or tests.
import type { FileSource } from '../../util/file-source.ts';

export function memoryFileSource(
  name: string,
  files: Record<string, Uint8Array> | Map<string, Uint8Array>,
): FileSource {
  const map = files instanceof Map ? files : new Map(Object.entries(files));
  return {
    name,
    async read(path, onProgress) {
      const bytes = map.get(path) ?? null;
      if (bytes) onProgress?.(bytes.length, bytes.length);
      return bytes;
    },
  };
}
