// Taking over a stale run-folder lock (src/cli/run-lock.ts) when several rema train start at once: exactly one of
// them gets the folder. The contenders are child processes (each its own pid) started together on a folder whose
// rema.lock names a process that has ended; each reports whether it got the lock and holds it a moment.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const contender = `
import { lockRunFolder } from ${JSON.stringify(join(root, 'src/cli/run-lock.ts'))};
const out = process.argv[1];
// start together: wait until the agreed instant
await new Promise((r) => setTimeout(r, Math.max(0, Number(process.argv[2]) - Date.now())));
try {
  const release = await lockRunFolder(out);
  console.log('got');
  // hold the folder until every contender has answered (the test then writes "done"), however slow they start
  const { existsSync } = await import('node:fs');
  while (!existsSync(out + '/done')) await new Promise((r) => setTimeout(r, 50));
  await release();
} catch (e) {
  console.log('refused: ' + e.message);
}
`;

/** A contender: its first line of output (its answer) and its exit. */
function run(script: string, args: string[]): { answer: Promise<string>; exited: Promise<void> } {
  const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, ...args], { cwd: root });
  let out = '';
  const answer = new Promise<string>((done, fail) => {
    p.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) done(out.slice(0, out.indexOf('\n')));
    });
    p.on('error', fail);
    p.on('close', () => done(out.trim() || 'no answer'));
  });
  p.stderr.on('data', (d) => (out += d));
  return { answer, exited: new Promise((done) => p.on('close', () => done())) };
}

describe('stale lock takeover', () => {
  it('exactly one of several simultaneous starts takes over a stale lock', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.pid'], { encoding: 'utf8' }).pid!;
    for (let round = 0; round < 2; round++) {
      const out = join(mkdtempSync(join(tmpdir(), 'rema-lock-race-')), 'run');
      mkdirSync(out);
      const stale = { pid: dead, host: hostname(), started_at: 'then', command: 'train' };
      writeFileSync(join(out, 'rema.lock'), JSON.stringify(stale) + '\n');
      const at = String(Date.now() + 2500);
      const contenders = Array.from({ length: 6 }, () => run(contender, [out, at]));
      const results = await Promise.all(contenders.map((c) => c.answer));
      writeFileSync(join(out, 'done'), '');
      await Promise.all(contenders.map((c) => c.exited));
      expect(
        results.filter((r) => r === 'got'),
        results.join(' | '),
      ).toHaveLength(1);
      expect(results.filter((r) => r.startsWith('refused'))).toHaveLength(5);
    }
  }, 60_000);
});
