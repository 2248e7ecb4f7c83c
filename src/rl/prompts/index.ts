// Picks the prompt texts for a run: prompt set (paper / code / tiny) x protocol mode x task (math / judge).
// The texts themselves are data in paper.ts and in data/tiny-task/prompts.ts (the strings the embedded tiny
// model was trained on).

import type { Problem, TaskKind } from '../../data/problem.ts';
import {
  TINY_JUDGE_META_SYSTEM,
  TINY_JUDGE_REASONING_SYSTEM,
  TINY_META_SYSTEM,
  TINY_MRP_SYSTEM,
  TINY_REASONING_SYSTEM,
  TINY_VRP_SYSTEM,
  reasoningFirstUserMessage,
} from '../../data/tiny-task/prompts.ts';
import type { ProtocolMode, PromptSetName } from '../config.ts';
import * as paper from './paper.ts';

/** The user-message builders get the problem's question and, when the caller has it, the problem itself (judge parts). */
export interface AgentPrompts {
  /** meta-thinking agent (multi-turn and single-turn MAMRP) */
  metaSystem: string;
  metaUser(question: string, problem?: Problem): string;
  /** reasoning agent; its first user message carries the question and the first plan */
  reasoningSystem: string;
  reasoningUser(question: string, plan: string, problem?: Problem): string;
  /** the single agent of vrp / vrp-rl / mrp-rl */
  singleSystem: string;
  singleUser(question: string, problem?: Problem): string;
}

const raw = (question: string) => question;

/**
 * The prompts for one run. Judge tasks with the paper's (or the code's) prompts follow the paper's MAMRP judge
 * (App. G): for a problem with its parts (Problem.judge) the meta-thinking agent sees only the instruction, the
 * reasoning agent the instruction, both responses and the plan, a single agent the instruction and both responses;
 * a judge problem given only as one rendered question is shown whole. The tiny prompts do the same for the meta-
 * thinking agent (the instruction only; public/models/tiny-rema-judge was trained so) and keep the rendered question
 * for the reasoning agent and a single agent.
 */
export function promptsFor(set: PromptSetName, mode: ProtocolMode, task: TaskKind): AgentPrompts {
  const single = mode === 'mrp-rl' ? 'mrp' : 'vrp';
  if (set === 'tiny') {
    if (task === 'judge')
      return {
        metaSystem: TINY_JUDGE_META_SYSTEM,
        metaUser: (q, p) => (p?.judge ? p.judge.instruction : q),
        reasoningSystem: TINY_JUDGE_REASONING_SYSTEM,
        reasoningUser: reasoningFirstUserMessage,
        singleSystem: TINY_JUDGE_REASONING_SYSTEM,
        singleUser: raw,
      };
    return {
      metaSystem: TINY_META_SYSTEM,
      metaUser: raw,
      reasoningSystem: TINY_REASONING_SYSTEM,
      reasoningUser: reasoningFirstUserMessage,
      singleSystem: single === 'mrp' ? TINY_MRP_SYSTEM : TINY_VRP_SYSTEM,
      singleUser: raw,
    };
  }
  if (task === 'judge')
    return {
      metaSystem: paper.JUDGE_META_SYSTEM,
      metaUser: (q, p) => (p?.judge ? paper.judgeMetaUser(p.judge.instruction) : q),
      reasoningSystem: paper.JUDGE_REASONING_SYSTEM,
      reasoningUser: (q, plan, p) =>
        p?.judge
          ? paper.judgeReasoningUser(p.judge, plan)
          : `${q}\n[The Start of Evaluation Plan]\n${plan}\n[The End of Evaluation Plan]`,
      singleSystem: single === 'mrp' ? paper.JUDGE_MRP_SYSTEM : paper.JUDGE_VRP_SYSTEM,
      singleUser: (q, p) => (p?.judge ? paper.judgeUser(p.judge) : q),
    };
  const singleSystem =
    single === 'mrp' ? paper.MRP_PAPER_SYSTEM : set === 'code' ? paper.VRP_CODE_SYSTEM : paper.VRP_PAPER_SYSTEM;
  const singleUser = single === 'mrp' ? paper.mrpUser : paper.vrpUser;
  if (mode === 'single-turn') {
    if (set === 'code')
      return {
        metaSystem: paper.SINGLE_TURN_CODE_META_SYSTEM,
        metaUser: raw,
        reasoningSystem: paper.SINGLE_TURN_CODE_REASONING_SYSTEM,
        reasoningUser: paper.codeReasoningFirstUser,
        singleSystem,
        singleUser,
      };
    return {
      metaSystem: paper.SINGLE_TURN_PAPER_META_SYSTEM,
      metaUser: paper.paperMetaUser,
      reasoningSystem: paper.SINGLE_TURN_PAPER_REASONING_SYSTEM,
      reasoningUser: paper.paperReasoningUser,
      singleSystem,
      singleUser,
    };
  }
  // multi-turn: the paper's App. G.2.2 prompts are the code's
  return {
    metaSystem: paper.MULTI_TURN_META_SYSTEM,
    metaUser: raw,
    reasoningSystem: paper.MULTI_TURN_REASONING_SYSTEM,
    reasoningUser: paper.codeReasoningFirstUser,
    singleSystem,
    singleUser,
  };
}
