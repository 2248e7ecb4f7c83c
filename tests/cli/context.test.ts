// `rema train` on a model folder whose config.json says a context (max_position_embeddings) shorter than the
// prompts (a real child process; the random model of random-model.ts with its context rewritten): when some
// episodes do not fit, a warning names the context length and the prompt's token count and metrics.jsonl /
// eval.jsonl count them (`rema eval` warns per benchmark); when even the shortest first prompt fills the context,
// the run is refused at start.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fastFlags, writeRandomModel } from '../helpers/cli/random-model.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');

function modelWithContext(context: number): string {
  const dir = writeRandomModel();
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, max_position_embeddings: context }));
  return dir;
}

function train(model: string) {
  const out = join(mkdtempSync(join(tmpdir(), 'rema-context-')), 'run');
  const r = spawnSync(
    'node',
    [
      bin,
      'train',
      '--preset',
      'tiny-default',
      ...fastFlags(model),
      '--steps',
      '2',
      '--backend',
      'cpu',
      '--out',
      out,
      '--quiet',
    ],
    { cwd: root, encoding: 'utf8' },
  );
  return { ...r, out };
}

const jsonl = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('rema train with a model context shorter than the prompts', () => {
  it('warns naming the context length and the prompt tokens, and counts the episodes in metrics.jsonl and eval.jsonl', () => {
    const r = train(modelWithContext(52));
    expect(r.status, r.stderr).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(warnings).toHaveLength(2); // the first evaluation and the first training step, not every step
    expect(warnings[0]).toMatch(
      /^warning: evaluation at step 0: \d+ of 2 episodes did not fit the model's context of 52 tokens \(prompt up to \d+ tokens \+ 6 tokens per turn\)/,
    );
    expect(warnings[1]).toMatch(
      /^warning: step 1: \d+ of 4 episodes did not fit the model's context of 52 tokens .*\(counted at every step in metrics\.jsonl: context_limited\)$/,
    );
    const metrics = jsonl(join(r.out, 'metrics.jsonl'));
    expect(metrics[0]).toMatchObject({ context_length: 52 });
    expect(metrics[0].context_limited).toBeGreaterThan(0);
    expect(metrics[0].context_prompt_tokens as number).toBeGreaterThan(52 - 6);
    expect(jsonl(join(r.out, 'eval.jsonl'))[0]).toMatchObject({ step: 0, context_length: 52 });
  });

  it('rema eval warns once per benchmark, naming the context and the prompt tokens', () => {
    const model = modelWithContext(52);
    const r = spawnSync(
      'node',
      [bin, 'eval', '--preset', 'tiny-default', ...fastFlags(model), '--limit', '4', '--backend', 'cpu', '--quiet'],
      { cwd: root, encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr.trim()).toMatch(
      /^warning: tiny-arith: \d+ of 4 episodes did not fit the model's context of 52 tokens \(prompt up to \d+ tokens \+ 6 tokens per turn\)/,
    );
    expect(r.stdout).toMatch(/tiny-arith +n= +4 +pass@1/);
  });

  it('refuses at start when the shortest first prompt fills the context', () => {
    const r = train(modelWithContext(30));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /rema: createTrainer: the model's context is 30 tokens \(max_position_embeddings\), but the first meta prompt of the shortest problem \("[^"]+"\) already takes \d+ tokens: no episode could generate a token/,
    );
  });
});
