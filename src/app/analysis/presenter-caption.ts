// The caption line of presenter mode: one sentence saying what is happening, built only from measured changes:
// the followed problem's greedy plan between its last two refreshes (read with the plan-to-reasoning alignment:
// does it still plan a loss as a gain?), the mean rollout reward over the last k steps against the k before, and
// the held-out accuracy of the first and latest evaluations. No canned stories: each clause is a number or a
// change of the plan that the caption can point to.
import { alignPlan, lossAsGainCount } from './plan-alignment.ts';
import { changedWords, wordDiff } from './word-diff.ts';

/** One greedy rollout of the followed problem, as presenter mode keeps it. */
export interface FollowedPoint {
  step: number;
  question: string;
  plan: string;
  reasoning: string;
  /** null: not graded yet */
  correct: boolean | null;
}

export interface CaptionInput {
  metrics: readonly { step: number; reward_mean: number }[];
  evaluations: readonly { step: number; accuracy: number }[];
  followed: readonly FollowedPoint[];
  /** steps per reward window (default 10; fewer when the run is short) */
  window?: number;
}

/** below this change of the mean reward the caption calls it steady */
export const REWARD_STEADY = 0.02;

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const pct = (x: number) => `${Math.round(x * 100)}%`;

/** What the meta-thinking agent's plan did between the last two refreshes, or its state when there is one. */
export function planClause(followed: readonly FollowedPoint[]): string | null {
  const now = followed.at(-1);
  if (!now) return null;
  const misreadNow = lossAsGainCount(alignPlan(now.question, now.plan, now.reasoning));
  const prev = followed.length > 1 ? followed.at(-2)! : null;
  if (prev) {
    const misreadBefore = lossAsGainCount(alignPlan(prev.question, prev.plan, prev.reasoning));
    if (misreadBefore > 0 && misreadNow === 0) return 'the meta-thinking agent now subtracts losses';
    if (misreadNow > misreadBefore) return 'the meta-thinking agent misreads a loss as a gain again';
    if (misreadNow < misreadBefore)
      return `the meta-thinking agent now reads ${misreadBefore - misreadNow} more loss${misreadBefore - misreadNow > 1 ? 'es' : ''} correctly`;
    if (now.correct !== null && prev.correct !== null && now.correct !== prev.correct)
      return now.correct ? 'the followed problem is now solved' : 'the followed problem is no longer solved';
    const words = changedWords(wordDiff(prev.plan, now.plan));
    if (words > 0) return `the meta-thinking agent rewrote its plan (${words} word${words > 1 ? 's' : ''} changed)`;
  }
  if (misreadNow > 0)
    return `the meta-thinking agent plans ${misreadNow === 1 ? 'a loss' : `${misreadNow} losses`} as a gain`;
  if (now.correct === null) return null;
  return now.correct ? 'the followed problem is solved' : 'the followed problem is not solved yet';
}

/** "reward up 0.30 over the last 10 steps", "reward steady at 0.25", or null before two steps. */
export function rewardClause(metrics: readonly { reward_mean: number }[], window = 10): string | null {
  const values = metrics.map((m) => m.reward_mean).filter((x) => Number.isFinite(x));
  if (values.length < 2) return null;
  const k = Math.min(window, Math.floor(values.length / 2));
  const recent = mean(values.slice(-k));
  const before = mean(values.slice(-2 * k, -k));
  const delta = recent - before;
  const steps = k > 1 ? `the last ${k} steps` : 'the last step';
  if (Math.abs(delta) < REWARD_STEADY) return `reward steady at ${recent.toFixed(2)} over ${steps}`;
  return `reward ${delta > 0 ? 'up' : 'down'} ${Math.abs(delta).toFixed(2)} over ${steps}`;
}

/** "held-out accuracy 31% → 53%" (first and latest evaluation), "held-out accuracy 31% at step 0", or null. */
export function accuracyClause(evaluations: readonly { step: number; accuracy: number }[]): string | null {
  const first = evaluations[0];
  const last = evaluations.at(-1);
  if (!first || !last) return null;
  if (first === last) return `held-out accuracy ${pct(first.accuracy)} at step ${first.step}`;
  return `held-out accuracy ${pct(first.accuracy)} → ${pct(last.accuracy)}`;
}

export function presenterCaption(input: CaptionInput): string {
  const step = input.metrics.at(-1)?.step ?? 0;
  const clauses = [
    planClause(input.followed),
    rewardClause(input.metrics, input.window),
    accuracyClause(input.evaluations),
  ].filter((c): c is string => c !== null);
  if (clauses.length === 0)
    return step === 0 ? 'Step 0: loading the model and its first greedy rollout' : `Step ${step}`;
  return `Step ${step}: ${clauses.join('; ')}`;
}
