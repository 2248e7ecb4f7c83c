// One `rema train` per run folder: two processes on one --out would interleave duplicate steps in its logs and
// checkpoints. The folder's rema.lock names the process that holds it (pid, host, start time, command); it is
// created atomically (a complete temporary file hard-linked into place, which fails when the lock exists) and
// removed when the run ends. A lock left by a process that no longer runs (killed, crashed) on this host is
// stale and taken over; one from another host cannot be checked and refuses, saying which file to delete.

import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { namedWriteError } from './run-files.ts';

export interface LockHolder {
  pid: number;
  host: string;
  started_at: string;
  command: string;
}

export const LOCK_FILE = 'rema.lock';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readHolder(path: string): Promise<LockHolder | null> {
  try {
    const h = JSON.parse(await readFile(path, 'utf8')) as LockHolder;
    return typeof h.pid === 'number' && typeof h.host === 'string' ? h : null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(
      `${path}: unreadable lock file (${(e as Error).message}); delete it if no rema train runs on this folder`,
      { cause: e },
    );
  }
}

const sameHolder = (a: LockHolder, b: LockHolder) =>
  a.pid === b.pid && a.host === b.host && a.started_at === b.started_at;

/**
 * Removes the stale lock `holder` left at `path`, and only it: when several processes find the same stale lock,
 * each moves the file aside (an atomic rename, which only one of them can do to a given file) and deletes it only
 * if it is still the stale holder's. A process that moved a lock taken meanwhile puts it back, so the new holder
 * keeps it (deleting the file at `path` outright would delete that new lock too and let two runs in).
 */
async function takeOverStale(path: string, holder: LockHolder): Promise<void> {
  const aside = `${path}.stale.${process.pid}`;
  try {
    await rename(path, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // another process moved it first
    throw namedWriteError(path, e);
  }
  const moved = await readHolder(aside).catch(() => null);
  if (moved === null || !sameHolder(moved, holder)) await link(aside, path).catch(() => {});
  await rm(aside, { force: true });
}

/** Takes `out`'s lock or throws naming the process that holds it; returns the function that releases it. */
export async function lockRunFolder(out: string): Promise<() => Promise<void>> {
  const path = join(out, LOCK_FILE);
  const me: LockHolder = {
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
    command: process.argv.slice(2).join(' '),
  };
  const tmp = `${path}.${process.pid}`;
  try {
    await writeFile(tmp, JSON.stringify(me) + '\n');
  } catch (e) {
    throw namedWriteError(tmp, e);
  }
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await link(tmp, path);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw namedWriteError(path, e);
      }
      const holder = await readHolder(path);
      if (holder === null) continue; // released meanwhile
      const stale = holder.host === me.host && holder.pid !== me.pid && !alive(holder.pid);
      if (!stale || attempt >= 3)
        throw new Error(
          `${out}: in use by another rema train (pid ${holder.pid} on host ${holder.host}, started ${holder.started_at}` +
            `${holder.command ? `: rema ${holder.command}` : ''}); wait for it to end or use another --out` +
            (holder.host === me.host ? '' : ` (if that process no longer runs, delete ${path})`),
        );
      await takeOverStale(path, holder);
    }
  } finally {
    await rm(tmp, { force: true });
  }
  return async () => {
    const holder = await readHolder(path).catch(() => null);
    if (holder?.pid === me.pid && holder.host === me.host) await rm(path, { force: true });
  };
}
