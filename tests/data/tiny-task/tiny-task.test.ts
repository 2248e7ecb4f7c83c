// The tiny task: answers checked by an independent reading of the rendered question (a small parser and evaluator
// written here, sharing nothing with the generator's arithmetic), split disjointness, levels, traces (gold, flawed,
// empty plans), the agents' chats, and the judge task.

import { describe, expect, it } from 'vitest';
import { metaChat, reasoningChat } from '../../../src/data/tiny-task/chats.ts';
import {
  tinyArithProblems,
  tinyJudgeItems,
  tinyJudgeProblems,
  tinySpecs,
} from '../../../src/data/tiny-task/dataset.ts';
import { LEVELS } from '../../../src/data/tiny-task/generator.ts';
import { judgeTrace } from '../../../src/data/tiny-task/judge.ts';
import { TINY_META_SYSTEM, TINY_REASONING_SYSTEM } from '../../../src/data/tiny-task/prompts.ts';
import { renderQuestion } from '../../../src/data/tiny-task/text.ts';
import { multiTurnTrace, type PlanVariant } from '../../../src/data/tiny-task/traces.ts';
import { Rng } from '../../../src/util/rng.ts';

/** Read a question as a list of operations on a running amount: [start, ...ops]; "3x4" is a bag product. */
function parseQuestion(q: string): { ops: string[]; item: string } {
  const sentences = q.match(/[^.?]+[.?]/g)!.map((s) => s.trim());
  const ops: string[] = [];
  let item = '';
  for (const s of sentences) {
    let m: RegExpExecArray | null;
    if ((m = /^[A-Z][a-z]+ has (\d+) bags of (\d+) ([a-z]+)\.$/.exec(s))) {
      ops.push(`=${m[1]}x${m[2]}`);
      item = m[3];
    } else if ((m = /^[A-Z][a-z]+ has (\d+) ([a-z]+)\.$/.exec(s))) {
      ops.push(`=${m[1]}`);
      item = m[2];
    } else if ((m = /^(?:She|He) buys (\d+) bags of (\d+) more\.$/.exec(s))) ops.push(`+${m[1]}x${m[2]}`);
    else if ((m = /^(?:She|He) (?:buys|finds|gets) (\d+) more\.$/.exec(s))) ops.push(`+${m[1]}`);
    else if ((m = /^(?:She|He) (?:gives away|loses|sells) (\d+)\.$/.exec(s))) ops.push(`-${m[1]}`);
    else if (/^(?:She|He) doubles them\.$/.test(s)) ops.push('*2');
    else if (/^(?:She|He) triples them\.$/.test(s)) ops.push('*3');
    else if (/^(?:She|He) keeps half\.$/.test(s)) ops.push('/2');
    else if (/^(?:She|He) keeps a third\.$/.test(s)) ops.push('/3');
    else if ((m = /^How many ([a-z]+) now\?$/.exec(s))) expect(m[1]).toBe(item);
    else throw new Error(`unparsed sentence: ${s}`);
  }
  return { ops, item };
}

/** Evaluate parsed operations; returns every running value. Division must be exact. */
function evaluate(ops: readonly string[]): number[] {
  const values: number[] = [];
  let v = 0;
  for (const op of ops) {
    const n = op
      .slice(1)
      .split('x')
      .reduce((a, b) => a * Number(b), 1);
    if (op[0] === '=') v = n;
    else if (op[0] === '+') v += n;
    else if (op[0] === '-') v -= n;
    else if (op[0] === '*') v *= n;
    else {
      expect(v % n, `inexact division in ${ops.join(' ')}`).toBe(0);
      v /= n;
    }
    values.push(v);
  }
  return values;
}

/** Check "a op b=c." equations of a computation text, returning the last result. */
function checkEquations(text: string): number {
  const eqs = [...text.matchAll(/(\d+)([-+*/])(\d+)=(\d+)\./g)];
  expect(eqs.length).toBeGreaterThan(0);
  let last = NaN;
  for (const [, a, op, b, c] of eqs) {
    const expected = evaluate([`=${a}`, `${op}${b}`])[1];
    expect(Number(c), `${a}${op}${b}=${c}`).toBe(expected);
    last = Number(c);
  }
  return last;
}

