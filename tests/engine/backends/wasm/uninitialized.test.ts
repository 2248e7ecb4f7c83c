// Scratch the model code allocates `uninitialized` (TensorScope.alloc) is handed out by the WASM backend without
// zero-filling. With the backend's `poison` option such a tensor starts as NaN, so any kernel or model step that
// read one before writing it would turn its results into NaN. Every output of a golden model's forward, full and
// LoRA backward, and an EnginePolicy's generate / score / train / generate-again / next-turn cycle (KV caches,
// kept rows, compaction) must be bit-identical with and without poison.
import { describe, expect, it } from 'vitest';
import { WasmBackend } from '../../../../src/engine/backends/wasm.ts';
import { createEnginePolicy } from '../../../../src/engine/policy/engine-policy.ts';
import type { GenerateRequest, SamplingParams, TokenDecoder } from '../../../../src/engine/policy/policy.ts';
import { randomWeights, tinyConfig } from '../../../helpers/engine/model-random.ts';
import { firstDifference, goldenFixtures, modelRun } from '../../../helpers/engine/wasm-threads-model.ts';

const req = (prompt: number[]): GenerateRequest => ({
  prompt,
  adapter: 'a',
  maxNewTokens: 9,
  stopStrings: [],
  stopTokenIds: [],
});

describe('WASM scratch handed out without zero-filling', () => {
  it('poison makes an uninitialized tensor read as NaN, and a plain alloc still reads as zeros', async () => {
    const be = await WasmBackend.create({ poison: true });
    const scratch = be.alloc([5], 'f32', 'scratch', true);
    expect(Array.from((await be.download(scratch)) as Float32Array).every(Number.isNaN)).toBe(true);
    be.free(scratch);
    const zeroed = be.alloc([5], 'f32', 'zeroed');
    expect(Array.from((await be.download(zeroed)) as Float32Array)).toEqual([0, 0, 0, 0, 0]);
    be.destroy();
  });

  it.each(goldenFixtures().slice(0, 2))('%s: forward and backward do not depend on it', async (name) => {
    const plain = await WasmBackend.create({ variant: 'simd' });
    const poisoned = await WasmBackend.create({ variant: 'simd', poison: true });
    const a = await modelRun(plain, name);
    const b = await modelRun(poisoned, name);
    for (const [key, x] of a) {
      expect(firstDifference(x, b.get(key)!), key).toBe(-1);
      expect(x.some(Number.isNaN), key).toBe(false);
    }
    plain.destroy();
    poisoned.destroy();
  });

  it('an EnginePolicy step cycle (generate, score, train, generate, a next turn) does not depend on it', async () => {
    const cfg = tinyConfig({ vocabSize: 30 });
    const weights = randomWeights(cfg, 21);
    const letters: TokenDecoder = { decode: (ids) => ids.map((i) => String.fromCharCode(97 + (i % 26))).join('') };
    const run = async (poison: boolean) => {
      const backend = await WasmBackend.create({ variant: 'simd', poison });
      const policy = createEnginePolicy({
        backend,
        config: cfg,
        weights,
        decoder: letters,
        training: {
          mode: 'lora',
          adapters: ['a'],
          rank: 4,
          alpha: 8,
          targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'],
        },
        optimizer: {
          lr: 1e-2,
          beta1: 0.9,
          beta2: 0.999,
          eps: 1e-8,
          weightDecay: 0,
          gradClip: 1,
          schedule: { kind: 'constant' },
        },
        seed: 1,
        // prompts prefilled in several passes, and a chunk that recomputes its layers in the backward
        prefillTokens: 8,
        activationBudgetBytes: 0,
      });
      const sampling: SamplingParams = { temperature: 1, topP: 1, topK: 0, seed: 7 };
      const prompts = [
        [1, 2, 3],
        [4, 5],
        [1, 2, 3],
        [7, 8, 9, 10, 11],
      ];
      const first = await policy.generate(prompts.map(req), sampling);
      const rows = first.map((g, i) => {
        const tokens = [...prompts[i], ...g.tokens];
        return { tokens, positions: g.tokens.map((_, k) => prompts[i].length + k) };
      });
      const scored = await policy.score(rows.map((r) => ({ ...r, adapter: 'a' })));
      await policy.accumulateGradients(
        rows.map((r, i) => ({
          ...r,
          adapter: 'a',
          coef: Float32Array.from(r.positions, (_, k) => Math.sin(i + k)),
        })),
      );
      const norms = await policy.gradientNorms('a');
      await policy.optimizerStep('a');
      const second = await policy.generate(prompts.map(req), sampling);
      // a next turn: each conversation so far plus a few tokens (prefilled behind the kept rows), eight sequences of
      // which most stop early (a third of the ids stop), so the caches are compacted to the live rows mid-decode
      const turn = [...first, ...first].map((g, i) => ({
        ...req([...prompts[i % prompts.length], ...g.tokens, 11 + i, 12]),
        maxNewTokens: 12,
        stopTokenIds: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      }));
      const third = await policy.generate(turn, sampling);
      policy.dispose();
      backend.destroy();
      return { first, scored, norms, second, third };
    };
    const plain = await run(false);
    const poisoned = await run(true);
    expect(poisoned.first).toEqual(plain.first);
    expect(poisoned.scored).toEqual(plain.scored);
    expect(poisoned.norms).toEqual(plain.norms);
    // (A's gradients are zero while B is: LoRA starts with B = 0)
    expect(plain.norms.every((n) => Number.isFinite(n.norm))).toBe(true);
    expect(plain.norms.some((n) => n.norm > 0)).toBe(true);
    expect(poisoned.second).toEqual(plain.second);
    expect(poisoned.third).toEqual(plain.third);
    expect(plain.third.some((g) => g.finish === 'stop_token' && g.tokens.length < 6)).toBe(true);
    expect(plain.third.some((g) => g.tokens.length > 6)).toBe(true);
  });
});
