// A frozen agent on onnxruntime (OnnxFrozenPolicy over the golden models' KV-cache export) behaves like the same
// model on our engine: equal log-probs and entropies, the same sampled tokens for the same seed and stop rules,
// and clear refusals of training calls.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../../src/cli/fs-source.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { createEnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import { loadHfCheckpoint } from '../../../src/engine/io/hf-model.ts';
import { OnnxFrozenPolicy } from '../../../src/engine/policy/onnx-frozen-policy.ts';
import type { GenerateRequest, SamplingParams } from '../../../src/engine/policy/policy.ts';
import { Rng } from '../../../src/util/rng.ts';
import { GOLDEN_ROOT as root, goldenFixtures } from '../../helpers/golden-fixtures.ts';

const folders = goldenFixtures('model_kv.onnx');
const decoder = { decode: (ids: readonly number[]) => ids.map((i) => String.fromCharCode(97 + (i % 26))).join('') };

describe('OnnxFrozenPolicy (onnxruntime-node) vs EnginePolicy', () => {
  for (const folder of folders) {
    it(`${folder}: same log-probs, entropies and seeded generations`, async () => {
      const dir = join(root, folder);
      const { config, weights } = await loadHfCheckpoint(directoryFileSource(dir));
      const session = await ort.InferenceSession.create(join(dir, 'model_kv.onnx'));
      const onnx = new OnnxFrozenPolicy({
        session,
        tensor: (type, data, dims) => new ort.Tensor(type, data, dims),
        config,
        decoder,
      });
      const engine = createEnginePolicy({
        backend: new CpuBackend(),
        config,
        weights,
        decoder,
        training: { mode: 'lora', adapters: ['a'], rank: 2, alpha: 4, targets: ['q'] },
        optimizer: {
          lr: 0,
          beta1: 0.9,
          beta2: 0.999,
          eps: 1e-8,
          weightDecay: 0,
          gradClip: 0,
          schedule: { kind: 'constant' },
        },
        seed: 0,
      });
      const rng = new Rng(11);
      const seqs = [7, 12].map((n) => Array.from({ length: n }, () => Math.floor(rng.next() * config.vocabSize)));
      const requests = seqs.map((tokens) => ({ tokens, positions: [1, 3, tokens.length - 1], adapter: null }));
      const [a, b] = [await onnx.score(requests), await engine.score(requests)];
      for (let i = 0; i < requests.length; i++) {
        for (let j = 0; j < 3; j++) {
          expect(Math.abs(a[i].logprobs[j] - b[i].logprobs[j])).toBeLessThan(1e-4);
          expect(Math.abs(a[i].entropy[j] - b[i].entropy[j])).toBeLessThan(1e-4);
        }
      }

      const sampling: SamplingParams = { temperature: 1, topP: 0.95, topK: 20, seed: 5 };
      const gen: GenerateRequest[] = [
        { prompt: seqs[0].slice(0, 4), adapter: null, maxNewTokens: 8, stopStrings: [], stopTokenIds: [] },
        { prompt: seqs[1].slice(0, 5), adapter: null, maxNewTokens: 6, stopStrings: [], stopTokenIds: [seqs[1][0]] },
      ];
      const [x, y] = [await onnx.generate(gen, sampling), await engine.generate(gen, sampling)];
      expect(x.map((g) => g.tokens)).toEqual(y.map((g) => g.tokens));
      expect(x.map((g) => g.finish)).toEqual(y.map((g) => g.finish));
      expect(x.map((g) => g.text)).toEqual(y.map((g) => g.text));
      x.forEach((g, i) => g.logprobs.forEach((lp, j) => expect(Math.abs(lp - y[i].logprobs[j])).toBeLessThan(1e-4)));
      // generated log-probs are what scoring the finished sequence gives
      const rescored = await onnx.score([
        { tokens: [...gen[0].prompt, ...x[0].tokens], positions: x[0].tokens.map((_, j) => 4 + j), adapter: null },
      ]);
      rescored[0].logprobs.forEach((lp, j) => expect(Math.abs(lp - x[0].logprobs[j])).toBeLessThan(1e-5));

      // a frozen model implements the inference Policy only: no adapters and no training methods, not even throwing ones
      for (const training of [
        'adapters',
        'accumulateGradients',
        'zeroGrad',
        'optimizerStep',
        'saveAdapter',
        'loadAdapter',
        'saveOptimizerState',
        'loadOptimizerState',
      ]) {
        expect(training in onnx, training).toBe(false);
      }
      expect(onnx.contextLength).toBe(config.maxPositionEmbeddings);
      expect(engine.contextLength).toBe(config.maxPositionEmbeddings);
      await session.release();
    });
  }

  it('runs on onnxruntime-web (WASM execution provider, as in the browser) with the same results', async () => {
    ortWeb.env.wasm.numThreads = 1; // no worker threads in Node
    const folder = folders.find((f) => f.startsWith('qwen2')) ?? folders[0];
    const dir = join(root, folder);
    const { config } = await loadHfCheckpoint(directoryFileSource(dir));
    const bytes = new Uint8Array(readFileSync(join(dir, 'model_kv.onnx')));
    const webSession = await ortWeb.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
    const nodeSession = await ort.InferenceSession.create(bytes);
    const web = new OnnxFrozenPolicy({
      session: webSession,
      tensor: (t, d, dims) => new ortWeb.Tensor(t, d, dims),
      config,
      decoder,
    });
    const native = new OnnxFrozenPolicy({
      session: nodeSession,
      tensor: (t, d, dims) => new ort.Tensor(t, d, dims),
      config,
      decoder,
    });
    const tokens = Array.from({ length: 10 }, (_, i) => (i * 7 + 3) % config.vocabSize);
    const req = [{ tokens, positions: tokens.slice(1).map((_, i) => i + 1), adapter: null }];
    const [a, b] = [await web.score(req), await native.score(req)];
    a[0].logprobs.forEach((lp, i) => expect(Math.abs(lp - b[0].logprobs[i])).toBeLessThan(1e-4));
    const gen: GenerateRequest[] = [
      { prompt: tokens.slice(0, 3), adapter: null, maxNewTokens: 6, stopStrings: [], stopTokenIds: [] },
    ];
    const sampling: SamplingParams = { temperature: 0.8, topP: 1, topK: 0, seed: 2 };
    expect((await web.generate(gen, sampling))[0].tokens).toEqual((await native.generate(gen, sampling))[0].tokens);
    await webSession.release();
    await nodeSession.release();
  });

  it('decodes a group in one batch (left padding) exactly as one request at a time', async () => {
    const dir = join(root, folders.find((f) => f.startsWith('qwen2')) ?? folders[0]);
    const { config } = await loadHfCheckpoint(directoryFileSource(dir));
    const session = await ort.InferenceSession.create(join(dir, 'model_kv.onnx'));
    let calls = 0;
    const counted = {
      inputNames: session.inputNames,
      run: (feeds: Parameters<typeof session.run>[0]) => (calls++, session.run(feeds)),
    };
    const make = (maxBatch: number) =>
      new OnnxFrozenPolicy({
        session: counted,
        tensor: (t, d, dims) => new ort.Tensor(t, d, dims),
        config,
        decoder,
        maxBatch,
      });
    const rng = new Rng(3);
    // prompts of 2..9 tokens, different budgets and stop ids, so rows finish at different steps
    const gen: GenerateRequest[] = Array.from({ length: 8 }, (_, i) => ({
      prompt: Array.from({ length: 2 + i }, () => Math.floor(rng.next() * config.vocabSize)),
      adapter: null,
      maxNewTokens: 3 + (i % 4) * 2,
      stopStrings: [],
      stopTokenIds: i % 2 ? [5, 9] : [],
    }));
    const sampling: SamplingParams = { temperature: 1, topP: 0.9, topK: 0, seed: 7 };
    const one = await make(1).generate(gen, sampling);
    const oneCalls = calls;
    calls = 0;
    const batched = await make(8).generate(gen, sampling);
    expect(batched.map((g) => g.tokens)).toEqual(one.map((g) => g.tokens));
    expect(batched.map((g) => g.finish)).toEqual(one.map((g) => g.finish));
    batched.forEach((g, i) =>
      g.logprobs.forEach((lp, j) => expect(Math.abs(lp - one[i].logprobs[j])).toBeLessThan(1e-4)),
    );
    // one call per step for the whole group instead of one per step per request
    expect(calls).toBeLessThanOrEqual(Math.max(...gen.map((r) => r.maxNewTokens)));
    expect(oneCalls).toBeGreaterThan(2 * calls);
    await session.release();
  });

  it('refuses an export without a KV cache, naming what is missing', async () => {
    const dir = join(root, folders[0]);
    const { config } = await loadHfCheckpoint(directoryFileSource(dir));
    const session = await ort.InferenceSession.create(join(dir, 'model.onnx'));
    expect(
      () => new OnnxFrozenPolicy({ session, tensor: (t, d, dims) => new ort.Tensor(t, d, dims), config, decoder }),
    ).toThrow(/ONNX model: input "attention_mask" missing \(inputs: input_ids\)/);
    await session.release();
  });
});
