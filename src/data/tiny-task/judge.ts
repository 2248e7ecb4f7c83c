// The judge task, in the spirit of the paper's LLM-as-a-Judge experiments: a tiny-task problem with two candidate
// solutions, one right and one with a single planted arithmetic error. The agents must answer [[A]] or [[B]]; the
// meta-thinking agent plans the check, the reasoning agent carries it out.

import type { Rng } from '../../util/rng.ts';
import type { JudgePair } from '../problem.ts';
import { generateSpec, type TinyLevel, type TinyProblemSpec } from './generator.ts';
import { boxed, computationEquations, renderComputation, renderQuestion, type Tamper } from './text.ts';
import { CONFIRM_TURN, FINISH, type DialogueTurn } from './traces.ts';

export interface JudgeItem {
  spec: TinyProblemSpec;
  /** the full text both agents see: question, candidate A, candidate B */
  question: string;
  /** the same in its parts */
  pair: JudgePair;
  /** which candidate is correct */
  correct: 'A' | 'B';
  /** the wrong candidate's first wrong equation, e.g. "12+5=18" */
  wrongEquation: string;
}

/** Evaluate "a op b=c" and say whether it holds (integer division must be exact). */
export function equationHolds(equation: string): boolean {
  const m = /^(\d+)([+\-*/])(\d+)=(-?\d+)$/.exec(equation);
  if (!m) return false;
  const a = Number(m[1]);
  const b = Number(m[3]);
  const c = Number(m[4]);
  switch (m[2]) {
    case '+':
      return a + b === c;
    case '-':
      return a - b === c;
    case '*':
      return a * b === c;
    default:
      return b !== 0 && a === b * c;
  }
}

/** A candidate solution text: its equations and the boxed final value. */
function candidateText(equations: readonly string[]): string {
  const last = equations.at(-1)!;
  return `${equations.map((e) => `${e}.`).join(' ')} ${boxed(last.slice(last.indexOf('=') + 1))}`;
}

export function renderJudgeQuestion(question: string, a: string, b: string): string {
  return `${question}\nA: ${a}\nB: ${b}`;
}

/** Draw a judge item: the same problem solved right and once with exactly one wrong equation. */
export function generateJudgeItem(rng: Rng, level: TinyLevel): JudgeItem {
  for (let attempt = 0; attempt < 100; attempt++) {
    const spec = generateSpec(rng, level);
    const good = computationEquations(spec.steps);
    const tamper: Tamper = { equation: rng.int(0, good.length - 1), delta: rng.pick([-3, -2, -1, 1, 2, 3]) };
    const bad = computationEquations(spec.steps, tamper);
    const wrong = bad.filter((e) => !equationHolds(e));
    if (wrong.length !== 1 || bad.some((e) => e.includes('=-'))) continue;
    const correct = rng.next() < 0.5 ? 'A' : 'B';
    const [a, b] = correct === 'A' ? [good, bad] : [bad, good];
    const pair: JudgePair = {
      instruction: renderQuestion(spec),
      responseA: candidateText(a),
      responseB: candidateText(b),
    };
    return {
      spec,
      question: renderJudgeQuestion(pair.instruction, pair.responseA, pair.responseB),
      pair,
      correct,
      wrongEquation: wrong[0],
    };
  }
  throw new Error(`tiny judge: could not plant a single error in 100 attempts (level ${level})`);
}

export const JUDGE_PLAN = 'Check each equation of A and B.';

/** The multi-turn judge trace: plan the check, find the wrong equation, confirm, give the verdict. */
export function judgeTrace(item: JudgeItem): DialogueTurn[] {
  const wrongOne = item.correct === 'A' ? 'B' : 'A';
  return [
    { meta: JUDGE_PLAN, reasoning: `${wrongOne} has ${item.wrongEquation}, wrong.` },
    { meta: CONFIRM_TURN, reasoning: `[[${item.correct}]]` },
  ];
}

/**
 * The one-round judge (the tiny-rema-judge model and the tiny-judge preset): the meta-thinking agent's first plan
 * ends with [FINISH], so the reasoning agent's one answer ends the episode and the dialogue fits the 256-token
 * context. Two plans:
 * - check ("Check A and B."): the reasoning agent recomputes every equation (the computation it writes for the
 *   arithmetic task, which equals the right candidate's equations), subtracts B's final answer from the one it
 *   reached, and names B when the difference is 0, else A (a zero test on the token it just wrote is within the
 *   tiny model's reach, comparing two numbers it read is not);
 * - shortcut ("Trust A."): the reasoning agent names A without looking, right only when A is the right candidate
 *   (half the items): the systematic plan flaw RL can fix.
 */
export const JUDGE_CHECK_PLAN = 'Check A and B.';
export const JUDGE_SHORTCUT_PLAN = 'Trust A.';
export type JudgePlanKind = 'check' | 'shortcut';

/** The final value a candidate's text boxes. */
export function finalValue(candidate: string): number {
  const m = /\\boxed\{(-?\d+)\}$/.exec(candidate);
  if (!m) throw new Error(`tiny judge: candidate without a boxed integer: ${candidate}`);
  return Number(m[1]);
}

/** The reasoning agent's answer to a one-round plan. */
export function judgeOneRoundAnswer(item: JudgeItem, plan: JudgePlanKind): string {
  if (plan === 'shortcut') return '[[A]]';
  const equations = computationEquations(item.spec.steps);
  const reached = Number(equations.at(-1)!.split('=')[1]);
  const b = finalValue(item.pair.responseB);
  return `${renderComputation(item.spec.steps)} ${reached}-${b}=${reached - b}. [[${reached === b ? 'B' : 'A'}]]`;
}

/** The one-round judge dialogue for a plan: "<plan> [FINISH]", then the reasoning agent's verdict. */
export function judgeOneRoundTrace(item: JudgeItem, plan: JudgePlanKind): DialogueTurn[] {
  const text = plan === 'check' ? JUDGE_CHECK_PLAN : JUDGE_SHORTCUT_PLAN;
  return [{ meta: `${text} ${FINISH}`, reasoning: judgeOneRoundAnswer(item, plan) }];
}
