// Every kind of text the tiny model meets, rendered as chats through the model's template: the corpus the tiny
// tokenizer is trained on and must round-trip. Also the supervised example format used by pretraining.

import { Rng } from '../../util/rng.ts';
import type { ChatMessage } from '../tokenizer.ts';
import { metaChat, reasoningChat } from './chats.ts';
import { tinyJudgeItems, tinySpecs } from './dataset.ts';
import type { TinySplit } from './generator.ts';
import { judgeTrace } from './judge.ts';
import {
  TINY_JUDGE_META_SYSTEM,
  TINY_JUDGE_REASONING_SYSTEM,
  TINY_META_SYSTEM,
  TINY_MRP_SYSTEM,
  TINY_REASONING_SYSTEM,
  TINY_VRP_SYSTEM,
} from './prompts.ts';
import { chainOfThoughtTrace, drawVariant, multiTurnTrace, planThenSolveTrace, singleTurnTrace, type TraceMix } from './traces.ts';

/** A chat whose assistant messages are the supervised targets. */
export interface SupervisedChat {
  kind: 'meta' | 'reasoning' | 'judge-meta' | 'judge-reasoning' | 'single-meta' | 'single-reasoning' | 'mrp' | 'vrp';
  messages: ChatMessage[];
}

export interface CorpusOptions {
  split: TinySplit;
  seed: number;
  /** arithmetic problems (each gives a meta and a reasoning chat) */
  problems: number;
  /** judge items (each gives a meta and a reasoning chat) */
  judgeItems: number;
  /** also single-turn, MRP and VRP chats for every `formatsEvery`-th problem (0: none) */
  formatsEvery: number;
  mix?: TraceMix;
}

/** The ReMA multi-turn chats (and optionally the other formats) for a set of tiny problems. */
export function supervisedChats(opts: CorpusOptions): SupervisedChat[] {
  const rng = new Rng(opts.seed ^ 0x7ace5);
  const chats: SupervisedChat[] = [];
  const specs = tinySpecs({ split: opts.split, count: opts.problems, seed: opts.seed });
  specs.forEach((spec, i) => {
    const trace = multiTurnTrace(spec, drawVariant(rng, opts.mix), rng);
    chats.push({ kind: 'meta', messages: metaChat(TINY_META_SYSTEM, trace.question, trace.turns) });
    chats.push({ kind: 'reasoning', messages: reasoningChat(TINY_REASONING_SYSTEM, trace.question, trace.turns) });
    if (opts.formatsEvery > 0 && i % opts.formatsEvery === 0) {
      const single = singleTurnTrace(spec);
      chats.push({
        kind: 'single-meta',
        messages: metaChat(TINY_META_SYSTEM, single.question, [{ meta: single.plan, reasoning: '' }]),
      });
      chats.push({
        kind: 'single-reasoning',
        messages: reasoningChat(TINY_REASONING_SYSTEM, single.question, [{ meta: single.plan, reasoning: single.solution }]),
      });
      const mrp = planThenSolveTrace(spec);
      chats.push({ kind: 'mrp', messages: oneTurn(TINY_MRP_SYSTEM, mrp.question, mrp.response) });
      const vrp = chainOfThoughtTrace(spec);
      chats.push({ kind: 'vrp', messages: oneTurn(TINY_VRP_SYSTEM, vrp.question, vrp.response) });
    }
  });
  for (const item of tinyJudgeItems({ split: opts.split, count: opts.judgeItems, seed: opts.seed })) {
    const turns = judgeTrace(item);
    chats.push({ kind: 'judge-meta', messages: metaChat(TINY_JUDGE_META_SYSTEM, item.question, turns) });
    chats.push({ kind: 'judge-reasoning', messages: reasoningChat(TINY_JUDGE_REASONING_SYSTEM, item.question, turns) });
  }
  return chats;
}

function oneTurn(system: string, question: string, response: string): ChatMessage[] {
  return [
    { role: 'system', content: system },
    { role: 'user', content: question },
    { role: 'assistant', content: response },
  ];
}