/** a question's arithmetic chain, read back from its text */
const chain = (q: string) => parseQuestion(q).ops.join(' ');
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('tiny arithmetic problems', () => {
  const sets = (['train', 'heldout'] as const).map((split) => tinyArithProblems({ split, count: 900, seed: 3 }));

  it('every answer equals an independent evaluation of the question text; values stay in range', () => {
    for (const problems of sets) {
      for (const p of problems) {
        const values = evaluate(parseQuestion(p.question).ops);
        expect(String(values.at(-1)), p.question).toBe(p.answer);
        const level = Number(p.level!.slice(1)) as 1 | 2 | 3;
        for (const v of values) {
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(LEVELS[level].maxValue);
        }
      }
    }
  });

  it('levels are balanced and harder levels have longer chains', () => {
    const problems = sets[0];
    const byLevel = new Map<string, number[]>();
    for (const p of problems) {
      const n = parseQuestion(p.question).ops.length;
      byLevel.set(p.level!, [...(byLevel.get(p.level!) ?? []), n]);
    }
    expect([...byLevel.keys()].toSorted()).toEqual(['L1', 'L2', 'L3']);
    expect(byLevel.get('L1')!.length).toBe(300);
    expect(mean(byLevel.get('L2')!)).toBeGreaterThan(mean(byLevel.get('L1')!));
    expect(mean(byLevel.get('L3')!)).toBeGreaterThan(mean(byLevel.get('L2')!));
  });

  it('train and held-out never share an arithmetic chain (read back from the text)', () => {
    const train = new Set(tinyArithProblems({ split: 'train', count: 3000, seed: 11 }).map((p) => chain(p.question)));
    const heldout = tinyArithProblems({ split: 'heldout', count: 600, seed: 12 }).map((p) => chain(p.question));
    expect(new Set(heldout).size).toBe(heldout.length); // held-out chains are distinct
    for (const c of heldout) expect(train.has(c), c).toBe(false);
  });

  it('is deterministic given the seed and differs across seeds', () => {
    const a = tinyArithProblems({ split: 'train', count: 50, seed: 5 });
    expect(tinyArithProblems({ split: 'train', count: 50, seed: 5 })).toEqual(a);
    const b = tinyArithProblems({ split: 'train', count: 50, seed: 6 });
    expect(b.map((p) => p.question)).not.toEqual(a.map((p) => p.question));
    expect(new Set(a.map((p) => p.id)).size).toBe(50);
  });
});

