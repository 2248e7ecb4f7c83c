// The tiny task: seeded arithmetic word problems whose solution is a short chain of operations (things bought,
// given away, doubled, halved, bags of several items). Small enough for a ~0.3M-parameter model to learn,
// multi-step enough that a plan helps. Answers are exact integers; every intermediate value stays in
// [0, maxValue] and every division is exact.

import type { Rng } from '../../util/rng.ts';
import { fnv1a } from '../../util/fnv1a.ts';

/** One operation of a chain. `start*` opens it; the rest act on the running total. */
export type TinyStep =
  | { kind: 'start'; value: number }
  | { kind: 'startBags'; bags: number; each: number }
  | { kind: 'add'; n: number }
  | { kind: 'sub'; n: number }
  | { kind: 'addBags'; bags: number; each: number }
  | { kind: 'mul'; factor: 2 | 3 }
  | { kind: 'div'; divisor: 2 | 3 };

export interface TinyProblemSpec {
  level: TinyLevel;
  name: string;
  pronoun: 'She' | 'He';
  item: string;
  steps: TinyStep[];
}

export type TinyLevel = 1 | 2 | 3;

/** Difficulty: number of equations in the solution, and how large operands and intermediate values get. */
export interface LevelShape {
  equations: number;
  maxOperand: number;
  maxValue: number;
}

export const LEVELS: Readonly<Record<TinyLevel, LevelShape>> = {
  1: { equations: 2, maxOperand: 9, maxValue: 30 },
  2: { equations: 3, maxOperand: 9, maxValue: 60 },
  3: { equations: 4, maxOperand: 12, maxValue: 99 },
};

export const NAMES: ReadonlyArray<readonly [string, 'She' | 'He']> = [
  ['Ann', 'She'],
  ['Eve', 'She'],
  ['Mia', 'She'],
  ['Zoe', 'She'],
  ['Ben', 'He'],
  ['Sam', 'He'],
  ['Tom', 'He'],
  ['Max', 'He'],
];
export const ITEMS: readonly string[] = ['apples', 'figs', 'nuts', 'pens', 'cards', 'eggs', 'shells', 'coins'];

/** How many equations a step contributes to the worked solution. */
export function equationsOf(step: TinyStep): number {
  if (step.kind === 'start') return 0;
  if (step.kind === 'addBags') return 2;
  return 1;
}

/** Apply one step to the running total (start steps ignore it). */
export function applyStep(total: number, step: TinyStep): number {
  switch (step.kind) {
    case 'start':
      return step.value;
    case 'startBags':
      return step.bags * step.each;
    case 'add':
      return total + step.n;
    case 'sub':
      return total - step.n;
    case 'addBags':
      return total + step.bags * step.each;
    case 'mul':
      return total * step.factor;
    case 'div':
      return total / step.divisor;
  }
}

/** The running totals after each step (first entry: after the start step). */
export function runningTotals(steps: readonly TinyStep[]): number[] {
  const totals: number[] = [];
  let total = 0;
  for (const step of steps) {
    total = applyStep(total, step);
    totals.push(total);
  }
  return totals;
}

export function answerOf(spec: TinyProblemSpec): number {
  const totals = runningTotals(spec.steps);
  return totals[totals.length - 1];
}

/**
 * A canonical string of the arithmetic (names and items left out), e.g. "s3x4|+5|*2". Two problems with the
 * same chain share a key, so train / held-out splits keyed on it never share a chain.
 */
export function canonicalKey(steps: readonly TinyStep[]): string {
  return steps
    .map((s) => {
      switch (s.kind) {
        case 'start':
          return `s${s.value}`;
        case 'startBags':
          return `s${s.bags}x${s.each}`;
        case 'add':
          return `+${s.n}`;
        case 'sub':
          return `-${s.n}`;
        case 'addBags':
          return `+${s.bags}x${s.each}`;
        case 'mul':
          return `*${s.factor}`;
        case 'div':
          return `/${s.divisor}`;
      }
    })
    .join('|');
}

/** Draw one problem of the given level. Retries internally until every constraint holds. */
export function generateSpec(rng: Rng, level: TinyLevel): TinyProblemSpec {
  const shape = LEVELS[level];
  const [name, pronoun] = rng.pick(NAMES);
  const item = rng.pick(ITEMS);
  for (let attempt = 0; attempt < 1000; attempt++) {
    const steps = drawChain(rng, shape);
    if (steps) return { level, name, pronoun, item, steps };
  }
  throw new Error(`tiny task: could not draw a level-${level} chain in 1000 attempts`);
}

function drawChain(rng: Rng, shape: LevelShape): TinyStep[] | null {
  const steps: TinyStep[] = [];
  let total: number;
  let equations = 0;
  if (rng.next() < 0.4) {
    const bags = rng.int(2, 5);
    const each = rng.int(2, Math.min(shape.maxOperand, Math.floor(shape.maxValue / bags)));
    steps.push({ kind: 'startBags', bags, each });
    total = bags * each;
    equations = 1;
  } else {
    const value = rng.int(3, Math.min(shape.maxValue, 9 + shape.maxOperand * 2));
    steps.push({ kind: 'start', value });
    total = value;
  }
  let guard = 0;
  while (equations < shape.equations) {
    if (++guard > 50) return null;
    const step = drawEvent(rng, total, shape, shape.equations - equations);
    if (!step) continue;
    const next = applyStep(total, step);
    if (!Number.isInteger(next) || next < 0 || next > shape.maxValue) continue;
    steps.push(step);
    total = next;
    equations += equationsOf(step);
  }
  return steps;
}

function drawEvent(rng: Rng, total: number, shape: LevelShape, equationsLeft: number): TinyStep | null {
  const u = rng.next();
  if (u < 0.3) return { kind: 'add', n: rng.int(1, shape.maxOperand) };
  if (u < 0.6) return total >= 1 ? { kind: 'sub', n: rng.int(1, Math.min(shape.maxOperand, total)) } : null;
  if (u < 0.72) {
    if (equationsLeft < 2) return null;
    return { kind: 'addBags', bags: rng.int(2, 4), each: rng.int(2, Math.min(shape.maxOperand, 6)) };
  }
  if (u < 0.86) return { kind: 'mul', factor: rng.next() < 0.6 ? 2 : 3 };
  const divisor = rng.next() < 0.6 ? 2 : 3;
  return total % divisor === 0 && total > 0 ? { kind: 'div', divisor } : null;
}

/** FNV-1a over the canonical key: a stable 32-bit hash for split assignment. */
export function hashKey(key: string): number {
  return fnv1a(key);
}

export type TinySplit = 'train' | 'heldout';

/** One chain in ten is held out; the split depends only on the chain's canonical key. */
export function splitOf(steps: readonly TinyStep[]): TinySplit {
  return hashKey(canonicalKey(steps)) % 10 === 0 ? 'heldout' : 'train';
}
