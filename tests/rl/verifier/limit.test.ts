// A check's hard limit is a timer's delay: past 2^31 - 1 ms Node fires it at once (every answer would time out
// and `rema verify` would exit 0). Both the command's flag and the checker refuse such a limit, naming it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runVerify } from '../../../src/cli/verify.ts';
import { MAX_TIMER_MS } from '../../../src/rl/verifier/checker.ts';

const root = new URL('../../..', import.meta.url).pathname;

describe('rema verify --limit-ms beyond a timer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rema-verify-limit-'));
  const input = join(dir, 'in.jsonl');
  writeFileSync(input, JSON.stringify({ gold: '2', pred: '\\boxed{2}' }) + '\n');

  it('refuses 2^31 ms and more on the command line, and takes the largest timer delay', () => {
    for (const ms of ['2147483648', '99999999999']) {
      const r = spawnSync('node', [join(root, 'bin/rema.mjs'), 'verify', '--in', input, '--limit-ms', ms], {
        cwd: root,
        encoding: 'utf8',
      });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain(`--limit-ms must be an integer from 1 to ${MAX_TIMER_MS}, got "${ms}"`);
    }
    const ok = spawnSync(
      'node',
      [join(root, 'bin/rema.mjs'), 'verify', '--in', input, '--limit-ms', `${MAX_TIMER_MS}`],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout.trim())).toMatchObject({ verdict: true });
  }, 60_000);

  it('the checker itself refuses a limit a timer cannot wait', async () => {
    await expect(runVerify(input, undefined, { limitMs: 2 ** 31 })).rejects.toThrow(
      `preemptibleChecker: limitMs must be a whole number of ms from 1 to ${MAX_TIMER_MS}, got ${2 ** 31}`,
    );
  });
});