describe('tiny traces', () => {
  const specs = tinySpecs({ split: 'train', count: 600, seed: 21 });
  const traceOf = (variant: PlanVariant, i: number) => multiTurnTrace(specs[i], variant, new Rng(i));

  it('gold traces: plan, correct equations, [FINISH], boxed answer equal to the independent evaluation', () => {
    for (let i = 0; i < specs.length; i++) {
      const t = traceOf('gold', i);
      const answer = evaluate(parseQuestion(t.question).ops).at(-1)!;
      expect(t.turns).toHaveLength(2);
      expect(t.turns[0].meta.length).toBeGreaterThan(0);
      expect(t.turns[0].meta).not.toContain('[FINISH]');
      expect(checkEquations(t.turns[0].reasoning)).toBe(answer);
      expect(t.turns[1].meta).toMatch(/\[FINISH\]$/);
      expect(t.turns[1].reasoning).toBe(`\\boxed{${answer}}`);
      // keep turns short: the tiny model's rollouts must be cheap
      for (const turn of t.turns) expect(turn.meta.length + turn.reasoning.length).toBeLessThan(140);
    }
  });

  it('flawed plans are followed faithfully to a wrong answer; empty plans still solve the problem', () => {
    let flawed = 0;
    for (let i = 0; i < specs.length; i++) {
      const gold = traceOf('gold', i);
      const t = traceOf('flawed', i);
      if (t.variant !== 'flawed') continue;
      flawed++;
      expect(t.turns[0].meta).not.toBe(gold.turns[0].meta);
      const result = checkEquations(t.turns[0].reasoning); // the arithmetic itself is right
      expect(result).not.toBe(t.answer);
      expect(t.turns[1].reasoning).toBe(`\\boxed{${result}}`);
      const empty = traceOf('empty', i);
      expect(empty.turns[0].meta).toBe('');
      expect(empty.turns[0].reasoning).toBe(gold.turns[0].reasoning);
    }
    expect(flawed).toBeGreaterThan(specs.length * 0.8);
  });

  it('misread plans plan every loss as a gain, consistently, and are followed faithfully to a wrong answer', () => {
    let misread = 0;
    for (let i = 0; i < specs.length; i++) {
      const gold = traceOf('gold', i);
      const t = traceOf('misread', i);
      const losses = (t.question.match(/gives away|loses|sells/g) ?? []).length;
      if (t.variant !== 'misread') {
        expect(t.turns).toEqual(gold.turns); // no loss event (or no integer misreading): the gold plan
        continue;
      }
      misread++;
      expect(losses).toBeGreaterThan(0);
      expect(t.turns[0].meta).not.toMatch(/Subtract/);
      expect(t.turns[0].meta.match(/Add \d+\./g)?.length).toBe(
        (gold.turns[0].meta.match(/(Add|Subtract) \d+\./g) ?? []).length,
      );
      const result = checkEquations(t.turns[0].reasoning);
      expect(result).toBeGreaterThan(t.answer);
      expect(t.turns[1].reasoning).toBe(`\\boxed{${result}}`);
    }
    expect(misread).toBeGreaterThan(specs.length * 0.3);
  });

  it('chats follow the ReMA code: own list per agent, "Question:\\n..\\n\\nInstruction:\\n..", [FINISH] stripped from RA', () => {
    const t = traceOf('gold', 0);
    const turns = [t.turns[0], { meta: t.turns[1].meta, reasoning: `${t.turns[1].reasoning} [FINISH]` }];
    expect(metaChat(TINY_META_SYSTEM, t.question, turns)).toEqual([
      { role: 'system', content: TINY_META_SYSTEM },
      { role: 'user', content: t.question },
      { role: 'assistant', content: turns[0].meta },
      { role: 'user', content: turns[0].reasoning },
      { role: 'assistant', content: turns[1].meta },
    ]);
    expect(reasoningChat(TINY_REASONING_SYSTEM, t.question, turns)).toEqual([
      { role: 'system', content: TINY_REASONING_SYSTEM },
      { role: 'user', content: `Question:\n${t.question}\n\nInstruction:\n${turns[0].meta}` },
      { role: 'assistant', content: turns[0].reasoning },
      { role: 'user', content: turns[1].meta },
      { role: 'assistant', content: t.turns[1].reasoning },
    ]);
  });
});

describe('tiny judge task', () => {
  it('exactly one candidate has a wrong equation; the answer names the other; the trace ends in the verdict', () => {
    const items = tinyJudgeItems({ split: 'train', count: 300, seed: 4 });
    let firstIsCorrect = 0;
    for (const item of items) {
      const [question, lineA, lineB] = item.question.split('\n');
      expect(question).toBe(renderQuestion(item.spec));
      const wrongIn = (line: string) =>
        [...line.matchAll(/(\d+)([-+*/])(\d+)=(\d+)/g)].filter(
          ([, a, op, b, c]) => evaluate([`=${a}`, `${op}${b}`])[1] !== Number(c),
        );
      const wrongA = wrongIn(lineA.slice(3));
      const wrongB = wrongIn(lineB.slice(3));
      expect(wrongA.length + wrongB.length).toBe(1);
      expect(item.correct).toBe(wrongA.length === 0 ? 'A' : 'B');
      const boxedOfCorrect = /\\boxed\{(\d+)\}/.exec(item.correct === 'A' ? lineA : lineB)![1];
      expect(boxedOfCorrect).toBe(String(evaluate(parseQuestion(question).ops).at(-1)));
      const turns = judgeTrace(item);
      expect(turns.at(-1)!.reasoning).toBe(`[[${item.correct}]]`);
      expect(turns[0].reasoning).toContain([...wrongA, ...wrongB][0][0]);
      if (item.correct === 'A') firstIsCorrect++;
    }
    expect(firstIsCorrect).toBeGreaterThan(100);
    expect(firstIsCorrect).toBeLessThan(200);
    const problems = tinyJudgeProblems({ split: 'heldout', count: 30, seed: 4 });
    expect(problems.every((p) => p.task === 'judge' && (p.answer === 'A' || p.answer === 'B'))).toBe(true);
  });
});
