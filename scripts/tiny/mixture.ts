// The supervised mixture the tiny model is pretrained on, drawn from the train split only: mostly ReMA multi-turn
// arithmetic dialogues (with the default shares of flawed and empty plans), some single-turn / MRP / CoT chats so
// the baseline presets have a model that knows their format, and some judge dialogues.

import {
  judgeChats,
  judgeOneRoundChats,
  mrpChat,
  multiTurnChats,
  singleTurnChats,
  vrpChat,
  type SupervisedChat,
} from '../../src/data/tiny-task/corpus.ts';
import { generateSpec, splitOf, type TinyLevel, type TinyProblemSpec } from '../../src/data/tiny-task/generator.ts';
import { generateJudgeItem } from '../../src/data/tiny-task/judge.ts';
import { DEFAULT_MIX, drawVariant, multiTurnTrace, type TraceMix } from '../../src/data/tiny-task/traces.ts';
import { answerOf } from '../../src/data/tiny-task/generator.ts';
import { boxed, renderQuestion } from '../../src/data/tiny-task/text.ts';
import type { ChatMessage } from '../../src/data/tokenizer.ts';
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
      if (splitOf(item.spec.steps) === 'train') return judgeChats(item);
    }
  }
  const spec = trainSpec(rng);
  if (u < shares.judge + shares.otherFormats) {
    const which = rng.int(0, 2);
    return which === 0 ? singleTurnChats(spec) : [which === 1 ? mrpChat(spec) : vrpChat(spec)];
  }
  return multiTurnChats(multiTurnTrace(spec, drawVariant(rng, shares.traces ?? DEFAULT_MIX), rng));
}

/** `--mix judge`: the judge-focused stage that makes public/models/tiny-rema-judge from tiny-rema. */
export interface JudgeMixShares {
  /** share of examples that are one-round judge dialogues; the rest are the full mixture (arithmetic, formats) */
  judge: number;
  /** share of the meta-thinking agent's judge chats whose plan checks the equations (the rest: the shortcut) */
  metaCheck: number;
  /** the same for the reasoning agent's judge chats (it must learn to check well, whatever the planner prefers) */
  reasoningCheck: number;
  /** the full mixture drawn for the remaining examples */
  rest: MixtureShares;
}

export const JUDGE_MIX: JudgeMixShares = {
  judge: 0.85,
  metaCheck: 0.35,
  reasoningCheck: 0.85,
  rest: { ...PRETRAIN_MIX, traces: { ...DEFAULT_MIX, misread: 0.55 } },
};

/** Chats for one example of the judge-focused mixture. */
export function drawJudgeExample(rng: Rng, shares: JudgeMixShares = JUDGE_MIX): SupervisedChat[] {
  if (rng.next() >= shares.judge) return drawExample(rng, shares.rest);
  for (;;) {
    const item = generateJudgeItem(rng, rng.int(1, 3) as TinyLevel);
    if (splitOf(item.spec.steps) !== 'train') continue;
    const meta = rng.next() < shares.metaCheck ? 'check' : 'shortcut';
    const reasoning = rng.next() < shares.reasoningCheck ? 'check' : 'shortcut';
    return judgeOneRoundChats(item, meta, reasoning);
  }
}

/**
 * `--mix direct`: the task's language without any reasoning format, the base of the meta-thinking SFT vs CoT SFT
 * ablation (scripts/sft-ablation). Half the chats ask for a problem and the reply is a train problem's question
 * (the task's words); half give the question and the reply is only its boxed answer. No system prompt, no plan,
 * no dialogue, no chain of thought.
 */
export function drawDirectAnswer(rng: Rng): { messages: ChatMessage[] }[] {
  const spec = trainSpec(rng);
  const question = renderQuestion(spec);
  if (rng.next() < 0.5)
    return [
      {
        messages: [
          { role: 'user', content: 'Write a problem.' },
          { role: 'assistant', content: question },
        ],
      },
    ];
  return [
    {
      messages: [
        { role: 'user', content: question },
        { role: 'assistant', content: boxed(answerOf(spec)) },
      ],
    },
  ];
}
