// The supervised mixture the tiny model is pretrained on, drawn from the train split only: mostly ReMA multi-turn
// arithmetic dialogues (with the default shares of flawed and empty plans), some single-turn / MRP / CoT chats so
// the baseline presets have a model that knows their format, and some judge dialogues.

import type { SupervisedChat } from '../../src/data/tiny-task/corpus.ts';
import { metaChat, reasoningChat } from '../../src/data/tiny-task/chats.ts';
import { generateSpec, splitOf, type TinyLevel, type TinyProblemSpec } from '../../src/data/tiny-task/generator.ts';
import { generateJudgeItem, judgeTrace } from '../../src/data/tiny-task/judge.ts';
import {
  TINY_JUDGE_META_SYSTEM,
  TINY_JUDGE_REASONING_SYSTEM,
  TINY_META_SYSTEM,
  TINY_MRP_SYSTEM,
  TINY_REASONING_SYSTEM,
  TINY_VRP_SYSTEM,
} from '../../src/data/tiny-task/prompts.ts';
import {
  chainOfThoughtTrace,
  DEFAULT_MIX,
  drawVariant,
  multiTurnTrace,
  planThenSolveTrace,
  singleTurnTrace,
  type TraceMix,
} from '../../src/data/tiny-task/traces.ts';
import type { Rng } from '../../src/util/rng.ts';

export interface MixtureShares {
  judge: number;
  otherFormats: number;
  /** plan variants of the multi-turn dialogues; default DEFAULT_MIX */
  traces?: TraceMix;
}

export const PRETRAIN_MIX: MixtureShares = { judge: 0.1, otherFormats: 0.12 };

function trainSpec(rng: Rng): TinyProblemSpec {
  for (;;) {
    const spec = generateSpec(rng, rng.int(1, 3) as TinyLevel);
    if (splitOf(spec.steps) === 'train') return spec;
  }
}

/** Chats for one drawn example (one or two chats). */
export function drawExample(rng: Rng, shares: MixtureShares = PRETRAIN_MIX): SupervisedChat[] {
  const u = rng.next();
  if (u < shares.judge) {
    for (;;) {
      const item = generateJudgeItem(rng, rng.int(1, 3) as TinyLevel);
      if (splitOf(item.spec.steps) !== 'train') continue;
      const turns = judgeTrace(item);
      return [
        { kind: 'judge-meta', messages: metaChat(TINY_JUDGE_META_SYSTEM, item.question, turns) },
        { kind: 'judge-reasoning', messages: reasoningChat(TINY_JUDGE_REASONING_SYSTEM, item.question, turns) },
      ];
    }
  }
  const spec = trainSpec(rng);
  if (u < shares.judge + shares.otherFormats) {
    const which = rng.int(0, 2);
    if (which === 0) {
      const s = singleTurnTrace(spec);
      return [
        { kind: 'single-meta', messages: metaChat(TINY_META_SYSTEM, s.question, [{ meta: s.plan, reasoning: '' }]) },
        { kind: 'single-reasoning', messages: reasoningChat(TINY_REASONING_SYSTEM, s.question, [{ meta: s.plan, reasoning: s.solution }]) },
      ];
    }
    const t = which === 1 ? planThenSolveTrace(spec) : chainOfThoughtTrace(spec);
    const system = which === 1 ? TINY_MRP_SYSTEM : TINY_VRP_SYSTEM;
    return [
      {
        kind: which === 1 ? 'mrp' : 'vrp',
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: t.question },
          { role: 'assistant', content: t.response },
        ],
      },
    ];
  }
  const trace = multiTurnTrace(spec, drawVariant(rng, shares.traces ?? DEFAULT_MIX), rng);
  return [
    { kind: 'meta', messages: metaChat(TINY_META_SYSTEM, trace.question, trace.turns) },
    { kind: 'reasoning', messages: reasoningChat(TINY_REASONING_SYSTEM, trace.question, trace.turns) },
  ];
}
