// `rema train --explain` through bin/rema.mjs (a real child process): explain.jsonl gets one record per step whose
// grad norm is the step's metric and whose optimiser steps' per-layer norms add up (root-sum-square) to their
// norm; a resumed run drops records past its checkpoint and continues the file; without the flag there is no file
// and a bad value is refused naming the flag.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExplainRecord } from '../../src/rl/train/explain.ts';
import { fastFlags, writeRandomModel } from '../helpers/cli/random-model.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');
const model = writeRandomModel();
const train = (out: string, steps: number, extra: string[] = []) =>
  spawnSync(
    'node',
    [
      bin,
      'train',
      '--preset',
      'tiny-default',
      ...fastFlags(model),
      '--set',
      'evalEvery=0',
      '--steps',
      String(steps),
      '--backend',
      'cpu',
      '--out',
      out,
      '--quiet',
      ...extra,
    ],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
const lines = <T>(path: string): T[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);

describe('rema train --explain', () => {
  it('writes one record per step, and a resume continues the file', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rema-explain-')), 'run');
    const first = train(out, 2, ['--explain', 'one']);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const records = lines<ExplainRecord>(join(out, 'explain.jsonl'));
    const metrics = lines<{ step: number; grad_norm: number }>(join(out, 'metrics.jsonl'));
    expect(records.map((r) => r.step)).toEqual([1, 2]);
    records.forEach((r, i) => {
      expect(r.groups).toHaveLength(1);
      expect(r.gradNorm).toBeCloseTo(metrics[i].grad_norm, 10);
      for (const s of r.optimizerSteps) expect(Math.hypot(...s.layers.map((l) => l.norm))).toBeCloseTo(s.gradNorm, 4);
    });
    // a line past the checkpoint (a killed run wrote it before saving) is dropped on resume
    appendFileSync(join(out, 'explain.jsonl'), JSON.stringify({ ...records[1], step: 3 }) + '\n');
    const resumed = train(out, 3, ['--explain', 'one']);
    expect(resumed.status).toBe(0);
    expect(resumed.stdout).toMatch(/resumed from step 2/);
    const after = lines<ExplainRecord>(join(out, 'explain.jsonl'));
    expect(after.map((r) => r.step)).toEqual([1, 2, 3]);
    expect(after[2].gradNorm).toBeCloseTo(lines<{ grad_norm: number }>(join(out, 'metrics.jsonl'))[2].grad_norm, 10);
  }, 120_000);

  it('is off unless asked; a bad value names the flag', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rema-explain-')), 'run');
    expect(train(out, 1).status).toBe(0);
    expect(existsSync(join(out, 'explain.jsonl'))).toBe(false);
    const bad = train(join(out, 'x'), 1, ['--explain', 'some']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/--explain/);
  }, 120_000);
});
