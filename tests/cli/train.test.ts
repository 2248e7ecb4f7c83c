// `rema train` end to end through bin/rema.mjs (a real child process): writes metrics / rollouts / eval logs and
// checkpoints, and after a SIGKILL in the middle of a run, re-running the same command resumes from the last
// checkpoint and finishes with exactly the files of an uninterrupted run (timings aside).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fastFlags, writeRandomModel } from '../helpers/cli/random-model.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');
const model = writeRandomModel();
const args = (out: string) => [
  'train',
  '--preset',
  'tiny-default',
  ...fastFlags(model),
  '--steps',
  '4',
  '--backend',
  'cpu',
  '--out',
  out,
  '--quiet',
];

function lines(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
const stripTimes = (rows: Record<string, unknown>[]) => rows.map(({ time_s: _t, ...rest }) => rest);

describe('rema train', () => {
  it('resumes after a kill with nothing lost', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'rema-train-'));
    const reference = join(tmp, 'reference');
    const full = spawnSync('node', [bin, ...args(reference)], { cwd: root, encoding: 'utf8' });
    expect(full.stderr).toBe('');
    expect(full.status).toBe(0);
    expect(full.stdout).toMatch(/4 steps/);
    const refMetrics = lines(join(reference, 'metrics.jsonl'));
    expect(refMetrics.map((m) => m.step)).toEqual([1, 2, 3, 4]);
    for (const m of refMetrics)
      for (const k of ['reward_mean', 'accuracy', 'grad_norm', 'finish_reasons']) expect(m[k]).toBeDefined();
    expect(refMetrics[1].eval_accuracy).toBeDefined();
    expect(lines(join(reference, 'eval.jsonl')).map((e) => e.step)).toEqual([0, 2, 4]);
    expect(lines(join(reference, 'rollouts.jsonl')).length).toBe(4 * 4);
    expect(readFileSync(join(reference, 'checkpoints/latest'), 'utf8')).toBe('step-000004');

    // the same run, killed once its first checkpoint exists, then started again
    const killed = join(tmp, 'killed');
    const child = spawn('node', [bin, ...args(killed)], { cwd: root, stdio: 'ignore' });
    await new Promise<void>((done, fail) => {
      const poll = setInterval(() => {
        if (existsSync(join(killed, 'checkpoints/latest'))) {
          clearInterval(poll);
          child.kill('SIGKILL');
        }
      }, 20);
      child.on('exit', () => {
        clearInterval(poll);
        done();
      });
      child.on('error', fail);
    });
    const partial = readFileSync(join(killed, 'checkpoints/latest'), 'utf8');
    expect(partial).not.toBe('step-000004');
    const resumed = spawnSync('node', [bin, ...args(killed)], { cwd: root, encoding: 'utf8' });
    expect(resumed.status).toBe(0);
    expect(resumed.stdout).toMatch(/resumed from step [1-3]/);
    expect(stripTimes(lines(join(killed, 'metrics.jsonl')))).toEqual(stripTimes(refMetrics));
    expect(lines(join(killed, 'rollouts.jsonl'))).toEqual(lines(join(reference, 'rollouts.jsonl')));
    expect(stripTimes(lines(join(killed, 'eval.jsonl')))).toEqual(stripTimes(lines(join(reference, 'eval.jsonl'))));
  });

  it('refuses to resume a folder that holds a different config, naming the file', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'rema-train-'));
    const out = join(tmp, 'run');
    expect(spawnSync('node', [bin, ...args(out).map((a) => (a === '4' ? '1' : a))], { cwd: root }).status).toBe(0);
    const other = spawnSync('node', [bin, ...args(out), '--seed', '9'], { cwd: root, encoding: 'utf8' });
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(/config\.json: this folder holds a run with a different config/);
  });

  it('reports config errors with the field name', () => {
    const r = spawnSync('node', [bin, 'train', '--preset', 'tiny-default', '--set', 'clipLow=2', '--quiet'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/field "clipLow" must be a number in \[0, 1\), got 2/);
  });
});
