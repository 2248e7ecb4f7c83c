// Picks the prompt texts for a run: prompt set (paper / code / tiny) x protocol mode x task (math / judge).
// The texts themselves are data in paper.ts and in data/tiny-task/prompts.ts (the strings the embedded tiny
// model was trained on).

import type { TaskKind } from '../../data/problem.ts';
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

export interface AgentPrompts {
  /** meta-thinking agent (multi-turn and single-turn MAMRP) */
  metaSystem: string;
  metaUser(question: string): string;
  /** reasoning agent; its first user message carries the question and the first plan */
  reasoningSystem: string;
  reasoningUser(question: string, plan: string): string;
  /** the single agent of vrp / vrp-rl / mrp-rl */
  singleSystem: string;
  singleUser(question: string): string;
}

const raw = (question: string) => question;

/**
 * The prompts for one run. For judge tasks with the paper's prompts the question already holds both candidate
 * answers (Problem.question), so the high-level agent sees them too, unlike the paper's MAMRP judge.
 */
export function promptsFor(set: PromptSetName, mode: ProtocolMode, task: TaskKind): AgentPrompts {
  const single = mode === 'mrp-rl' ? 'mrp' : 'vrp';
  if (set === 'tiny') {
    if (task === 'judge')
      return {
        metaSystem: TINY_JUDGE_META_SYSTEM,
        metaUser: raw,
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
      metaUser: raw,
      reasoningSystem: paper.JUDGE_REASONING_SYSTEM,
      reasoningUser: (q, plan) => `${q}\n[The Start of Evaluation Plan]\n${plan}\n[The End of Evaluation Plan]`,
      singleSystem: single === 'mrp' ? paper.JUDGE_MRP_SYSTEM : paper.JUDGE_VRP_SYSTEM,
      singleUser: raw,
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
