// The held-out errors of the tiny arithmetic task by kind, for the protocol comparison: a wrong answer whose episode
// reads a loss event ("gives away n", "loses n", "sells n") as a gain ("Add n." in a plan, "+n=" in a computation)
// and never as a loss is the flaw the embedded model's SFT stage planted in the meta-thinking agent's plans
// (public/models/tiny-rema's model card); every other wrong answer (an arithmetic slip, a step left out or added, an
// unfinished episode) is counted as "other".
import type { EvalRollout } from '../lib/run-folder.ts';

const LOSS = /(?:gives away|loses|sells) (\d+)/g;

/** The loss amounts of a question. */
export function lossAmounts(question: string): number[] {
  return [...question.matchAll(LOSS)].map((m) => Number(m[1]));
}

/** Does the text treat some loss amount as a gain and never as a loss? */
export function readsLossAsGain(question: string, text: string): boolean {
  return lossAmounts(question).some((n) => {
    const gain = text.includes(`Add ${n}.`) || text.includes(`+${n}=`);
    const loss = text.includes(`Subtract ${n}.`) || text.includes(`-${n}=`);
    return gain && !loss;
  });
}

export interface ErrorCounts {
  n: number;
  correct: number;
  loss_as_gain: number;
  other: number;
}

export function errorCounts(rollouts: readonly EvalRollout[]): ErrorCounts {
  const c: ErrorCounts = { n: rollouts.length, correct: 0, loss_as_gain: 0, other: 0 };
  for (const r of rollouts) {
    if (r.correct) c.correct++;
    else if (readsLossAsGain(r.question, r.turns.map((t) => t.text).join('\n'))) c.loss_as_gain++;
    else c.other++;
  }
  return c;
}
