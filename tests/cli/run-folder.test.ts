// Run folders through the real CLI (bin/rema.mjs in child processes): one `rema train` per folder (the second
// names the holder; a SIGKILLed holder's lock does not block), logs that lost checkpointed steps refuse the
// resume, a damaged latest checkpoint falls back to the newest intact one, and a full disk (a log that is a
// link to /dev/full, which fails every write with ENOSPC) is reported with the file's name.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fastFlags, writeRandomModel } from '../helpers/cli/random-model.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');
const model = writeRandomModel();
const train = (out: string, steps: number, ...extra: string[]) => [
  'train',
  '--preset',
  'tiny-default',
  ...fastFlags(model),
  '--steps',
  String(steps),
  '--backend',
  'cpu',
  '--out',
  out,
  '--quiet',
  ...extra,
];
const rema = (args: string[]) => spawnSync('node', [bin, ...args], { cwd: root, encoding: 'utf8' });
const steps = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { step: number }).step);

function waitFor(check: () => boolean, what: string): Promise<void> {
  return new Promise((done, fail) => {
    const t0 = Date.now();
    const poll = setInterval(() => {
      if (check()) {
        clearInterval(poll);
        done();
      } else if (Date.now() - t0 > 60_000) {
        clearInterval(poll);
        fail(new Error(`timed out waiting for ${what}`));
      }
    }, 20);
  });
}

describe('rema train run folders', () => {
  it('refuses a second train on a folder in use, naming the holder; a killed holder does not block', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rema-lock-')), 'run');
    const holder = spawn('node', [bin, ...train(out, 500)], { cwd: root, stdio: 'ignore' });
    const exited = new Promise<void>((done) => holder.on('exit', () => done()));
    try {
      await waitFor(() => existsSync(join(out, 'checkpoints/latest')), 'the first checkpoint');
      const second = rema(train(out, 500));
      expect(second.status).toBe(1);
      expect(second.stderr).toMatch(
        new RegExp(
          `in use by another rema train \\(pid ${holder.pid} on host ${hostname()}, started \\d{4}-\\d\\d-\\d\\dT[^)]*\\)`,
        ),
      );
      expect(second.stderr.trim().split('\n').length).toBe(1);
    } finally {
      holder.kill('SIGKILL');
    }
    await exited;
    expect(existsSync(join(out, 'rema.lock'))).toBe(true); // left behind by the kill
    const after = rema(train(out, 1));
    expect(after.stderr).toBe('');
    expect(after.status).toBe(0);
    expect(after.stdout).toMatch(/resumed from step \d+/);
    expect(existsSync(join(out, 'rema.lock'))).toBe(false);
  });

  it('refuses to resume when a log lost steps the checkpoint covers, naming the file and the steps', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rema-logs-')), 'run');
    expect(rema(train(out, 3)).status).toBe(0);
    writeFileSync(join(out, 'metrics.jsonl'), ''); // what a kill in the middle of a rewrite in place left
    const r = rema(train(out, 4));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /metrics\.jsonl: no record of steps 1-3, which the checkpoint .*step-000003 \(step 3\) covers/,
    );
    expect(readFileSync(join(out, 'metrics.jsonl'), 'utf8')).toBe('');
    expect(steps(join(out, 'rollouts.jsonl'))).toEqual([1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
  });

  it('resumes from the newest intact checkpoint when the latest is damaged, and the logs follow it', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rema-damaged-')), 'run');
    expect(rema(train(out, 3)).status).toBe(0);
    const weights = join(out, 'checkpoints/step-000003/adapters/shared/adapter_model.safetensors');
    truncateSync(weights, Math.floor(statSync(weights).size / 2));
    const r = rema(train(out, 4));
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(
      /damaged checkpoint skipped: .*step-000003\/adapters\/shared\/adapter_model\.safetensors: \d+ bytes, but the checkpoint wrote \d+/,
    );
    expect(r.stderr).toMatch(/using the newest intact checkpoint instead: .*step-000002 \(step 2\)/);
    expect(r.stdout).toMatch(/resumed from step 2/);
    expect(steps(join(out, 'metrics.jsonl'))).toEqual([1, 2, 3, 4]);
    expect(steps(join(out, 'eval.jsonl'))).toEqual([0, 2, 4]);
    expect(existsSync(join(out, 'checkpoints/damaged-step-000003'))).toBe(true);
    expect(readFileSync(join(out, 'checkpoints/latest'), 'utf8')).toBe('step-000004');
  });

  it('names the file a full disk refused', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rema-full-')), 'run');
    mkdirSync(out);
    const metrics = join(out, 'metrics.jsonl');
    symlinkSync('/dev/full', metrics);
    const r = rema(train(out, 1));
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`rema: ${metrics}: cannot write (ENOSPC: no space left on device, write)\n`);
    expect(existsSync(join(out, 'rema.lock'))).toBe(false);
  });
});
