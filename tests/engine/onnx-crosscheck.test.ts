// Independent cross-check of the engine against onnxruntime-node: each golden model was also exported to ONNX by
// torch.onnx (scripts/golden/make_golden.py). For sequences the golden set does not contain, the engine's
// per-token log-probs, entropies and greedy continuations (public Policy API, CPU backend) must match what
// onnxruntime computes from the exported graph; and onnxruntime itself must reproduce the float64 golden logits.
// Tolerance: both sides compute in float32, so log-probs and entropies agree to 1e-4 absolute.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../src/cli/fs-source.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { createEnginePolicy } from '../../src/engine/policy/engine-policy.ts';
import { loadHfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { parseSafetensors } from '../../src/engine/io/safetensors.ts';
import { Rng } from '../../src/util/rng.ts';
import { GOLDEN_FIXTURES_MIN, GOLDEN_ROOT as root, goldenFixtures } from '../helpers/golden-fixtures.ts';

const folders = goldenFixtures('model.onnx');
const TOL = 1e-4;

/** logits [T, V] (float32 from onnxruntime) -> log p(next token) and entropy at positions 0..T-2, in float64. */
function scoreRows(logits: Float32Array, tokens: number[], V: number): { logprobs: number[]; entropy: number[] } {
  const logprobs: number[] = [];
  const entropy: number[] = [];
  for (let t = 0; t + 1 < tokens.length; t++) {
    const row = logits.subarray(t * V, (t + 1) * V);
    let max = -Infinity;
    for (const x of row) max = Math.max(max, x);
    let sum = 0;
    for (const x of row) sum += Math.exp(x - max);
    const logZ = max + Math.log(sum);
    let h = 0;
    for (const x of row) h -= Math.exp(x - logZ) * (x - logZ);
    logprobs.push(row[tokens[t + 1]] - logZ);
    entropy.push(h);
  }
  return { logprobs, entropy };
}

async function ortLogits(session: ort.InferenceSession, batch: number[][]): Promise<Float32Array> {
  const B = batch.length;
  const T = batch[0].length;
  const out = await session.run({ input_ids: int64(batch.flat(), [B, T]) });
  return out.logits.data as Float32Array;
}

function int64(values: number[], dims: number[]): ort.Tensor {
  return new ort.Tensor(
    'int64',
    BigInt64Array.from(values, (x) => BigInt(x)),
    dims,
  );
}

function argmax(row: Float32Array): number {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}

describe('engine vs onnxruntime-node on the golden models', () => {
  it('finds the exported models', () => {
    expect(folders.length).toBeGreaterThanOrEqual(GOLDEN_FIXTURES_MIN);
  });

  for (const folder of folders) {
    it(`${folder}: log-probs, entropies and greedy tokens agree`, async () => {
      const dir = join(root, folder);
      const session = await ort.InferenceSession.create(join(dir, 'model.onnx'));
      const { config, weights } = await loadHfCheckpoint(directoryFileSource(dir));
      const V = config.vocabSize;

      // 1. onnxruntime reproduces the float64 oracle on the golden batch
      const golden = parseSafetensors(
        new Uint8Array(readFileSync(join(dir, 'golden.safetensors'))),
        'golden.safetensors',
      ).tensors;
      const [B, T] = golden.get('input_ids')!.shape;
      const ids = golden.get('input_ids')!.data as number[];
      const batch = Array.from({ length: B }, (_, b) => ids.slice(b * T, (b + 1) * T));
      const ortGolden = await ortLogits(session, batch);
      const goldLogits = golden.get('logits')!.data as Float64Array;
      let ortErr = 0;
      for (let i = 0; i < goldLogits.length; i++) ortErr = Math.max(ortErr, Math.abs(ortGolden[i] - goldLogits[i]));
      expect(ortErr).toBeLessThan(TOL);

      // 2. the engine agrees with onnxruntime on fresh sequences of several lengths
      const policy = createEnginePolicy({
        backend: new CpuBackend(),
        config,
        weights,
        decoder: { decode: (t) => t.join(' ') },
        training: { mode: 'lora', adapters: ['unused'], rank: 2, alpha: 4, targets: ['q'] },
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
      const rng = new Rng(folder.length * 7919);
      const sequences = [5, 11, 17].map((len) => Array.from({ length: len }, () => Math.floor(rng.next() * V)));
      const scores = await policy.score(
        sequences.map((tokens) => ({ tokens, positions: tokens.slice(1).map((_, i) => i + 1), adapter: null })),
      );
      let lpErr = 0;
      let entErr = 0;
      for (let s = 0; s < sequences.length; s++) {
        const ref = scoreRows(await ortLogits(session, [sequences[s]]), sequences[s], V);
        ref.logprobs.forEach((lp, i) => (lpErr = Math.max(lpErr, Math.abs(lp - scores[s].logprobs[i]))));
        ref.entropy.forEach((h, i) => (entErr = Math.max(entErr, Math.abs(h - scores[s].entropy[i]))));
      }
      expect(lpErr).toBeLessThan(TOL);
      expect(entErr).toBeLessThan(TOL);

      // 3. greedy decoding with the KV cache picks the tokens onnxruntime's full forward picks
      const prompt = sequences[1].slice(0, 6);
      const [gen] = await policy.generate(
        [{ prompt, adapter: null, maxNewTokens: 6, stopStrings: [], stopTokenIds: [] }],
        { temperature: 0, topP: 1, topK: 0, seed: 1 },
      );
      const context = [...prompt];
      for (let step = 0; step < 6; step++) {
        const logits = await ortLogits(session, [context]);
        context.push(argmax(logits.subarray((context.length - 1) * V, context.length * V)));
      }
      expect(gen.tokens).toEqual(context.slice(prompt.length));
      console.log(
        `${folder}: onnx vs f64 golden ${ortErr.toExponential(1)}, engine vs onnx logprob ${lpErr.toExponential(1)}, entropy ${entErr.toExponential(1)}`,
      );
      await session.release();
    });
  }

  for (const folder of goldenFixtures('model_kv.onnx')) {
    it(`${folder}: the KV-cache export (Optimum layout) matches the full forward, with and without left padding`, async () => {
      const dir = join(root, folder);
      const full = await ort.InferenceSession.create(join(dir, 'model.onnx'));
      const cached = await ort.InferenceSession.create(join(dir, 'model_kv.onnx'));
      const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
      const L = config.num_hidden_layers as number;
      const Hkv = config.num_key_value_heads as number;
      const Dh = (config.head_dim as number | undefined) ?? config.hidden_size / config.num_attention_heads;
      const V = config.vocab_size as number;
      const rng = new Rng(3);
      const tokens = Array.from({ length: 9 }, () => Math.floor(rng.next() * V));
      const want = await ortLogits(full, [tokens]);

      /** run model_kv on `ids` after `past` (null: empty), with `pad` masked positions in front */
      async function step(ids: number[], positions: number[], mask: number[], past: ort.Tensor[] | null) {
        const feeds: Record<string, ort.Tensor> = {
          input_ids: int64(ids, [1, ids.length]),
          attention_mask: int64(mask, [1, mask.length]),
          position_ids: int64(positions, [1, positions.length]),
        };
        for (let l = 0; l < L; l++) {
          for (const [i, kind] of ['key', 'value'].entries()) {
            feeds[`past_key_values.${l}.${kind}`] = past
              ? past[2 * l + i]
              : new ort.Tensor('float32', new Float32Array(0), [1, Hkv, 0, Dh]);
          }
        }
        const out = await cached.run(feeds);
        const present = Array.from({ length: L }, (_, l) => [
          out[`present.${l}.key`],
          out[`present.${l}.value`],
        ]).flat();
        return { logits: out.logits.data as Float32Array, present };
      }

      // prefill 6 tokens from an empty cache, then decode 3 tokens one at a time
      let got = await step(tokens.slice(0, 6), [0, 1, 2, 3, 4, 5], [1, 1, 1, 1, 1, 1], null);
      let err = 0;
      for (let i = 0; i < 6 * V; i++) err = Math.max(err, Math.abs(got.logits[i] - want[i]));
      for (let t = 6; t < 9; t++) {
        got = await step(
          [tokens[t]],
          [t],
          Array.from({ length: t + 1 }, () => 1),
          got.present,
        );
        for (let i = 0; i < V; i++) err = Math.max(err, Math.abs(got.logits[i] - want[t * V + i]));
      }
      expect(err).toBeLessThan(TOL);

      // two padding tokens in front, masked out: the real tokens' logits are unchanged
      const padded = await step(
        [0, 0, ...tokens.slice(0, 6)],
        [0, 0, 0, 1, 2, 3, 4, 5],
        [0, 0, 1, 1, 1, 1, 1, 1],
        null,
      );
      let padErr = 0;
      for (let i = 0; i < 6 * V; i++) padErr = Math.max(padErr, Math.abs(padded.logits[2 * V + i] - want[i]));
      expect(padErr).toBeLessThan(TOL);
      await full.release();
      await cached.release();
    });
  }
});
