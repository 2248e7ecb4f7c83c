// Writes of the files the commands leave on disk (run folders, checkpoints, eval outputs): a failed write names
// its file (Node's ENOSPC from a write names none), and a file rewritten in place goes through a temporary file
// and a rename, so a kill, Ctrl-C or a full disk leaves the old content or the new one, never an empty file.
// `WriteIo` is the seam under the writes: the real file system by default; tests pass one that fails like a full
// disk.

import { appendFile, rename, rm, writeFile } from 'node:fs/promises';

export interface WriteIo {
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  appendFile(path: string, data: string | Uint8Array): Promise<void>;
}

export const nodeIo: WriteIo = {
  writeFile: (path, data) => writeFile(path, data),
  appendFile: (path, data) => appendFile(path, data),
};

/** The error of a failed write, with the file's path in front (the code, e.g. ENOSPC, is kept). */
export function namedWriteError(path: string, e: unknown): Error {
  const cause = e as NodeJS.ErrnoException;
  const err: NodeJS.ErrnoException = new Error(`${path}: cannot write (${cause?.message ?? String(e)})`, { cause: e });
  if (cause?.code !== undefined) err.code = cause.code;
  return err;
}

export async function writeNamed(path: string, data: string | Uint8Array, io: WriteIo = nodeIo): Promise<void> {
  try {
    await io.writeFile(path, data);
  } catch (e) {
    throw namedWriteError(path, e);
  }
}

export async function appendNamed(path: string, data: string | Uint8Array, io: WriteIo = nodeIo): Promise<void> {
  try {
    await io.appendFile(path, data);
  } catch (e) {
    throw namedWriteError(path, e);
  }
}

/** Replaces `path` by `data` through `path`.tmp-<pid> and a rename; on failure the temporary file is removed and `path` is untouched. */
export async function replaceFile(path: string, data: string | Uint8Array, io: WriteIo = nodeIo): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    await io.writeFile(tmp, data);
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => {});
    throw namedWriteError(path, e);
  }
}
