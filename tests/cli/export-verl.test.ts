// `rema export --verl --format overrides`: the Hydra command line for the fork, which for the paper preset holds
// every override of the fork's scripts/rl/rema/example_7b.sh as written there; `--out` writes the same text.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const rema = (...args: string[]) =>
  spawnSync('node', [join(root, 'bin/rema.mjs'), ...args], { cwd: root, encoding: 'utf8' });

describe('rema export --verl --format overrides', () => {
  it('prints a runnable command line holding every line of the paper script', () => {
    const r = rema(
      'export',
      '--verl',
      '--preset',
      'paper-multiturn-7b',
      '--set',
      'oldLogProbs="score"',
      '--set',
      'maxNonFiniteSteps=0',
      '--format',
      'overrides',
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^PROJECT_NAME=.*\nEXPERIMENT_NAME=paper-multiturn-7b\nMODEL_PATH=Qwen\/Qwen2.5-7B\n\npython -m verl.rema_trainer.main_ppo \\\n/m,
    );
    const lines = new Set(r.stdout.split('\n').map((l) => l.trim().replace(/ \\$/, '')));
    const script = readFileSync(resolve(root, 'tests/fixtures/verl/rema.example_7b.overrides'), 'utf8')
      .trim()
      .split('\n');
    // the preset evaluates on MATH500 (the fork's data/MATH/test500.parquet), the script on the 7-benchmark mix
    expect(script.filter((l) => !lines.has(l))).toEqual(['data.val_files=data/overall_math/test.parquet']);
    expect(lines).toContain('data.val_files=data/MATH/test500.parquet');
    expect(r.stderr).toBe('');
  });

  it('writes to --out and refuses an unknown format', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rema-export-')), 'run.sh');
    const r = rema('export', '--verl', '--preset', 'ablation-separate-params', '--format', 'overrides', '--out', out);
    expect(r.status).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('python -m verl.rema_separated_trainer.main_ppo \\');
    expect(text).toContain('algorithm.switch_agent.model_paths=[$MODEL_PATH,$MODEL_PATH]');
    const bad = rema('export', '--verl', '--preset', 'vrp', '--format', 'json');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/argument 'json' is invalid\. Allowed choices are yaml, overrides/);
  });
});
