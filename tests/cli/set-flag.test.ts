// `--set key=value` through the real CLI (bin/rema.mjs in a child process): the value is read by the field's type
// from the config's field table (a run name of digits stays a string, a list field takes comma-separated names),
// and a mistyped key is refused naming the close field names.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');
const rema = (...args: string[]) => spawnSync('node', [bin, ...args], { cwd: root, encoding: 'utf8' });

describe('--set', () => {
  it('reads each value by its field type', () => {
    const r = rema(
      'export',
      '--verl',
      '--preset',
      'tiny-default',
      '--set',
      'name=123',
      '--set',
      'loraTargets=q_proj,v_proj',
      '--set',
      'dualClip=null',
      '--format',
      'overrides',
    );
    expect(r.stderr).not.toMatch(/invalid config/);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('EXPERIMENT_NAME=123\n');
  });
  it('names the close field names of an unknown key', () => {
    const r = rema('export', '--verl', '--preset', 'tiny-default', '--set', 'grupSize=4', '--format', 'overrides');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('unknown field "grupSize" (did you mean "groupSize"?)');
  });
});
