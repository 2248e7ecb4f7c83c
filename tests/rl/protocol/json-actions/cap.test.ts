// Meta-action JSON mode under a token cap the answer cannot finish within: refused when the trainer is created,
// naming the smallest cap that works for the tokenizer; at that cap every plan of a rollout is a complete answer.
import { describe, expect, it } from 'vitest';
import { tinyArithProblems } from '../../../../src/data/tiny-task/dataset.ts';
import { parseMetaAction } from '../../../../src/rl/protocol/json-actions/grammar.ts';
import { smallestMetaActionCap } from '../../../../src/rl/protocol/json-actions/actions.ts';
import { createTrainer } from '../../../../src/rl/trainer.ts';
import { makePolicy, smallConfig, tok } from '../../../helpers/rl/trainer-setup.ts';

const train = tinyArithProblems({ split: 'train', count: 4, seed: 1 });

describe('metaActions "json" and maxTokensPerTurn', () => {
  const config = smallConfig('tiny-json-actions', { maxTokensPerTurn: 64, evalSize: 0 });
  const policy = makePolicy(config);
  const cap = smallestMetaActionCap(tok, policy.vocabSize);

  it('refuses a cap below the shortest answer at start, naming the smallest that works', () => {
    expect(cap).toBeGreaterThan(2);
    expect(cap).toBeLessThanOrEqual('{"action": "EMPTY", "output": ""}'.length + 2);
    for (const maxTokensPerTurn of [4, 8, 20, cap - 1])
      expect(() =>
        createTrainer({ config: { ...config, maxTokensPerTurn }, policy, tokenizer: tok, train, eval: [] }),
      ).toThrow(
        `field "maxTokensPerTurn" is ${maxTokensPerTurn}, below the ${cap} tokens the shortest meta-action JSON answer`,
      );
  });

  it('at the smallest cap every plan is a complete answer', async () => {
    const trainer = createTrainer({
      config: { ...config, maxTokensPerTurn: cap },
      policy,
      tokenizer: tok,
      train,
      eval: [],
    });
    const { rollouts } = await trainer.step();
    const plans = rollouts.flatMap((r) => r.turns.filter((t) => t.role === 'meta').map((t) => t.text));
    expect(plans.length).toBeGreaterThan(0);
    for (const p of plans) expect(parseMetaAction(p), p).not.toBeNull();
  });
});
