// The problem a plan intervention runs on (src/rl/intervention.ts interventionProblem): a judge problem only when
// the run trains on the tiny judge task and the gold is a verdict, so the verdict grading applies; a math problem
// otherwise, graded by the math verifier. Checked through the real grader on the tiny tasks' own problems.
import { describe, expect, it } from 'vitest';
import { tinyArithProblems, tinyJudgeProblems } from '../../src/data/tiny-task/index.ts';
import { gradeAnswer } from '../../src/rl/grade-in-thread.ts';
import { interventionProblem } from '../../src/rl/intervention.ts';

describe('interventionProblem', () => {
  it('a tiny-judge rollout becomes a judge problem graded by its verdict', () => {
    const [item] = tinyJudgeProblems({ split: 'heldout', count: 1, seed: 3 });
    const p = interventionProblem(item.question, item.answer, { trainSet: 'tiny-judge' });
    expect(p).toEqual({ id: 'intervention', task: 'judge', question: item.question, answer: item.answer });
    const wrong = item.answer === 'A' ? 'B' : 'A';
    expect(gradeAnswer(p, `[[${item.answer}]]`).correct).toBe(true);
    expect(gradeAnswer(p, `[[${wrong}]]`).correct).toBe(false);
  });

  it('a tiny-arith rollout is a math problem graded against the boxed gold', () => {
    const [item] = tinyArithProblems({ split: 'heldout', count: 1, seed: 3 });
    const p = interventionProblem(item.question, item.answer, { trainSet: 'tiny-arith' });
    expect(p.task).toBe('math');
    expect(gradeAnswer(p, `so \\boxed{${item.answer}}`).correct).toBe(true);
  });

  it('a gold "A" is a verdict only on the judge task, and the judge task\'s numeric gold is math', () => {
    expect(interventionProblem('Which letter comes first?', 'A', { trainSet: 'math8k' }).task).toBe('math');
    expect(interventionProblem('What is 2 + 3?', '5', { trainSet: 'tiny-judge' }).task).toBe('math');
    expect(interventionProblem('Which is better?', 'B', { trainSet: 'tiny-judge' }).task).toBe('judge');
  });
});
