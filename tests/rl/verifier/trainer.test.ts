// The trainer grades through the AnswerChecker it is given (TrainerOptions.checker): with the Node worker checker,
// answers whose check would run long are cut at the hard limit (worker killed and restarted) in both the reward
// step and the evaluation, and training goes on. Real engine (tiny random Llama on the CPU backend), real worker.
import { afterAll, describe, expect, it } from 'vitest';
import { nodeAnswerChecker } from '../../../src/cli/checker-node.ts';
import { tinyArithProblems } from '../../../src/data/tiny-task/dataset.ts';
import { createTrainer } from '../../../src/rl/trainer.ts';
import { makePolicy, smallConfig, tok } from '../../helpers/rl/trainer-setup.ts';

const matrix = (name: string) =>
  `\\begin{pmatrix}${Array.from({ length: 5 }, (_r, i) => Array.from({ length: 5 }, (_c, j) => `${name}_{${i}${j}}`).join('&')).join('\\\\')}\\end{pmatrix}`;
/** A gold whose every check takes 0.5-1 s in one engine call (a product of three symbolic 5x5 matrices). */
const SLOW_GOLD = `${matrix('x')}${matrix('y')}${matrix('z')}`;
const slow = (p: ReturnType<typeof tinyArithProblems>[number]) => ({ ...p, answer: SLOW_GOLD });

describe('trainer with the pre-emptible checker', () => {
  const restarts: string[] = [];
  const checker = nodeAnswerChecker({ limitMs: 100, onRestart: (why) => restarts.push(why) });
  afterAll(() => checker.close());

  it('cuts slow checks in the reward and eval stages and finishes the step', async () => {
    const config = smallConfig('vrp-rl', { problemsPerStep: 1, groupSize: 2, evalSize: 1 });
    const trainer = createTrainer({
      config,
      policy: makePolicy(config),
      tokenizer: tok,
      train: tinyArithProblems({ split: 'train', count: 2, seed: 1 }).map(slow),
      eval: tinyArithProblems({ split: 'heldout', count: 1, seed: 1 }).map(slow),
      checker,
    });
    const r = await trainer.step();
    expect(r.rollouts).toHaveLength(2);
    expect(r.rollouts.every((x) => !x.correct)).toBe(true);
    // one killed check per episode of the step; two episodes with the same answer checked at once share one check
    // (the checker answers a repeated pair from the check in flight), so one kill then cuts both
    const distinct = new Set(r.rollouts.map((x) => x.extracted)).size;
    expect(restarts.length).toBeGreaterThanOrEqual(distinct);
    expect(restarts.length).toBeLessThanOrEqual(2);
    const afterStep = restarts.length;
    expect(r.metrics.time_s.reward).toBeLessThan(10);
    const e = await trainer.evaluate();
    expect(e.accuracy).toBe(0);
    expect(restarts).toHaveLength(afterStep + 1);
    expect(restarts.every((w) => w === 'check ran past its 100 ms limit')).toBe(true);
  }, 120_000);
});
