// `npx rema train --preset tiny-default` on the embedded model (public/models/tiny-rema), shrunk to 2 steps of
// 2 problems x group 4: a kill after the first checkpoint and a restart give the same metrics.jsonl as an
// uninterrupted run, and the records carry the fields the page reads.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');
const args = (out: string) => [
  bin,
  'train',
  '--preset',
  'tiny-default',
  '--steps',
  '2',
  '--set',
  'problemsPerStep=2',
  '--set',
  'groupSize=4',
  '--set',
  'evalSize=8',
  '--set',
  'evalEvery=2',
  '--backend',
  'wasm',
  '--out',
  out,
  '--quiet',
];
const metrics = (dir: string) =>
  readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => {
      const { time_s: _t, ...rest } = JSON.parse(l) as Record<string, unknown>;
      return rest;
    });

describe('rema train --preset tiny-default (embedded model)', () => {
  it('trains, and resumes after a kill with nothing lost', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'rema-tiny-'));
    const reference = join(tmp, 'reference');
    const r = spawnSync('node', args(reference), { cwd: root, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const ref = metrics(reference);
    expect(ref.map((m) => m.step)).toEqual([1, 2]);
    for (const m of ref) {
      expect(m.trained).toBe('shared');
      expect(typeof m.reward_mean).toBe('number');
      expect(typeof m.accuracy).toBe('number');
    }
    expect(typeof ref[1].eval_accuracy).toBe('number');
    // the SFT-warmed model follows the protocol: most episodes end with [FINISH] rather than at a cap
    const finishes = ref[0].finish_reasons as Record<string, number>;
    expect(finishes.finished).toBeGreaterThanOrEqual(4);

    const killed = join(tmp, 'killed');
    const child = spawn('node', args(killed), { cwd: root, stdio: 'ignore' });
    await new Promise<void>((done) => {
      const poll = setInterval(() => {
        if (existsSync(join(killed, 'checkpoints/latest'))) child.kill('SIGKILL');
      }, 20);
      child.on('exit', () => {
        clearInterval(poll);
        done();
      });
    });
    const again = spawnSync('node', args(killed), { cwd: root, encoding: 'utf8' });
    expect(again.status).toBe(0);
    expect(metrics(killed)).toEqual(ref);
  });
});
