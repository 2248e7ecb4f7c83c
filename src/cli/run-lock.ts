// One `rema train` per run folder: two processes on one --out would interleave duplicate steps in its logs and
// checkpoints. The folder's rema.lock names the process that holds it (pid, host, start time, command); it is
// created atomically (a complete temporary file hard-linked into place, which fails when the lock exists) and
// removed when the run ends. A lock left by a process that no longer runs (killed, crashed) on this host is
// stale and taken over (by one process at a time: takeOverStale); one from another host cannot be checked and
// refuses, saying which file to delete.

import { link, readFile, rm, writeFile } from 'node:fs/promises';
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

/** How long a process waits for another one's stale-lock takeover (it holds the takeover file for a few file
 *  operations only). */
const TAKEOVER_WAIT_MS = 2000;

/**
 * Removes the stale lock `holder` left at `path`, and only it. Several processes may find the same stale lock; a
 * takeover file next to the lock (created by an atomic hard link, so one process at a time holds it) lets one of
 * them re-read the lock and delete it if it is still the stale holder's. While the stale lock is there nobody can
 * take the folder, so what is re-read is what is deleted; a fresh lock taken after that is never deleted (each
 * contender deleting whatever lock it found would delete a fresh one too and let two runs in). Returns false when
 * another process holds the takeover file (the caller waits and tries again). A takeover file left by a process that
 * died holding it is removed.
 */
async function takeOverStale(path: string, holder: LockHolder, tmp: string, me: LockHolder): Promise<boolean> {
  const mutex = `${path}.takeover`;
  try {
    await link(tmp, mutex);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw namedWriteError(mutex, e);
    const other = await readHolder(mutex).catch(() => null);
    if (other && other.host === me.host && other.pid !== me.pid && !alive(other.pid)) await rm(mutex, { force: true });
    return false;
  }
  try {
    const now = await readHolder(path);
    if (now && sameHolder(now, holder)) await rm(path, { force: true });
  } finally {
    await rm(mutex, { force: true });
  }
  return true;
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
    const waitUntil = Date.now() + TAKEOVER_WAIT_MS;
    for (let takeovers = 0; ;) {
      try {
        await link(tmp, path);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw namedWriteError(path, e);
      }
      const holder = await readHolder(path);
      if (holder === null) continue; // released meanwhile
      const stale = holder.host === me.host && holder.pid !== me.pid && !alive(holder.pid);
      if (!stale || takeovers >= 3 || Date.now() > waitUntil)
        throw new Error(
          `${out}: in use by another rema train (pid ${holder.pid} on host ${holder.host}, started ${holder.started_at}` +
            `${holder.command ? `: rema ${holder.command}` : ''}); wait for it to end or use another --out` +
            (holder.host === me.host ? '' : ` (if that process no longer runs, delete ${path})`),
        );
      if (await takeOverStale(path, holder, tmp, me))
        takeovers++; // its process is gone
      else await new Promise((r) => setTimeout(r, 5)); // another process is taking it over
    }
  } finally {
    await rm(tmp, { force: true });
  }
  return async () => {
    const holder = await readHolder(path).catch(() => null);
    if (holder?.pid === me.pid && holder.host === me.host) await rm(path, { force: true });
  };
}
