// Prompt texts for the tiny task ("tiny" prompt set). They play the roles of the paper's prompts (rema-paper-and-code
// §2 and App. G) but are a few words each: the embedded model has a 256-token context and was trained on exactly
// these strings, so a run on the tiny model must use them verbatim.

/** Multi-turn and single-turn ReMA on the arithmetic task. */
export const TINY_META_SYSTEM = 'You plan. End with [FINISH].';
export const TINY_REASONING_SYSTEM = 'You compute. Answer in \\boxed{}.';

/** Baselines: VRP (one agent, chain of thought) and MRP (one agent writes a plan, then solves). */
export const TINY_VRP_SYSTEM = 'Solve. Answer in \\boxed{}.';
export const TINY_MRP_SYSTEM = 'Plan, then solve. Answer in \\boxed{}.';

/** The judge task: the meta-thinking agent writes an evaluation plan; the reasoning agent gives [[A]] or [[B]]. */
export const TINY_JUDGE_META_SYSTEM = 'You plan a check. End with [FINISH].';
export const TINY_JUDGE_REASONING_SYSTEM = 'You judge. Answer [[A]] or [[B]].';

/** The reasoning agent's first user message (the ReMA code's format, paper App. G.2). */
export function reasoningFirstUserMessage(question: string, plan: string): string {
  return `Question:\n${question}\n\nInstruction:\n${plan}`;
}
