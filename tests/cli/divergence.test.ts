// `rema train` on a diverging run (a real child process, the embedded tiny model at lr 1e30): every step with
// NaN / infinite numbers prints a warning naming the step and the quantities (also with --quiet), metrics.jsonl
// flags it (nonfinite, and null numbers explained by nonfinite_quantities), and after maxNonFiniteSteps such steps
// in a row the run stops with its files written up to there and exit status 3.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');

it('rema train warns on every non-finite step and stops with status 3 after maxNonFiniteSteps', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'rema-diverge-')), 'run');
  const sets = {
    lr: 1e30,
    maxNonFiniteSteps: 2,
    problemsPerStep: 2,
    groupSize: 4,
    evalEvery: 0,
    evalBeforeTrain: false,
    trainSize: 16,
    evalSize: 2,
  };
  const flags = Object.entries(sets).flatMap(([k, v]) => ['--set', `${k}=${String(v)}`]);
  const r = spawnSync(
    'node',
    [
      bin,
      'train',
      '--preset',
      'tiny-default',
      ...flags,
      '--steps',
      '20',
      '--backend',
      'wasm',
      '--threads',
      '1',
      '--out',
      out,
      '--quiet',
    ],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  expect(r.status, r.stderr).toBe(3);
  const metrics = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const last = metrics.at(-1)!;
  expect(metrics.length).toBeLessThan(20);
  expect(metrics[0].nonfinite).toBeUndefined();
  // every flagged step has its warning line, in order, naming the step and the quantities
  const flagged = metrics.filter((m) => m.nonfinite === true);
  const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning: diverged'));
  expect(warnings.map((w) => Number(/at step (\d+):/.exec(w)?.[1]))).toEqual(flagged.map((m) => m.step));
  for (const [i, m] of flagged.entries()) {
    const quantities = (m.nonfinite_quantities as string[]).join(', ');
    expect(warnings[i]).toContain(`non-finite ${quantities} (NaN or infinite, 1 optimiser update skipped)`);
  }
  expect(last).toMatchObject({
    nonfinite: true,
    nonfinite_streak: 2,
    loss: null,
    grad_norm: null,
    nonfinite_quantities: ['logprobs', 'entropy', 'loss', 'grad_norm'],
  });
  expect(warnings.at(-1)).toMatch(
    /training stopped after 2 such steps in a row \(maxNonFiniteSteps 2\)\. Lower the learning rate \(lr 1e\+30\)/,
  );
  expect(r.stderr).toContain(`rema train: stopped at step ${String(last.step)} of 20: the run diverged`);
  expect(readFileSync(join(out, 'checkpoints/latest'), 'utf8')).toBe(`step-${String(last.step).padStart(6, '0')}`);
});
