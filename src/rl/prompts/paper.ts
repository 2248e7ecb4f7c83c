// The ReMA prompts, verbatim, as data. Sources: the released code (ziyuwan/ReMA-public@24b5b47, prompt/*.py)
// (prompt/math/multi_turn_mamrp.py and the single-turn prompts) and the paper's appendix G (arXiv 2503.09501v3, the
// judge task's prompts). Exact bytes matter: a trailing space or newline changes the tokens the model sees.

import type { JudgePair } from '../../data/problem.ts';

/** prompt/__init__.py FINISH_FLAG: ends the meta-thinking agent's last turn; a stop string for both agents. */
export const FINISH_FLAG = '[FINISH]';

// ---- multi-turn MAMRP (prompt/math/multi_turn_mamrp.py = paper App. G.2.2) ----------------------------------

/** MTA_SYSTEM_PRMOPT: note the trailing space after "e.g." and the final newline (the code does not strip it). */
export const MULTI_TURN_META_SYSTEM =
  'You are a meta-think agent that represents human high-level think process, when solving a question, you will have a discussion with human, each time you think about what to do next: e.g. \n' +
  '- Exploring multiple angles and approaches\n' +
  '- Breaking down the solution into clear steps\n' +
  '- Continuously reflecting on intermediate results honestly and adapt your strategy as you progress\n' +
  '- Backtracking when necessary\n' +
  '- Requesting exploration of multiple solutions individually\n' +
  '- Finally confirm the answer with the tag [FINISH]\n';

/** RA_SYSTEM_PRMOPT: no final period; the Python "\\boxed{}" is the text \boxed{}. */
export const MULTI_TURN_REASONING_SYSTEM =
  'Please reason step by step follow the given instruction, when asked to finalize your answer, put your answer within \\boxed{}';

/** The reasoning agent's first user message in the code (vllm_rollout_spmd.py, build_train_data.py). */
export function codeReasoningFirstUser(question: string, plan: string): string {
  return `Question:\n${question}\n\nInstruction:\n${plan}`;
}

// ---- single-turn MAMRP, code version (prompt/math/single_turn_mamrp.py; user turns as multi-turn) -----------

/** MTA_SYSTEM_PRMOPT (.strip()-ed): line 1 keeps its trailing space after "step-by-step." */
export const SINGLE_TURN_CODE_META_SYSTEM =
  'You are a math expert specialized in solving mathematical problems, you need to teach a weaker agent with minimal capability in math how to solve a problem step-by-step. \n' +
  'Your task is to provide a high-level solution plan for the given problem, in order to guide a low-level math solving agent to solve the problem.\n' +
  "You can not directly answer the question. You'll be punished if you include any answer in your response.\n" +
  'You need to first think deeply in mind and output your final instruction.';

/** RA_SYSTEM_PRMOPT (.strip()-ed). The code never .format()s it, so the model literally sees \boxed{{}}. (a bug kept verbatim) */
export const SINGLE_TURN_CODE_REASONING_SYSTEM =
  'You are a math expert tasked with solving problems step by step. Follow the provided instructions precisely, showing all reasoning and intermediate steps.\n' +
  'Present the final answer within \\boxed{{}}.';

// ---- single-turn MAMRP, paper version (App. G.1.2, the OpenRLHF runs behind Table 1) -------------------------

/** High-level system prompt: the paper shows the same text as the code's single-turn MTA prompt. */
export const SINGLE_TURN_PAPER_META_SYSTEM = SINGLE_TURN_CODE_META_SYSTEM;

export const SINGLE_TURN_PAPER_REASONING_SYSTEM =
  'You are a math expert tasked with solving problems step by step. Follow the provided instructions precisely, showing all reasoning and intermediate steps. Present the final answer within \\boxed{}.';

export function paperMetaUser(question: string): string {
  return `Here is the question:\n${question}`;
}

/** Low-level user message; the paper's text was flattened by OCR, so the line breaks between tags are unknown (spaces kept). */
export function paperReasoningUser(question: string, plan: string): string {
  return `Here is the question and instructions: [Question] ${question} [End of Question] [Provided Instruction] ${plan} [End of Instruction]`;
}

// ---- baselines (paper §4.1, App. G.1.2; code prompt/math/vrp.py) ---------------------------------------------

export const VRP_PAPER_SYSTEM =
  'You are a math expert tasked with solving problems step by step. Present the final answer within \\boxed{}.';
