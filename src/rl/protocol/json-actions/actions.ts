// What the meta-action JSON mode adds around the rollout: the constraint handed to the meta-thinking agent's
// generate calls (one token mask per tokenizer, built once), and the per-step action statistics of metrics.jsonl
// (paper Sec. 4.2.2, Fig. 4): the fraction of the step's meta-thinking turns that chose each action, overall and per
// difficulty level of the problem (Problem.level: MATH's "Level 1".."Level 5", the tiny task's "L1".."L3", which
// are its 2-, 3- and 4-equation problems; "all" for a set without levels).

import type { ChatTokenizer } from '../../../data/tokenizer.ts';
import type { TokenConstraint } from '../../../engine/policy/policy.ts';
import type { Episode } from '../episode.ts';
import { META_ACTIONS, parseMetaAction, type MetaAction } from './grammar.ts';
import { ActionTokenMask } from './token-mask.ts';

const masks = new WeakMap<ChatTokenizer, Map<number, ActionTokenMask>>();

/** The meta-action grammar's token mask for a tokenizer and a model vocabulary size (cached). */
export function metaActionConstraint(tokenizer: ChatTokenizer, vocabSize: number): TokenConstraint {
  let byVocab = masks.get(tokenizer);
  if (!byVocab) masks.set(tokenizer, (byVocab = new Map()));
  let mask = byVocab.get(vocabSize);
  if (!mask) byVocab.set(vocabSize, (mask = ActionTokenMask.forTokenizer(tokenizer, vocabSize)));
  return mask;
}

/** The smallest maxTokensPerTurn within which the meta-action answer always completes, for this tokenizer. */
export function smallestMetaActionCap(tokenizer: ChatTokenizer, vocabSize: number): number {
  return (metaActionConstraint(tokenizer, vocabSize) as ActionTokenMask).smallestCap();
}

export type ActionFractions = Record<MetaAction, number>;

/** The metrics.jsonl fields of one step. */
export interface ActionFields {
  /** fractions of the step's parsed meta-thinking turns (sum to 1 when any parsed) */
  action_DECOMPOSE: number;
  action_REWRITE: number;
  action_EMPTY: number;
  /** per difficulty level: the fractions among that level's turns, and how many turns that is (n) */
  action_by_level: Record<string, ActionFractions & { n: number }>;
  /** meta-thinking turns that are not a complete answer (only under a token cap below the shortest answer) */
  action_invalid?: number;
}

const zero = (): ActionFractions => ({ DECOMPOSE: 0, REWRITE: 0, EMPTY: 0 });

/** Action statistics of the step's episodes (every non-dummy meta-thinking message). */
export function actionStats(episodes: readonly Episode[]): ActionFields {
  const total = zero();
  const byLevel = new Map<string, ActionFractions>();
  let invalid = 0;
  for (const e of episodes) {
    const level = e.problem.level ?? 'all';
    for (const m of e.messages) {
      if (m.role !== 'meta' || m.dummy) continue;
      const answer = parseMetaAction(m.text);
      if (answer === null) {
        invalid++;
        continue;
      }
      total[answer.action]++;
      let counts = byLevel.get(level);
      if (!counts) byLevel.set(level, (counts = zero()));
      counts[answer.action]++;
    }
  }
  const fractions = (c: ActionFractions) => {
    const n = META_ACTIONS.reduce((s, a) => s + c[a], 0);
    return { n, f: Object.fromEntries(META_ACTIONS.map((a) => [a, n > 0 ? c[a] / n : 0])) as ActionFractions };
  };
  const all = fractions(total).f;
  const levels = [...byLevel.keys()].toSorted((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return {
    action_DECOMPOSE: all.DECOMPOSE,
    action_REWRITE: all.REWRITE,
    action_EMPTY: all.EMPTY,
    action_by_level: Object.fromEntries(
      levels.map((l) => {
        const { n, f } = fractions(byLevel.get(l)!);
        return [l, { ...f, n }];
      }),
    ),
    ...(invalid > 0 ? { action_invalid: invalid } : {}),
  };
}
