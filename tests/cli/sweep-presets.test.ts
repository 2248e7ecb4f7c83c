// `rema sweep` with protocol presets as the grid's axis, on the embedded model: one row per preset and seed, every
// run with the same steps and held-out evaluation (size and problems) from the base config, and each run folder's
// config is its preset's protocol.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import type { ExperimentConfig } from '../../src/rl/config.ts';

const root = resolve(import.meta.dirname, '../..');

it('sweeps tiny-default, vrp-rl and mrp-rl x 2 seeds x 2 steps with the same evaluation', { timeout: 900_000 }, () => {
  const out = join(mkdtempSync(join(tmpdir(), 'rema-sweep-presets-')), 'sweep');
  const r = spawnSync(
    'node',
    [
      join(root, 'bin/rema.mjs'),
      'sweep',
      '--grid',
      '{"preset":["tiny-default","vrp-rl","mrp-rl"]}',
      '--seeds',
      '0,1',
      '--steps',
      '2',
      '--set',
      'evalSize=8',
      '--out',
      out,
      '--quiet',
    ],
    { cwd: root, encoding: 'utf8' },
  );
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/summary\.csv: 6 runs/);
  const csv = readFileSync(join(out, 'summary.csv'), 'utf8').trim().split('\n');
  const header = csv[0].split(',');
  const col = (line: string, name: string) => line.split(',')[header.indexOf(name)];
  const runs = csv.slice(1).filter((l) => col(l, 'seed') !== 'all');
  expect(runs.map((l) => `${col(l, 'preset')}#${col(l, 'seed')}`)).toEqual([
    'tiny-default#0',
    'tiny-default#1',
    'vrp-rl#0',
    'vrp-rl#1',
    'mrp-rl#0',
    'mrp-rl#1',
  ]);
  for (const l of runs) {
    expect(col(l, 'steps')).toBe('2');
    expect(col(l, 'eval_n')).toBe('8');
    expect(Number(col(l, 'tokens_trained'))).toBeGreaterThan(0);
    expect(Number(col(l, 'train_time_s'))).toBeGreaterThan(0);
  }
  const configs = readdirSync(out)
    .filter((d) => d.includes('__seed'))
    .map((d) => JSON.parse(readFileSync(join(out, d, 'config.json'), 'utf8')) as ExperimentConfig);
  expect(configs.map((c) => c.mode).toSorted()).toEqual([
    'mrp-rl',
    'mrp-rl',
    'multi-turn',
    'multi-turn',
    'vrp-rl',
    'vrp-rl',
  ]);
  expect(
    new Set(configs.map((c) => JSON.stringify([c.steps, c.evalSet, c.evalSize, c.evalEvery, c.trainSet]))),
  ).toEqual(new Set([JSON.stringify([2, 'tiny-arith', 8, 10, 'tiny-arith'])]));
});
