// Numeric flags through the real CLI (bin/rema.mjs in a child process): every value that is not what the flag
// means is refused with one line naming the flag and the text given, before anything runs or is written.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fastFlags, writeRandomModel } from '../helpers/cli/random-model.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');
const model = writeRandomModel();

function rema(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn('node', [bin, ...args], { cwd: root });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

describe('numeric flags', () => {
  it('refuses values a flag cannot mean, naming the flag and the text', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'rema-flags-'));
    const file = join(tmp, 'p.jsonl');
    const train = (out: string, ...extra: string[]) => [
      'train',
      '--preset',
      'tiny-default',
      ...fastFlags(model),
      '--steps',
      '1',
      '--backend',
      'cpu',
      '--quiet',
      '--out',
      join(tmp, out),
      ...extra,
    ];
    const evaluate = (...extra: string[]) => [
      'eval',
      '--preset',
      'tiny-default',
      ...fastFlags(model),
      '--file',
      file,
      '--backend',
      'cpu',
      '--quiet',
      ...extra,
    ];
    const cases: [string[], string][] = [
      [train('a', '--save-every', '0'), '--save-every must be a positive integer, got "0"'],
      [train('b', '--save-every', 'abc'), '--save-every must be a positive integer, got "abc"'],
      [train('c', '--save-every', '2.5'), '--save-every must be a positive integer, got "2.5"'],
      [evaluate('--limit', 'abc'), '--limit must be a non-negative integer, got "abc"'],
      [evaluate('--limit', '-3'), '--limit must be a non-negative integer, got "-3"'],
      [train('d', '--set', 'lr=1e400'), '--set lr=1e400: not a finite number'],
      [
        [
          'sweep',
          '--preset',
          'tiny-default',
          '--grid',
          '{"ratio":["token"]}',
          '--seeds',
          '0,1.5',
          '--out',
          join(tmp, 'sweep'),
        ],
        '--seeds must be a non-negative integer, got "1.5"',
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => rema(args)));
    results.forEach((r, i) => {
      expect({ args: cases[i][0].slice(-2), status: r.status, stderr: r.stderr }).toEqual({
        args: cases[i][0].slice(-2),
        status: 1,
        stderr: `rema: ${cases[i][1]}\n`,
      });
    });
    // nothing ran: no run folder was created
    for (const out of ['a', 'b', 'c', 'd', 'sweep']) expect(existsSync(join(tmp, out))).toBe(false);
  });
});
