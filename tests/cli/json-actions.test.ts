// `rema train --preset tiny-json-actions` on the embedded model for 2 small steps: every step's metrics.jsonl
// record carries the three action fractions summing to 1 and their per-level breakdown, and every meta-thinking
// turn in rollouts.jsonl is a valid meta-action answer whose action the fractions count.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MetricsRecord, RolloutRecord } from '../../src/rl/metrics.ts';
import { parseMetaAction } from '../../src/rl/protocol/json-actions/grammar.ts';

const root = resolve(import.meta.dirname, '../..');
const lines = <T>(file: string): T[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);

describe('rema train --preset tiny-json-actions (embedded model)', () => {
  it('writes action_DECOMPOSE / action_REWRITE / action_EMPTY summing to 1 per step, by level too', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rema-json-')), 'run');
    const r = spawnSync(
      'node',
      [
        join(root, 'bin/rema.mjs'),
        'train',
        '--preset',
        'tiny-json-actions',
        '--steps',
        '2',
        '--set',
        'problemsPerStep=3',
        '--set',
        'groupSize=4',
        '--set',
        'evalSize=4',
        '--set',
        'evalBeforeTrain=false',
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
    const metrics = lines<MetricsRecord>(join(out, 'metrics.jsonl'));
    expect(metrics.map((m) => m.step)).toEqual([1, 2]);
    const rollouts = lines<RolloutRecord>(join(out, 'rollouts.jsonl'));
    for (const m of metrics) {
      const f = [m.action_DECOMPOSE, m.action_REWRITE, m.action_EMPTY];
      for (const x of f) expect(typeof x).toBe('number');
      expect(f[0]! + f[1]! + f[2]!).toBeCloseTo(1, 12);
      const levels = Object.values(m.action_by_level!);
      expect(levels.reduce((s, l) => s + l.n, 0)).toBe(3 * 4);
      for (const l of levels) expect(l.DECOMPOSE + l.REWRITE + l.EMPTY).toBeCloseTo(1, 12);
      // the fractions count the step's meta-thinking turns as rollouts.jsonl shows them
      const plans = rollouts
        .filter((x) => x.step === m.step)
        .map((x) => parseMetaAction(x.turns.find((t) => t.role === 'meta')!.text));
      expect(plans).toHaveLength(12);
      for (const a of ['DECOMPOSE', 'REWRITE', 'EMPTY'] as const) {
        expect(m[`action_${a}`]).toBeCloseTo(plans.filter((p) => p?.action === a).length / 12, 12);
      }
    }
  });
});
