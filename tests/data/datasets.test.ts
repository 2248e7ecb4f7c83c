// Dataset loading: the shipped sets parse completely with the right answers, and bad lines name file, line, field.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProblems, SHIPPED_DATASETS } from '../../src/data/datasets.ts';
import { parseJsonl } from '../../src/data/jsonl.ts';

const publicData = resolve(import.meta.dirname, '../../public/data');
const read = (f: string) => readFileSync(join(publicData, f), 'utf8');

describe('shipped problem sets', () => {
  it('math133: 133 problems, 19 per MATH type, answers from reward_model.ground_truth', () => {
    const problems = parseProblems(read(SHIPPED_DATASETS.math133), SHIPPED_DATASETS.math133);
    expect(problems.length).toBe(133);
    const perType = new Map<string, number>();
    for (const p of problems) perType.set(p.subject!, (perType.get(p.subject!) ?? 0) + 1);
    expect([...perType.values()]).toEqual(Array(7).fill(19));
    // first row of the file (the paper's set): the ice-cube problem, answer 420
    expect(problems[0].answer).toBe('420');
    expect(problems[0].question).not.toMatch(/Let's think step by step/);
    expect(problems[0].level).toBe('Level 3');
  });
  it('math500 and gsm8k parse every row with unique ids', () => {
    const m = parseProblems(read(SHIPPED_DATASETS.math500), SHIPPED_DATASETS.math500);
    expect(m.length).toBe(500);
    expect(m[0].answer).toBe('\\left( 3, \\frac{\\pi}{2} \\right)');
    expect(m[0].level).toBe('Level 2');
    const g = parseProblems(read(SHIPPED_DATASETS.gsm8k), SHIPPED_DATASETS.gsm8k);
    expect(g.length).toBe(1319);
    expect(g[0].answer).toBe('18');
    expect(new Set(g.map((p) => p.id)).size).toBe(1319);
  });
});

describe('validation errors', () => {
  it('names the file and line of invalid JSON', () => {
    expect(() => parseJsonl('{"a":1}\n\n{oops}\n', 'x.jsonl')).toThrow(/^x\.jsonl:3: not valid JSON/);
  });
  it('names the missing or malformed field', () => {
    expect(() => parseProblems('{"question":"1+1?","answer":"2"}\n{"answer":"3"}\n', 'u.jsonl')).toThrow(
      /u\.jsonl:2: field "question"/,
    );
    expect(() => parseProblems('{"question":"1+1?"}\n', 'u.jsonl')).toThrow(/u\.jsonl:1: missing answer/);
    expect(() => parseProblems('{"question":"q","answer":"C","task":"judge"}\n', 'j.jsonl')).toThrow(
      /j\.jsonl:1: a judge problem's answer must be "A" or "B"/,
    );
    expect(() => parseProblems('[1,2]\n', 'a.jsonl')).toThrow(/a\.jsonl:1: expected a JSON object/);
    expect(() => parseProblems('\n', 'e.jsonl')).toThrow(/e\.jsonl: no problems/);
    expect(() =>
      parseProblems('{"id":"a","question":"q","answer":1}\n{"id":"a","question":"r","answer":2}\n', 'd.jsonl'),
    ).toThrow(/d\.jsonl:2: id "a" repeats line 1/);
  });
  it('accepts minimal rows with numeric answers', () => {
    const [p] = parseProblems('{"question":"What is 6*7?","answer":42}\n', 'mine.jsonl');
    expect(p).toEqual({ id: 'mine:1', task: 'math', question: 'What is 6*7?', answer: '42' });
  });
});
