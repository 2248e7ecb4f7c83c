// One problem as every task and dataset presents it to the RL layer.

export type TaskKind = 'math' | 'judge';

/** A pairwise judge item in its parts: the user's instruction and two candidate responses. */
export interface JudgePair {
  instruction: string;
  responseA: string;
  responseB: string;
}

export interface Problem {
  /** stable id, unique within its dataset */
  id: string;
  task: TaskKind;
  /** what the agents see (for judge tasks: the full rendered question with both candidates) */
  question: string;
  /**
   * A judge problem's parts, when known (judge-pair JSONL rows, the tiny judge task): the paper's and the code's
   * prompt sets show the meta-thinking agent only the instruction and the reasoning agent all three (App. G).
   */
  judge?: JudgePair;
  /** gold answer: LaTeX without \boxed for math; "A" or "B" for judge */
  answer: string;
  /** difficulty level or subject, for per-level accuracy */
  level?: string;
  subject?: string;
}
