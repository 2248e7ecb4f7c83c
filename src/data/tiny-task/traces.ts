// Supervised traces for the tiny task, in every format the experiments compare: ReMA multi-turn (plan, compute,
// confirm with [FINISH], box the answer), single-turn plan + solution, one-agent plan-then-solve (MRP) and plain
// chain of thought (VRP). A share of plans is flawed (the reasoning agent follows them faithfully and gets a wrong
// answer: something for RL to fix) and a share is empty (so that collapse to empty plans can happen and be seen).

import type { Rng } from '../../util/rng.ts';
import { runningTotals, type TinyProblemSpec, type TinyStep } from './generator.ts';
import { boxed, renderComputation, renderPlan, renderQuestion } from './text.ts';

export const FINISH = '[FINISH]';
/** The meta-thinking agent's last turn in every multi-turn trace. */
export const CONFIRM_TURN = `Confirm the answer. ${FINISH}`;

export type PlanVariant = 'gold' | 'flawed' | 'empty' | 'misread';

/** One round of the dialogue: the meta-thinking agent's message, then the reasoning agent's. */
export interface DialogueTurn {
  meta: string;
  reasoning: string;
}

export interface MultiTurnTrace {
  question: string;
  turns: DialogueTurn[];
  variant: PlanVariant;
  /** the gold answer of the problem */
  answer: number;
  /** the answer the trace's reasoning agent boxes (differs from `answer` for flawed plans) */
  tracedAnswer: number;
}

/** Shares of plan variants in a supervised mix. */
export interface TraceMix {
  flawed: number;
  empty: number;
  /** share of 'misread' plans: every loss event planned as a gain (a systematic plan flaw); default 0 */
  misread?: number;
}

export const DEFAULT_MIX: TraceMix = { flawed: 0.15, empty: 0.1 };

/**
 * A plan with one planted mistake: a swapped operation, an operand off by one or two, or a dropped step. Returns
 * null when no mistake keeps every value a non-negative integer with a different final answer.
 */
export function flawSteps(rng: Rng, steps: readonly TinyStep[]): TinyStep[] | null {
  const gold = runningTotals(steps).at(-1);
  for (let attempt = 0; attempt < 20; attempt++) {
    const i = rng.int(1, steps.length - 1);
    const flawed = steps.slice();
    const step = steps[i];
    const kind = rng.int(0, 2);
    if (kind === 0) {
      if (step.kind === 'add') flawed[i] = { kind: 'sub', n: step.n };
      else if (step.kind === 'sub') flawed[i] = { kind: 'add', n: step.n };
      else if (step.kind === 'mul') flawed[i] = { kind: 'mul', factor: step.factor === 2 ? 3 : 2 };
      else if (step.kind === 'div') flawed[i] = { kind: 'div', divisor: step.divisor === 2 ? 3 : 2 };
      else continue;
    } else if (kind === 1) {
      const delta = rng.pick([-2, -1, 1, 2]);
      if (step.kind === 'add' || step.kind === 'sub') flawed[i] = { ...step, n: Math.max(1, step.n + delta) };
      else if (step.kind === 'addBags') flawed[i] = { ...step, each: Math.max(2, step.each + delta) };
      else continue;
    } else {
      if (steps.length < 3) continue;
      flawed.splice(i, 1);
    }
    const totals = runningTotals(flawed);
    if (totals.every((t) => Number.isInteger(t) && t >= 0) && totals.at(-1) !== gold) return flawed;
  }
  return null;
}

/**
 * The systematic plan flaw: every loss event ("gives away", "loses", "sells") planned as a gain ("Add n" instead of
 * "Subtract n"). Unlike flawSteps, the mistake is always the same, so a model trained on a share of such plans
 * makes it consistently, and RL can find the fix in the plans it samples. Null when the problem has no loss event
 * or a later step would no longer divide evenly.
 */
export function misreadLosses(steps: readonly TinyStep[]): TinyStep[] | null {
  if (!steps.some((s) => s.kind === 'sub')) return null;
  const misread = steps.map((s): TinyStep => (s.kind === 'sub' ? { kind: 'add', n: s.n } : s));
  return runningTotals(misread).every((t) => Number.isInteger(t) && t >= 0) ? misread : null;
}

/** The ReMA multi-turn trace: [plan | computation], [confirm [FINISH] | \boxed{answer}]. */
export function multiTurnTrace(spec: TinyProblemSpec, variant: PlanVariant, rng: Rng): MultiTurnTrace {
  const question = renderQuestion(spec);
  const answer = runningTotals(spec.steps).at(-1)!;
  let planSteps: readonly TinyStep[] = spec.steps;
  let plan = renderPlan(spec.steps);
  let chosen = variant;
  if (variant === 'flawed') {
    const flawed = flawSteps(rng, spec.steps);
    if (flawed) {
      planSteps = flawed;
      plan = renderPlan(flawed);
    } else chosen = 'gold';
  } else if (variant === 'misread') {
    const misread = misreadLosses(spec.steps);
    if (misread) {
      planSteps = misread;
      plan = renderPlan(misread);
    } else chosen = 'gold';
  } else if (variant === 'empty') {
    plan = '';
  }
  const tracedAnswer = runningTotals(planSteps).at(-1)!;
  return {
    question,
    turns: [
      { meta: plan, reasoning: renderComputation(planSteps) },
      { meta: CONFIRM_TURN, reasoning: boxed(tracedAnswer) },
    ],
    variant: chosen,
    answer,
    tracedAnswer,
  };
}

/** Draw a plan variant with the mix's probabilities. */
export function drawVariant(rng: Rng, mix: TraceMix = DEFAULT_MIX): PlanVariant {
  const u = rng.next();
  if (u < mix.flawed) return 'flawed';
  if (u < mix.flawed + mix.empty) return 'empty';
  if (u < mix.flawed + mix.empty + (mix.misread ?? 0)) return 'misread';
  return 'gold';
}

/** Single-turn ReMA: the meta-thinking agent's plan, and the reasoning agent's solution ending in \boxed{}. */
export function singleTurnTrace(spec: TinyProblemSpec): { question: string; plan: string; solution: string } {
  const answer = runningTotals(spec.steps).at(-1)!;
  return {
    question: renderQuestion(spec),
    plan: renderPlan(spec.steps),
    solution: `${renderComputation(spec.steps)} ${boxed(answer)}`,
  };
}

/** One agent writes the plan and then the solution (the MRP baseline's format). */
export function planThenSolveTrace(spec: TinyProblemSpec): { question: string; response: string } {
  const { question, plan, solution } = singleTurnTrace(spec);
  return { question, response: `${plan}\n${solution}` };
}

/** Plain chain of thought: the computation and the boxed answer (the VRP baseline's format). */
export function chainOfThoughtTrace(spec: TinyProblemSpec): { question: string; response: string } {
  const { question, solution } = singleTurnTrace(spec);
  return { question, response: solution };
}
