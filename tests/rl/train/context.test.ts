// A model context shorter than the prompts is never silent (real engine, CPU backend, tiny random model, the real
// tokenizer; the context is set with TrainerOptions.maxContext as a model's max_position_embeddings would set it):
// steps and evaluations count the episodes that ran into it, with the context length and the prompt's token count,
// and a context too short for even the shortest problem's first prompt is refused when the trainer is created.
import { describe, expect, it } from 'vitest';
import { tinyArithProblems } from '../../../src/data/tiny-task/dataset.ts';
import type { TrainablePolicy } from '../../../src/engine/policy/policy.ts';
import { createTrainer, type TrainerEvent } from '../../../src/rl/trainer.ts';
import { makePolicy, smallConfig, tok } from '../../helpers/rl/trainer-setup.ts';

const config = smallConfig('tiny-default', { maxTokensPerTurn: 12 });
const train = tinyArithProblems({ split: 'train', count: 8, seed: 1 });
const heldOut = tinyArithProblems({ split: 'heldout', count: 4, seed: 1 });

function trainer(maxContext: number, events: TrainerEvent[] = []) {
  return createTrainer({
    config,
    policy: makePolicy(config),
    tokenizer: tok,
    train,
    eval: heldOut,
    maxContext,
    onEvent: (e) => events.push(e),
  });
}

describe('a context shorter than the prompts', () => {
  it('a long enough context adds no context fields', async () => {
    const { metrics } = await trainer(256).step();
    expect(metrics.context_limited).toBeUndefined();
  });

  it('counts the episodes whose prompt + generation budget did not fit, naming the context and the prompt length', async () => {
    const events: TrainerEvent[] = [];
    const t = trainer(60, events);
    const { metrics } = await t.step();
    expect(metrics).toMatchObject({ context_limited: 2, context_length: 60, context_prompt_tokens: 54 });
    const log = events.find((e) => e.type === 'log');
    expect(log && log.type === 'log' && log.message).toBe(
      "step 1: 2 of 4 episodes did not fit the model's context of 60 tokens (prompt up to 54 tokens + 12 tokens per turn): their turns were cut short or the episode ended (completion_token_exceeded), and they score 0. Use a model with a longer context, or lower maxTokensPerTurn / maxTurns.",
    );
    const e = await t.evaluate();
    expect(e.context_limited).toBeGreaterThan(0);
    expect(e.context_length).toBe(60);
  });

  it('episodes whose prompt fills the context end completion_token_exceeded and are all counted', async () => {
    const { metrics } = await trainer(50).step();
    expect(metrics.finish_reasons.completion_token_exceeded).toBeGreaterThan(0);
    expect(metrics.context_limited).toBe(4);
    expect(metrics.context_prompt_tokens).toBeGreaterThanOrEqual(50);
  });

  it('refuses at start when even the shortest first prompt fills the context', () => {
    expect(() => trainer(40)).toThrow(
      `createTrainer: the model's context is 40 tokens (max_position_embeddings), but the first meta prompt of the shortest problem ("tiny-arith-heldout-1-0") already takes 44 tokens: no episode could generate a token.`,
    );
  });

  it("without TrainerOptions.maxContext the context is the policy's contextLength", () => {
    // the engine policy with its context said to be 40 tokens (its config still says the model's own)
    const inner = makePolicy(config);
    const policy: TrainablePolicy = Object.assign(Object.create(inner) as TrainablePolicy, { contextLength: 40 });
    expect(() => createTrainer({ config, policy, tokenizer: tok, train, eval: heldOut })).toThrow(
      `createTrainer: the model's context is 40 tokens`,
    );
  });
});