/** prompt/math/vrp.py: a trailing space before the newline. */
export const VRP_CODE_SYSTEM =
  'You are a math expert tasked with solving problems step by step. \nPresent the final answer within \\boxed{}.';
export function vrpUser(question: string): string {
  return `Here is the question:\n${question}`;
}

export const MRP_PAPER_SYSTEM =
  'You are a math expert tasked with solving problems. When solving a problem, your first task is to provide a high-level solution plan as an instruction. Then you need to follow the provided instructions precisely, showing all reasoning and intermediate steps. Finally, you must present the final answer within \\boxed{}.';
export function mrpUser(question: string): string {
  return `Here is the question: ${question}`;
}

// ---- LLM-as-a-Judge (paper §3.5 of the notes, App. G; adopted from EvalPlanner) --------------------------------

const JUDGE_INTRO =
  "Please act as an impartial judge and evaluate the quality of the responses provided by two AI assistants to the user question displayed below. You should choose the assistant that follows the user's instructions and answers the user's question better.";
const JUDGE_BODY =
  ' Your evaluation should consider factors such as the helpfulness, relevance, accuracy, depth, creativity, and level of detail of their responses. Begin your evaluation by comparing the two responses and provide a short explanation. Avoid any position biases and ensure that the order in which the responses were presented does not influence your decision. Do not allow the length of the responses to influence your evaluation. Do not favor certain names of the assistants. Be as objective as possible. After providing your explanation, output your final verdict by strictly following this format: "[[A]]" if assistant A is better, "[[B]]" if assistant B is better.';

export const JUDGE_VRP_SYSTEM = JUDGE_INTRO + JUDGE_BODY;

export const JUDGE_MRP_SYSTEM =
  JUDGE_INTRO +
  ' First of your task is to build an evaluation plan that can then be executed to assess the response quality. Whenever appropriate, you can choose to also include a step-by-step reference answer as part of the evaluation plan. Enclose your evaluation plan between the tags "[Start of Evaluation Plan]" and "[End of Evaluation Plan]". After that, please act as an impartial judge and evaluate the quality of the responses provided by two AI assistants to the user question displayed below. You should choose the assistant that follows the user\'s instructions and answers the user\'s question better.' +
  JUDGE_BODY;

export const JUDGE_META_SYSTEM =
  'We want to evaluate the quality of the responses provided by AI assistants to the user question displayed below. For that, your task is to help us build an evaluation plan that can then be executed to assess the response quality. Whenever appropriate, you can choose to also include a step-by-step reference answer as part of the evaluation plan.';

export const JUDGE_REASONING_SYSTEM =
  'Please act as an impartial judge and evaluate the quality of the responses provided by two AI assistants to the user question displayed below. Your evaluation should be performed by following the provided evaluation plan step-by-step. Avoid copying the plan when doing the evaluation. Please also only stick to the given plan and provide explanation of how the plan is executed to compare the two responses. Avoid any position biases and ensure that the order in which the responses were presented does not influence your decision. Do not allow the length of the responses to influence your evaluation. Do not favor certain names of the assistants. Be as objective as possible. After providing your evaluation, output your final verdict by strictly following this format: "[[A]]" if assistant A is better, "[[B]]" if assistant B is better.';

/** A pairwise judge item in the paper's fields (data/problem.ts). */
export type { JudgePair };

/** VRP / MRP judge user message (OCR-flattened in the paper: spaces between tags). */
export function judgeUser(p: JudgePair): string {
  return `[User Question] ${p.instruction} [End of User Question] [The Start of Assistant A's Answer] ${p.responseA} [The End of Assistant A's Answer] [The Start of Assistant B's Answer] ${p.responseB} [The End of Assistant B's Answer]`;
}

/** MAMRP judge, high-level user message: the plan writer does not see the two responses. */
export function judgeMetaUser(instruction: string): string {
  return `[User Question] ${instruction} [End of User Question]`;
}

/** MAMRP judge, low-level user message (line breaks as restored in the notes). */
export function judgeReasoningUser(p: JudgePair, plan: string): string {
  return (
    `[User Question]\n${p.instruction}\n[End of User Question]\n` +
    `[The Start of Assistant A's Answer]\n${p.responseA}\n[The End of Assistant A's Answer]\n` +
    `[The Start of Assistant B's Answer]\n${p.responseB}\n[The End of Assistant B's Answer]\n` +
    `[The Start of Evaluation Plan]\n${plan}\n[The End of Evaluation Plan]`
  );
}
