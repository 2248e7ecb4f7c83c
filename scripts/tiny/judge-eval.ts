// Greedy evaluation of a tiny model on the one-round judge task (public/models/tiny-rema-judge): accuracy with the
// plan the meta-thinking agent writes itself, the share of its first plans that check the equations or take the
// shortcut, and the accuracy when the plan is forced (how well the reasoning agent executes each plan). Used by
// pretrain.ts --mix judge, the judge model's card and its regression test.

import type { Problem } from '../../src/data/problem.ts';
import { tinyJudgeProblems, type TinySetOptions } from '../../src/data/tiny-task/dataset.ts';
import { JUDGE_CHECK_PLAN, JUDGE_SHORTCUT_PLAN } from '../../src/data/tiny-task/judge.ts';
import { FINISH } from '../../src/data/tiny-task/traces.ts';
import type { ChatTokenizer } from '../../src/data/tokenizer.ts';
import type { Policy } from '../../src/engine/policy/policy.ts';
import { accuracyByLevel, greedyEpisodes, type Episode } from './rollout.ts';

/** The held-out judge items every judge number is measured on (the first `size` of this set). */
export const JUDGE_EVAL_SET: TinySetOptions = { split: 'heldout', count: 90, seed: 12345 };

/** The fixed sample whose greedy count tests/models/tiny-judge-model.test.ts checks against training-log.json. */
export const JUDGE_REGRESSION_SAMPLE = (): Problem[] => tinyJudgeProblems({ split: 'heldout', count: 24, seed: 777 });

export interface JudgeEvalSummary {
  size: number;
  correct: number;
  byLevel: Record<string, { correct: number; total: number }>;
  finished: number;
  /** first plans: the checking plan, the shortcut, anything else */
  plans: { check: number; shortcut: number; other: number };
  /** correct answers when the first plan is forced to the checking plan / the shortcut */
  forcedCheck: number;
  forcedShortcut: number;
}

/** The kind of a first plan, [FINISH] and surrounding spaces aside. */
export function planKind(plan: string): 'check' | 'shortcut' | 'other' {
  const text = plan.replaceAll(FINISH, '').trim();
  return text === JUDGE_CHECK_PLAN ? 'check' : text === JUDGE_SHORTCUT_PLAN ? 'shortcut' : 'other';
}

const count = (eps: Episode[]) => eps.filter((e) => e.correct).length;

export async function judgeEval(
  policy: Policy,
  tok: ChatTokenizer,
  size: number,
  contextLength: number,
): Promise<{ summary: JudgeEvalSummary; episodes: Episode[] }> {
  const problems = tinyJudgeProblems({ ...JUDGE_EVAL_SET, count: size });
  const run = (plan?: string) => greedyEpisodes(policy, tok, problems, 'full', contextLength, undefined, plan);
  const episodes = await run();
  const plans = { check: 0, shortcut: 0, other: 0 };
  for (const e of episodes) plans[planKind(e.turns[0]?.meta ?? '')]++;
  const summary: JudgeEvalSummary = {
    size,
    correct: count(episodes),
    byLevel: accuracyByLevel(episodes),
    finished: episodes.filter((e) => e.finished).length,
    plans,
    forcedCheck: count(await run(`${JUDGE_CHECK_PLAN} ${FINISH}`)),
    forcedShortcut: count(await run(`${JUDGE_SHORTCUT_PLAN} ${FINISH}`)),
  };
  return { summary, episodes };
}
