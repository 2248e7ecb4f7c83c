// Reward rules of ReMA, as pure functions of what the verifier found. The checker itself (answer extraction
// and equivalence) lives in verifier/; this file only decides what a verdict is worth.
//  - multi-turn (code ReMARewardManager + paper App. D.2): a sparse outcome reward, the same for both agents:
//    1 iff the reasoning agent's final answer is correct AND the episode finished normally (the meta-thinking
//    agent said [FINISH], nothing was truncated, no prompt overflow); else 0.
//  - single-turn "base" reward (paper App. C.2): reasoning agent +1 correct, -0.5 wrong but in the answer
//    format (\boxed{} for math, a [[A]]/[[B]] verdict for judge tasks), -1 without it; meta-thinking agent =
//    mean correctness of the reasoning samples that followed its plan, minus 1 if the plan itself contains
//    the answer format (leaks the answer).
//  - single-turn "consistency" reward for the meta-thinking agent (paper App. C.2 / E.1): the share of its
//    reasoning samples that give the most frequent answer, 0 when the most frequent outcome is no answer at all,
//    minus 1 for a leak as above; the reasoning agent keeps the base reward.

import type { FinishReason } from './metrics.ts';

/** Multi-turn sparse reward for both agents. */
export function multiTurnReward(correct: boolean, finish: FinishReason, maskUnfinished: boolean): number {
  if (maskUnfinished && finish !== 'finished') return 0;
  return correct ? 1 : 0;
}

/** Reasoning-agent (or single-agent) base reward, App. C.2. */
export function baseReasoningReward(correct: boolean, hasAnswerFormat: boolean): number {
  if (correct) return 1;
  return hasAnswerFormat ? -0.5 : -1;
}

/** Meta-thinking-agent base reward, App. C.2: mean correctness of its reasoning samples, -1 if it leaks the answer format. */
export function baseMetaReward(reasoningCorrect: readonly boolean[], leaksAnswerFormat: boolean): number {
  if (reasoningCorrect.length === 0) throw new Error('baseMetaReward: no reasoning samples for this plan');
  const mean = reasoningCorrect.filter(Boolean).length / reasoningCorrect.length;
  return mean - (leaksAnswerFormat ? 1 : 0);
}

/**
 * Meta-thinking-agent consistency reward, App. C.2: R_h = (count of the most frequent answer) / (number of
 * responses), 0 if the most frequent outcome is "no definitive answer" (undefined), -1 if the plan leaks the answer
 * format. Answers are compared as the checker extracted them (exact text); answers tied for most frequent give
 * that share, and a tie with "no answer" gives 0.
 */
export function consistencyMetaReward(answers: readonly (string | undefined)[], leaksAnswerFormat: boolean): number {
  if (answers.length === 0) throw new Error('consistencyMetaReward: no reasoning samples for this plan');
  const counts = new Map<string | undefined, number>();
  for (const a of answers) counts.set(a, (counts.get(a) ?? 0) + 1);
  let best = 0;
  let bestIsNone = false;
  for (const [answer, n] of counts) {
    if (n > best || (n === best && answer === undefined)) {
      best = n;
      bestIsNone = answer === undefined;
    }
  }
  return (bestIsNone ? 0 : best / answers.length) - (leaksAnswerFormat ? 1 : 0);
}

/** The binary alternative for single-response protocols: 1 if correct, else 0 (meta: mean correctness). */
export function binaryReward(correct: boolean): number {
  return correct ? 1 : 0;
}

/** A judge verdict tag [[A]] / [[B]] anywhere in the text (the judge task's answer format). */
export function hasVerdictTag(text: string): boolean {
  return /\[\[\s*[AB]\s*\]\]/.test(text);
}
