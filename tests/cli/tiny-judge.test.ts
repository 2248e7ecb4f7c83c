// `npx rema train --preset tiny-judge --steps 1` on the judge-trained embedded model (public/models/tiny-rema-judge),
// shrunk to 2 problems x group 4 and 8 held-out items: it runs, every episode is a one-round judge dialogue (the
// plan ends it with [FINISH], the reasoning agent answers once with a verdict), and nothing is cut by the context.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

const jsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('rema train --preset tiny-judge', () => {
  it('runs a step on the judge model with one-round judge dialogues', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rema-tiny-judge-')), 'run');
    const r = spawnSync(
      'node',
      [
        join(root, 'bin/rema.mjs'),
        'train',
        '--preset',
        'tiny-judge',
        '--steps',
        '1',
        '--set',
        'problemsPerStep=2',
        '--set',
        'groupSize=4',
        '--set',
        'evalSize=8',
        '--backend',
        'wasm',
        '--out',
        out,
        '--quiet',
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(config.model).toBe('tiny-rema-judge');
    expect(config.trainSet).toBe('tiny-judge');
    const [metrics] = jsonl(join(out, 'metrics.jsonl'));
    expect(metrics.step).toBe(1);
    expect(metrics.context_limited ?? 0).toBe(0);
    expect(metrics.finish_reasons).toMatchObject({ finished: expect.any(Number) });
    type Episode = { step: number; turns: { role: string; text: string }[]; finish_reason: string };
    const training = jsonl(join(out, 'rollouts.jsonl')) as Episode[];
    const evaluated = jsonl(join(out, 'eval_rollouts.jsonl')) as Episode[];
    expect(training).toHaveLength(8);
    // the evaluation before training and after the step, 8 items each
    expect(evaluated.map((e) => e.step)).toEqual([...Array(8).fill(0), ...Array(8).fill(1)]);
    // greedy decoding always follows the warm-up's one-round protocol; sampled episodes mostly do
    for (const e of evaluated) {
      expect(e.finish_reason).toBe('finished');
      expect(e.turns.map((t) => t.role)).toEqual(['meta', 'reasoning']);
      expect(e.turns[0].text).toMatch(/\[FINISH\]$/);
      expect(e.turns[1].text).toMatch(/\[\[[AB]\]\]$/);
    }
    const oneRound = training.filter((e) => e.finish_reason === 'finished' && e.turns.length === 2);
    expect(oneRound.length).toBeGreaterThanOrEqual(6);
  });
});
