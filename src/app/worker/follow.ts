// The followed problem: one held-out problem whose greedy rollout with the current weights is shown early (right
// after the model loads, before the start-up evaluation: the page's first rollout on screen) and refreshed every
// few steps (the plan view's timeline, presenter mode's live problem). It runs the evaluator on a one-problem set,
// so the protocol, the prompts and the grading are exactly the held-out evaluation's. The rollout is handed over
// twice: as soon as it is generated (correct: null), then graded: the first grading of a page load waits for the
// answer checker's worker to start its math parser (over a second on a busy machine), and the first rollout on
// screen need not.
import type { Problem } from '../../data/problem.ts';
import type { ChatTokenizer } from '../../data/tokenizer.ts';
import type { TrainablePolicy } from '../../engine/policy/policy.ts';
import type { ExperimentConfig } from '../../rl/config.ts';
import { createEvaluator, type FrozenAgentOptions } from '../../rl/trainer.ts';
import { inThreadChecker, type AnswerChecker } from '../../rl/verifier/checker.ts';
import { questionEvents } from '../analysis/plan-alignment.ts';
import type { FollowedRollout } from './protocol.ts';

/** The held-out problem followed when none is asked for: the first whose question has a loss (what the embedded model misreads), else the first. */
export function defaultFollowedIndex(problems: readonly Problem[]): number {
  const i = problems.findIndex((p) => p.task === 'math' && questionEvents(p.question).some((e) => e.loss));
  return Math.max(0, i);
}

export interface FollowContext {
  config: ExperimentConfig;
  policy: TrainablePolicy;
  tokenizer: ChatTokenizer;
  frozen: FrozenAgentOptions | undefined;
  checker?: AnswerChecker;
  heldOut: readonly Problem[];
  /** the trainer's step (updates applied) */
  step: number;
  /** called with the rollout before it is graded (correct: null) */
  onUngraded?: (rollout: FollowedRollout) => void;
}

/** Greedy rollout of held-out problem `index` (-1 or out of range: defaultFollowedIndex). */
export async function followGreedy(ctx: FollowContext, index: number): Promise<FollowedRollout | null> {
  if (ctx.heldOut.length === 0) return null;
  const i = index >= 0 && index < ctx.heldOut.length ? index : defaultFollowedIndex(ctx.heldOut);
  const problem = ctx.heldOut[i];
  // the evaluator grades through this checker, which only notes the answer: it is graded below, after onUngraded
  const asked: { gold: string; prediction: string }[] = [];
  const noteOnly: AnswerChecker = {
    check: (gold, prediction) => {
      asked.push({ gold, prediction });
      return Promise.resolve({ correct: false, extracted: null, reason: 'deferred' });
    },
    close: () => {},
  };
  const evaluator = createEvaluator({
    config: { ...ctx.config, evalSize: 0 },
    policy: ctx.policy,
    adapters: ctx.policy.adapters,
    tokenizer: ctx.tokenizer,
    train: [problem],
    eval: [problem],
    ...(ctx.frozen ? { frozen: ctx.frozen } : {}),
    checker: noteOnly,
  });
  const r = await evaluator.evaluate();
  const record = r.rollouts[0];
  const rollout: FollowedRollout = {
    step: ctx.step,
    index: i,
    question: problem.question,
    gold: problem.answer,
    turns: record.turns.map((t) => ({ role: t.role, text: t.text })),
    correct: null,
    extracted: null,
  };
  // a judge verdict needs no checker: the evaluator's grade is final
  if (asked.length === 0) return { ...rollout, correct: record.correct, extracted: record.extracted ?? null };
  ctx.onUngraded?.(rollout);
  const verdict = await (ctx.checker ?? inThreadChecker()).check(asked[0].gold, asked[0].prediction);
  return { ...rollout, correct: verdict.correct, extracted: verdict.extracted };
}
