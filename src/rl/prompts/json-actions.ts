// Prompts of the meta-action JSON mode (paper Sec. 4.2.2, App. G.1.1): the meta-thinking agent answers
// {"action": "DECOMPOSE" | "REWRITE" | "EMPTY", "output": "..."} (decoded under the grammar mask,
// protocol/json-actions) and the reasoning agent executes the chosen action:
// - DECOMPOSE / REWRITE: the question with the output as the provided instruction (App. G.1.1's answer-generation
//   user message with the paper prompts; the tiny task's "Question: ... Instruction: ..." with the tiny ones);
// - EMPTY (or an answer cut short, which the grammar only allows under a cap below the shortest answer): the
//   question alone, answered directly (the VRP user message).
// The paper gives one system prompt per action for building its SFT data (REWRITE, DECOMPOSE); the RL agent must
// choose among the three, so its system prompt below joins those two texts' instructions with EMPTY's meaning and
// the exact answer format. The reasoning agent's system prompt is App. G.1.1's answer-generation prompt.

import type { Problem, TaskKind } from '../../data/problem.ts';
import { TINY_REASONING_SYSTEM, reasoningFirstUserMessage } from '../../data/tiny-task/prompts.ts';
import type { ExperimentConfig, PromptSetName } from '../config.ts';
import { parseMetaAction } from '../protocol/json-actions/grammar.ts';
import { promptsFor, type AgentPrompts } from './index.ts';
import { SINGLE_TURN_PAPER_REASONING_SYSTEM, vrpUser } from './paper.ts';

/** The meta-thinking agent's system prompt with the paper's (and the code's) prompt sets. */
export const JSON_ACTION_META_SYSTEM =
  'You are a math expert trying to solve mathematical problems. Before answering a question, choose one action: ' +
  'DECOMPOSE (decompose the original question to make it clearer), REWRITE (rewrite the original question to make it clearer) ' +
  'or EMPTY (no guidance: the question is answered directly). Provide your content in JSON format: ' +
  '{"action": "DECOMPOSE", "output": "{decomposed question content}"}, {"action": "REWRITE", "output": "{clearer question content}"} ' +
  'or {"action": "EMPTY", "output": ""} Respond only with valid JSON. Do not write an introduction or summary.';

/** App. G.1.1's user message for the action prompts. */
export function jsonActionMetaUser(question: string): string {
  return `Here is the question: ${question}`;
}

/** App. G.1.1's answer-generation user message: the question and the instruction (a decomposition or a rewrite). */
export function jsonActionReasoningUser(question: string, instruction: string): string {
  return `Here is the question and instructions:\nQuestion\n${question}\nProvided Instruction\n${instruction}`;
}

/** The tiny task's meta-thinking system prompt in JSON mode (the embedded model never saw JSON: a few words). */
export const TINY_JSON_META_SYSTEM = 'You plan. Answer in JSON: DECOMPOSE, REWRITE or EMPTY.';

/**
 * `base` (promptsFor's) with the meta-thinking agent's prompts replaced by the JSON-mode ones and the reasoning
 * agent's first user message chosen by the action parsed from the plan.
 */
export function jsonActionPrompts(base: AgentPrompts, set: PromptSetName): AgentPrompts {
  const tiny = set === 'tiny';
  return {
    ...base,
    metaSystem: tiny ? TINY_JSON_META_SYSTEM : JSON_ACTION_META_SYSTEM,
    metaUser: (q: string) => (tiny ? q : jsonActionMetaUser(q)),
    reasoningSystem: tiny ? TINY_REASONING_SYSTEM : SINGLE_TURN_PAPER_REASONING_SYSTEM,
    reasoningUser: (q: string, plan: string, _problem?: Problem) => {
      const answer = parseMetaAction(plan);
      if (answer === null || answer.action === 'EMPTY') return tiny ? q : vrpUser(q);
      return tiny ? reasoningFirstUserMessage(q, answer.output) : jsonActionReasoningUser(q, answer.output);
    },
  };
}

/** The prompts a run's agents use: promptsFor's set for the task, switched to the JSON-mode ones under
 *  metaActions "json" (the trainer, the planner and a plan intervention all build them here). */
export function runPrompts(
  config: Pick<ExperimentConfig, 'prompts' | 'mode' | 'metaActions'>,
  task: TaskKind,
): AgentPrompts {
  const plain = promptsFor(config.prompts, config.mode, task);
  return config.metaActions === 'json' ? jsonActionPrompts(plain, config.prompts) : plain;
}
