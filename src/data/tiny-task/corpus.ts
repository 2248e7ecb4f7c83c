// Every kind of text the tiny model meets, rendered as chats through the model's template: the corpus the tiny
// tokenizer is trained on and must round-trip. Also the supervised example format used by pretraining.

import { Rng } from '../../util/rng.ts';
import type { ChatMessage } from '../tokenizer.ts';
import { metaChat, reasoningChat } from './chats.ts';
import { tinyJudgeItems, tinySpecs } from './dataset.ts';
import type { TinyProblemSpec, TinySplit } from './generator.ts';
import { judgeOneRoundTrace, judgeTrace, type JudgeItem, type JudgePlanKind } from './judge.ts';
import {
  TINY_JUDGE_META_SYSTEM,
  TINY_JUDGE_REASONING_SYSTEM,
  TINY_META_SYSTEM,
  TINY_MRP_SYSTEM,
  TINY_REASONING_SYSTEM,
  TINY_VRP_SYSTEM,
} from './prompts.ts';
import {
  chainOfThoughtTrace,
  drawVariant,
  multiTurnTrace,
  planThenSolveTrace,
  singleTurnTrace,
  type DialogueTurn,
  type TraceMix,
} from './traces.ts';

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

/** A multi-turn ReMA dialogue as the two agents' supervised chats. */
export function multiTurnChats(trace: { question: string; turns: readonly DialogueTurn[] }): SupervisedChat[] {
  return [
    { kind: 'meta', messages: metaChat(TINY_META_SYSTEM, trace.question, trace.turns) },
    { kind: 'reasoning', messages: reasoningChat(TINY_REASONING_SYSTEM, trace.question, trace.turns) },
  ];
}

/** A judge item's dialogue as the two agents' supervised chats. */
export function judgeChats(item: JudgeItem): SupervisedChat[] {
  const turns = judgeTrace(item);
  return [
    { kind: 'judge-meta', messages: metaChat(TINY_JUDGE_META_SYSTEM, item.question, turns) },
    { kind: 'judge-reasoning', messages: reasoningChat(TINY_JUDGE_REASONING_SYSTEM, item.question, turns) },
  ];
}

/**
 * A one-round judge dialogue as the two agents' chats; each agent's side may follow another plan (the planner's
 * preference and the executor's skill are trained in different proportions). As in the paper's judge (App. G), the
 * meta-thinking agent sees only the instruction; the reasoning agent sees it with both candidates and the plan.
 */
export function judgeOneRoundChats(
  item: JudgeItem,
  metaPlan: JudgePlanKind,
  reasoningPlan: JudgePlanKind,
): SupervisedChat[] {
  return [
    {
      kind: 'judge-meta',
      messages: metaChat(TINY_JUDGE_META_SYSTEM, item.pair.instruction, judgeOneRoundTrace(item, metaPlan)),
    },
    {
      kind: 'judge-reasoning',
      messages: reasoningChat(TINY_JUDGE_REASONING_SYSTEM, item.question, judgeOneRoundTrace(item, reasoningPlan)),
    },
  ];
}

/** Single-turn MAMRP: one plan, then one solution. */
export function singleTurnChats(spec: TinyProblemSpec): SupervisedChat[] {
  const single = singleTurnTrace(spec);
  return [
    {
      kind: 'single-meta',
      messages: metaChat(TINY_META_SYSTEM, single.question, [{ meta: single.plan, reasoning: '' }]),
    },
    {
      kind: 'single-reasoning',
      messages: reasoningChat(TINY_REASONING_SYSTEM, single.question, [
        { meta: single.plan, reasoning: single.solution },
      ]),
    },
  ];
}

/** One agent that plans then solves (MRP). */
export function mrpChat(spec: TinyProblemSpec): SupervisedChat {
  const mrp = planThenSolveTrace(spec);
  return { kind: 'mrp', messages: oneTurn(TINY_MRP_SYSTEM, mrp.question, mrp.response) };
}

/** One agent that reasons step by step (VRP / CoT). */
export function vrpChat(spec: TinyProblemSpec): SupervisedChat {
  const vrp = chainOfThoughtTrace(spec);
  return { kind: 'vrp', messages: oneTurn(TINY_VRP_SYSTEM, vrp.question, vrp.response) };
}

/** The ReMA multi-turn chats (and optionally the other formats) for a set of tiny problems. */
export function supervisedChats(opts: CorpusOptions): SupervisedChat[] {
  const rng = new Rng(opts.seed ^ 0x7ace5);
  const chats: SupervisedChat[] = [];
  const specs = tinySpecs({ split: opts.split, count: opts.problems, seed: opts.seed });
  specs.forEach((spec, i) => {
    chats.push(...multiTurnChats(multiTurnTrace(spec, drawVariant(rng, opts.mix), rng)));
    if (opts.formatsEvery > 0 && i % opts.formatsEvery === 0)
      chats.push(...singleTurnChats(spec), mrpChat(spec), vrpChat(spec));
  });
  for (const item of tinyJudgeItems({ split: opts.split, count: opts.judgeItems, seed: opts.seed }))
    chats.push(...judgeChats(item));
  return chats;
}

function oneTurn(system: string, question: string, response: string): ChatMessage[] {
  return [
    { role: 'system', content: system },
    { role: 'user', content: question },
    { role: 'assistant', content: response },
  ];
}

/**
 * SFT data for the "meta-thinking SFT vs CoT SFT" ablation, from the same problems: `meta` = the ReMA multi-turn
 * dialogues with gold plans, both agents' sides (two chats per problem); `cot` = one chain-of-thought answer per
 * problem (the VRP format).
 */
export function tinySftChats(
  kind: 'meta' | 'cot',
  opts: { split: TinySplit; seed: number; problems: number },
): SupervisedChat[] {
  if (kind === 'meta')
    return supervisedChats({ ...opts, judgeItems: 0, formatsEvery: 0, mix: { flawed: 0, empty: 0 } });
  return tinySpecs({ split: opts.split, count: opts.problems, seed: opts.seed }).map(vrpChat);
}
