// The tiny task as datasets of Problems for the RL layer, and as streams of specs for supervised traces.
// Levels are drawn round-robin (1, 2, 3, 1, ...) so per-level accuracy has equal support; the split of a problem
// is a function of its arithmetic chain alone (generator.splitOf), so train and held-out never share a chain.

import type { Problem } from '../problem.ts';
import { Rng } from '../../util/rng.ts';
import {
  answerOf,
  canonicalKey,
  generateSpec,
  splitOf,
  type TinyLevel,
  type TinyProblemSpec,
  type TinySplit,
} from './generator.ts';
import { generateJudgeItem, type JudgeItem } from './judge.ts';
import { renderQuestion } from './text.ts';

export interface TinySetOptions {
  split: TinySplit;
  count: number;
  seed: number;
  /** levels to draw from, round-robin; default [1, 2, 3] */
  levels?: readonly TinyLevel[];
  /** no two problems share an arithmetic chain (default: true for held-out, false for train) */
  distinct?: boolean;
}

/** Problem specs of one split, deterministic given the options. */
export function tinySpecs(opts: TinySetOptions): TinyProblemSpec[] {
  const levels = opts.levels ?? [1, 2, 3];
  const distinct = opts.distinct ?? opts.split === 'heldout';
  const rng = new Rng(opts.seed ^ (opts.split === 'heldout' ? 0x5eed0001 : 0x5eed0002));
  const seen = new Set<string>();
  const specs: TinyProblemSpec[] = [];
  let draws = 0;
  while (specs.length < opts.count) {
    if (++draws > opts.count * 200 + 10_000) {
      throw new Error(`tiny task: cannot find ${opts.count} ${distinct ? 'distinct ' : ''}${opts.split} problems`);
    }
    const spec = generateSpec(rng, levels[specs.length % levels.length]);
    if (splitOf(spec.steps) !== opts.split) continue;
    const key = canonicalKey(spec.steps);
    if (distinct && seen.has(key)) continue;
    seen.add(key);
    specs.push(spec);
  }
  return specs;
}

/** Arithmetic problems ('tiny-arith'): the question, the integer answer, the level as "L1".."L3". */
export function tinyArithProblems(opts: TinySetOptions): Problem[] {
  return tinySpecs(opts).map((spec, i) => ({
    id: `tiny-arith-${opts.split}-${opts.seed}-${i}`,
    task: 'math',
    question: renderQuestion(spec),
    answer: String(answerOf(spec)),
    level: `L${spec.level}`,
  }));
}

/** Judge items of one split (the split of the underlying arithmetic chain). */
export function tinyJudgeItems(opts: TinySetOptions): JudgeItem[] {
  const levels = opts.levels ?? [1, 2, 3];
  const rng = new Rng(opts.seed ^ (opts.split === 'heldout' ? 0x7a9e0001 : 0x7a9e0002));
  const items: JudgeItem[] = [];
  let draws = 0;
  while (items.length < opts.count) {
    if (++draws > opts.count * 200 + 10_000)
      throw new Error(`tiny judge: cannot find ${opts.count} ${opts.split} items`);
    const item = generateJudgeItem(rng, levels[items.length % levels.length]);
    if (splitOf(item.spec.steps) === opts.split) items.push(item);
  }
  return items;
}

/** Judge problems ('tiny-judge'): both candidates in the question, answer "A" or "B". */
export function tinyJudgeProblems(opts: TinySetOptions): Problem[] {
  return tinyJudgeItems(opts).map((item, i) => ({
    id: `tiny-judge-${opts.split}-${opts.seed}-${i}`,
    task: 'judge',
    question: item.question,
    judge: item.pair,
    answer: item.correct,
    level: `L${item.spec.level}`,
  }));
}
