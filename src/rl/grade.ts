// Grades an episode's final answer with the task's checker (verifier/): math answers through an AnswerChecker
// (verifyMath with the gold read as \boxed{gold}, in the checker's worker), judge answers through the [[A]] / [[B]]
// verdict. Also says whether a text carries the task's answer format, which the base reward uses (a wrong answer
// in format costs -0.5, none at all -1, and a plan that carries it "leaks" the answer). This file does not load
// the LaTeX parser (the training worker imports it); grade-in-thread.ts grades on the caller's thread.

import type { Problem } from '../data/problem.ts';
import { hasVerdictTag } from './rewards.ts';
import type { AnswerChecker } from './verifier/checker.ts';
import { hasBoxed } from './verifier/extract.ts';
import { verifyJudgeVerdict, type VerifyResult } from './verifier/result.ts';

export interface Grade {
  correct: boolean;
  /** the answer the checker read from the text, or undefined */
  extracted?: string;
  /** the text contains the answer format (\boxed{...} or a verdict tag) */
  hasFormat: boolean;
}

/** A judge problem's grade: its [[A]] / [[B]] verdict against the gold. */
export function judgeGrade(problem: Problem, text: string): Grade {
  if (problem.answer !== 'A' && problem.answer !== 'B')
    throw new Error(`problem ${problem.id}: a judge problem's answer must be "A" or "B", got "${problem.answer}"`);
  const v = verifyJudgeVerdict(problem.answer, text);
  return {
    correct: v.correct,
    hasFormat: hasVerdictTag(text),
    ...(v.verdict !== null ? { extracted: v.verdict } : {}),
  };
}

/** A math problem's grade from the checker's verdict on `text`. */
export function mathGrade(v: VerifyResult, text: string): Grade {
  return { correct: v.correct, hasFormat: hasBoxed(text), ...(v.extracted !== null ? { extracted: v.extracted } : {}) };
}

/**
 * The grade of each (problem, text), the math answers through `checker` (the pre-emptible worker of the CLI and
 * the page, so no answer can stall a step); grades in input order. Judge verdicts need no checker.
 */
export async function gradeAnswers(
  items: ReadonlyArray<{ problem: Problem; text: string }>,
  checker: AnswerChecker,
): Promise<Grade[]> {
  return Promise.all(
    items.map(async ({ problem, text }) => {
      if (problem.task === 'judge') return judgeGrade(problem, text);
      return mathGrade(await checker.check(problem.answer, text), text);
    }),
  );
}

/** Does a meta-thinking message leak the answer format? */
export function leaksAnswer(problem: Problem, planText: string): boolean {
  return problem.task === 'judge' ? hasVerdictTag(planText) : hasBoxed(planText);
}
