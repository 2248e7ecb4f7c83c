// rema train --weight-dtype: the frozen base reaches the engine as f16 / bf16 halves on the wasm backend (a step
// trains and writes its files), and a backend that cannot hold halves refuses by name.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fastFlags, writeRandomModel } from './random-model.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');
const model = writeRandomModel();
const rema = (...args: string[]) => spawnSync('node', [bin, ...args], { cwd: root, encoding: 'utf8' });

describe('rema train --weight-dtype', () => {
  it.each(['f16', 'bf16'])('%s base weights on the wasm backend: a step trains', (dtype) => {
    const out = join(mkdtempSync(join(tmpdir(), `rema-${dtype}-`)), 'run');
    const r = rema(
      'train',
      '--preset',
      'tiny-default',
      ...fastFlags(model),
      '--steps',
      '1',
      '--set',
      'evalEvery=0',
      '--set',
      'evalBeforeTrain=false',
      '--backend',
      'wasm',
      '--threads',
      '1',
      '--weight-dtype',
      dtype,
      '--out',
      out,
      '--quiet',
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const metrics = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { step: number; nonfinite?: boolean });
    expect(metrics.map((m) => m.step)).toEqual([1]);
    expect(metrics[0].nonfinite ?? false).toBe(false);
  });

  it('the cpu backend keeps f32 weights and says so', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rema-f16-cpu-')), 'run');
    const r = rema(
      'train',
      '--preset',
      'tiny-default',
      ...fastFlags(model),
      '--steps',
      '1',
      '--backend',
      'cpu',
      '--weight-dtype',
      'f16',
      '--out',
      out,
      '--quiet',
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/does not support f16 weights/);
  });
});
