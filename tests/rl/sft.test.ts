// Supervised fine-tuning on the real engine (CPU backend, a small random Llama with the embedded model's
// tokenizer): the trained positions are exactly the assistant messages and their end-of-turn tokens, the loss
// falls as a few chats are learnt (full weights and LoRA), the cutoff cuts, and each epoch visits every chat once.
import { describe, expect, it } from 'vitest';
import { parseSftChats } from '../../src/data/sft-chats.ts';
import { supervisedChats } from '../../src/data/tiny-task/corpus.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { createEnginePolicy } from '../../src/engine/policy/engine-policy.ts';
import {
  runSftSteps,
  sftBatch,
  sftExamples,
  sftStep,
  sftStepCount,
  sftWeights,
  weightsChecksum,
  type SftStepRecord,
} from '../../src/rl/sft.ts';
import { randomWeights, tinyConfig } from '../helpers/engine/model-random.ts';
import { makePolicy, smallConfig, tok } from '../helpers/rl/trainer-setup.ts';
import { constantAdamW } from '../helpers/adamw.ts';

const chats = supervisedChats({ split: 'train', seed: 3, problems: 2, judgeItems: 0, formatsEvery: 0 }).map((c, i) => ({
  line: i + 1,
  messages: c.messages,
}));

describe('SFT', () => {
  it('trains every assistant message and its end-of-turn token, nothing else', () => {
    const [chat] = parseSftChats(
      JSON.stringify({
        system: 'You plan.',
        history: [['What is 2+3?', 'Add them.']],
        instruction: 'Sum is 5.',
        output: 'Confirm. [FINISH]',
      }),
      'x.jsonl',
    );
    const { examples } = sftExamples(tok, [chat], 10_000, 'x.jsonl');
    const ex = examples[0];
    const trained = ex.targets.map((t) => ex.tokens[t]);
    const eot = tok.endOfTurnTokenId;
    const pieces: number[][] = [[]];
    for (const id of trained) {
      if (id === eot) pieces.push([]);
      else pieces.at(-1)!.push(id);
    }
    expect(pieces.slice(0, -1).map((p) => tok.decode(p))).toEqual(['Add them.', 'Confirm. [FINISH]']);
    expect(trained.filter((id) => id === eot)).toHaveLength(2);
  });

  it('cuts chats at the cutoff and drops those left with nothing to train', () => {
    const { examples } = sftExamples(tok, chats, 10_000, 'c');
    const longest = Math.max(...examples.map((e) => e.tokens.length));
    const firstTarget = Math.min(...examples.map((e) => e.targets[0]));
    const cut = sftExamples(tok, chats, longest - 5, 'c');
    expect(cut.examples.some((e) => e.truncated && e.tokens.length === longest - 5)).toBe(true);
    expect(cut.examples.every((e) => e.targets.every((t) => t < longest - 5))).toBe(true);
    const none = sftExamples(tok, chats, firstTarget, 'c');
    expect(none.examples).toHaveLength(0);
    expect(none.dropped).toEqual(chats.map((c) => c.line));
  });

  it('visits every chat once per epoch, in a seeded order', () => {
    const opts = { batchSize: 3, epochs: 2, cutoff: 1, seed: 7 };
    expect(sftStepCount(7, opts)).toBe(6);
    const epoch = (e: number) => [0, 1, 2].flatMap((k) => sftBatch(7, opts, e * 3 + k));
    expect(epoch(0).toSorted((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(epoch(1).toSorted((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(epoch(0)).not.toEqual(epoch(1));
    expect(sftBatch(7, opts, 4)).toEqual(sftBatch(7, { ...opts }, 4));
  });

  for (const finetune of ['full', 'lora'] as const) {
    it(`lowers the loss on the chats it learns (${finetune})`, async () => {
      const policy = makePolicy(smallConfig('tiny-default', { finetune, lr: finetune === 'full' ? 1e-2 : 1e-1 }));
      const adapter = policy.adapters[0];
      const { examples } = sftExamples(tok, chats, 10_000, 'c');
      const losses: number[] = [];
      for (let s = 0; s < 12; s++) {
        const r = await sftStep(policy, adapter, examples);
        expect(r.applied).toBe(true);
        expect(r.tokens).toBe(examples.reduce((n, e) => n + e.targets.length, 0));
        losses.push(r.loss);
      }
      expect(losses[0]).toBeGreaterThan(Math.log(tok.vocabSize) * 0.8);
      // LoRA here is rank 2 on q and v only, so it learns more slowly than full weights
      expect(losses.at(-1)!).toBeLessThan(losses[0] * (finetune === 'full' ? 0.75 : 0.85));
      expect(losses.slice(1).every((l, i) => l < losses[i])).toBe(true);
      // the reported loss is the mean NLL the model assigns after the update, as a fresh score confirms
      const scored = await policy.score(examples.map((e) => ({ tokens: e.tokens, positions: e.targets, adapter })));
      const nll =
        -scored.reduce((s, r) => s + r.logprobs.reduce((a, b) => a + b, 0), 0) /
        examples.reduce((n, e) => n + e.targets.length, 0);
      const next = await sftStep(policy, adapter, examples);
      expect(next.loss).toBeCloseTo(nll, 4);
    });
  }

  it("runs the step loop in ranges: a stopped run resumed from its last step gives the uninterrupted run's losses", async () => {
    const { examples } = sftExamples(tok, chats, 10_000, 'c');
    const schedule = { batchSize: 3, epochs: 3, cutoff: 10_000, seed: 4 };
    expect(examples.length).toBe(4);
    const config = smallConfig('tiny-default', { finetune: 'full', lr: 1e-2 });
    const whole: SftStepRecord[] = [];
    const a = makePolicy(config);
    expect(
      await runSftSteps(a, 'full', examples, schedule, { from: 0, to: 5 }, { onStep: (r) => void whole.push(r) }),
    ).toBe(5);
    expect(whole.map((r) => r.step)).toEqual([1, 2, 3, 4, 5]);
    expect(whole.map((r) => r.epoch)).toEqual([1, 1, 2, 2, 3]);
    expect(whole.map((r) => r.examples)).toEqual([3, 1, 3, 1, 3]);
    expect(whole.every((r) => r.applied)).toBe(true);

    const b = makePolicy(config);
    const parts: SftStepRecord[] = [];
    // stop is asked before each step: after the second step it says stop
    const stopped = await runSftSteps(
      b,
      'full',
      examples,
      schedule,
      { from: 0, to: 5 },
      { onStep: (r) => void parts.push(r), stop: () => parts.length >= 2 },
    );
    expect(stopped).toBe(2);
    expect(
      await runSftSteps(b, 'full', examples, schedule, { from: stopped, to: 5 }, { onStep: (r) => void parts.push(r) }),
    ).toBe(5);
    expect(parts.map((r) => r.step)).toEqual([1, 2, 3, 4, 5]);
    expect(parts.map((r) => r.loss)).toEqual(whole.map((r) => r.loss));
  });

  for (const finetune of ['full', 'lora'] as const) {
    it(`gives the trained model's weights: a full model built from them scores as the trained policy (${finetune})`, async () => {
      const policy = makePolicy(smallConfig('tiny-default', { finetune, lr: finetune === 'full' ? 1e-2 : 1e-1 }));
      const adapter = policy.adapters[0];
      const { examples } = sftExamples(tok, chats, 10_000, 'c');
      for (let s = 0; s < 3; s++) await sftStep(policy, adapter, examples);
      const model = tinyConfig({ vocabSize: tok.vocabSize, maxPositionEmbeddings: 256 });
      const base = randomWeights(model, 5);
      const weights = await sftWeights(policy, adapter, { weights: base, config: model });
      expect(weightsChecksum(weights)).not.toBe(weightsChecksum(base));
      expect(weightsChecksum(weights)).toBe(weightsChecksum(new Map([...weights].toReversed())));
      const rebuilt = createEnginePolicy({
        backend: new CpuBackend(),
        config: model,
        weights,
        decoder: tok,
        training: { mode: 'full', adapters: ['full'] },
        optimizer: constantAdamW(0),
        seed: 0,
      });
      const items = examples.map((e) => ({ tokens: e.tokens, positions: e.targets }));
      const trained = await policy.score(items.map((i) => ({ ...i, adapter })));
      const fromWeights = await rebuilt.score(items.map((i) => ({ ...i, adapter: 'full' })));
      trained.forEach((r, i) => r.logprobs.forEach((lp, k) => expect(fromWeights[i].logprobs[k]).toBeCloseTo(lp, 4)));
    });
  }
});
