// One problem as every task and dataset presents it to the RL layer.

export type TaskKind = 'math' | 'judge';

export interface Problem {
  /** stable id, unique within its dataset */
  id: string;
  task: TaskKind;
  /** what the agents see (for judge tasks: the full rendered question with both candidates) */
  question: string;
  /** gold answer: LaTeX without \boxed for math; "A" or "B" for judge */
  answer: string;
  /** difficulty level or subject, for per-level accuracy */
  level?: string;
  subject?: string;
}
