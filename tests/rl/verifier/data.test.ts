// Real-data check of the answer checker on ReMA's 133-problem MATH training set and MATH500 (both in public/data):
// every worked solution (`groundtruth`, a full MATH solution ending in \boxed{...}) must verify against its
// reference answer (`reward_model.ground_truth`), and must NOT verify against another problem's answer or a
// perturbed box.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyMath } from '../../../src/rl/verifier/index.ts';

const root = resolve(import.meta.dirname, '../../..');
const file = join(root, 'public/data/math_train_minimal_all_types_133.jsonl');
const math500 = join(root, 'public/data/math500_test.jsonl');

interface Row {
  solution: string;
  answer: string;
}

function load(path: string): Row[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const r = JSON.parse(l) as { groundtruth: string; reward_model: { ground_truth: string } };
      return { solution: r.groundtruth, answer: r.reward_model.ground_truth };
    });
}

describe('verifyMath on the ReMA 133-problem MATH set', () => {
  const rows = load(file);

  it('accepts the worked solutions (agreement with the reference answers)', () => {
    expect(rows.length).toBe(133);
    const misses = rows.filter((r) => !verifyMath(r.answer, r.solution).correct).map((r) => r.answer);
    const agreement = (rows.length - misses.length) / rows.length;
    expect(misses).toEqual([]);
    expect(agreement).toBe(1);
  });

  it("rejects each solution against the next problem's (different) answer", () => {
    const falsePositives: string[] = [];
    for (let i = 0; i < rows.length; i++) {
      const other = rows[(i + 1) % rows.length];
      if (other.answer.replace(/\s+/g, '') === rows[i].answer.replace(/\s+/g, '')) continue;
      if (verifyMath(other.answer, rows[i].solution).correct)
        falsePositives.push(`${rows[i].answer} vs ${other.answer}`);
    }
    expect(falsePositives).toEqual([]);
  });

  it('rejects solutions whose integer answer box was changed by one', () => {
    let checked = 0;
    for (const r of rows) {
      if (!/^-?\d+$/.test(r.answer.trim())) continue;
      const boxed = `\\boxed{${r.answer}}`;
      const at = r.solution.lastIndexOf(boxed);
      if (at < 0) continue;
      const wrong = `\\boxed{${Number(r.answer) + 1}}`;
      const tampered = r.solution.slice(0, at) + wrong + r.solution.slice(at + boxed.length);
      expect(verifyMath(r.answer, tampered).correct, r.answer).toBe(false);
      checked++;
    }
    expect(checked).toBeGreaterThan(40);
  });
});

// Same value written differently (`x=5` and `5`): strip a leading assignment and spaces.
const bare = (a: string) => a.replace(/\s+/g, '').replace(/^[a-z]=/, '');

describe('verifyMath on MATH500 worked solutions', () => {
  it('accepts every worked solution', () => {
    const rows = load(math500);
    expect(rows.length).toBe(500);
    const misses = rows.filter((r) => !verifyMath(r.answer, r.solution).correct).map((r) => r.answer);
    expect(misses).toEqual([]);
  });

  it("rejects each solution against the next problem's answer unless both answers are the same value", () => {
    const rows = load(math500);
    const falsePositives: string[] = [];
    for (let i = 0; i < rows.length; i++) {
      const other = rows[(i + 1) % rows.length];
      if (bare(other.answer) === bare(rows[i].answer)) continue;
      if (verifyMath(other.answer, rows[i].solution).correct)
        falsePositives.push(`${rows[i].answer} vs ${other.answer}`);
    }
    expect(falsePositives).toEqual([]);
  });
});
