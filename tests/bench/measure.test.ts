// The benchmark's timing helpers (bench/browser/measure.ts) must make both runtimes do the same work, or the
// ratios in bench/results mean nothing: on every golden model, greedy generation through onnxruntime's KV-cache
// export and through our engine's decodeBatch yields the same tokens for a batch of distinct prompts; the forward
// helpers run; and measureSpeeds turns timings into positive tokens/s for B = 1 and B = G.
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import {
  benchTokens,
  engineForward,
  engineGeneration,
  measureSpeeds,
  ortForward,
  ortGeneration,
  speedRatios,
} from '../../bench/browser/measure.ts';
import { directoryFileSource } from '../../src/cli/fs-source.ts';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { loadHfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { uploadParams } from '../../src/engine/model/params.ts';
import { GOLDEN_FIXTURES_MIN, GOLDEN_ROOT as root, goldenFixtures } from '../helpers/golden-fixtures.ts';

const folders = goldenFixtures('model_kv.onnx');
const tensor = (type: 'int64' | 'float32', data: BigInt64Array | Float32Array, dims: number[]) =>
  new ort.Tensor(type, data, dims);

describe('bench/browser/measure.ts', () => {
  it('finds the golden models', () => expect(folders.length).toBeGreaterThanOrEqual(GOLDEN_FIXTURES_MIN));

  for (const folder of folders) {
    it(`${folder}: onnxruntime and the engine generate the same greedy tokens through the bench helpers`, async () => {
      const dir = join(root, folder);
      const { config: cfg, weights } = await loadHfCheckpoint(directoryFileSource(dir));
      const session = await ort.InferenceSession.create(join(dir, 'model_kv.onnx'));
      const be = await WasmBackend.create();
      const w = { params: uploadParams(be, cfg, weights), lora: null };
      const prompts = [0, 1, 2].map((s) => benchTokens(5, s, cfg.vocabSize));
      expect(new Set(prompts.map((p) => p.join())).size).toBe(3); // distinct prompts
      const fromOrt = await ortGeneration(session, tensor, cfg, prompts, 6);
      const fromEngine = await engineGeneration(be, cfg, w, prompts, 6);
      expect(fromOrt.tokens.map((t) => t.length)).toEqual([6, 6, 6]);
      expect(fromEngine.tokens).toEqual(fromOrt.tokens);
      for (const t of [fromOrt, fromEngine]) expect(t.prefillSeconds > 0 && t.decodeSeconds > 0).toBe(true);
      be.destroy();
      await session.release();
    });
  }

  it('measureSpeeds reports tokens/s of forward, prefill and decode at B = 1 and B = G, and ratios', async () => {
    const dir = join(root, folders[0]);
    const { config: cfg, weights } = await loadHfCheckpoint(directoryFileSource(dir));
    const full = await ort.InferenceSession.create(join(dir, 'model.onnx'));
    const cached = await ort.InferenceSession.create(join(dir, 'model_kv.onnx'));
    const be = await WasmBackend.create();
    const w = { params: uploadParams(be, cfg, weights), lora: null };
    const plan = { forwardB: 2, forwardT: 8, promptLength: 4, maxNew: 3, G: 4, repeats: 1 };
    const ortSpeeds = await measureSpeeds(
      'ort',
      {
        forward: (seqs) => ortForward(full, tensor, seqs),
        generate: (p, n) => ortGeneration(cached, tensor, cfg, p, n),
      },
      cfg.vocabSize,
      plan,
    );
    const ours = await measureSpeeds(
      'engine',
      {
        forward: (seqs) => engineForward(be, cfg, w, seqs),
        generate: (p, n) => engineGeneration(be, cfg, w, p, n),
      },
      cfg.vocabSize,
      plan,
    );
    for (const s of [ortSpeeds, ours]) {
      for (const k of [
        'forward_tok_s',
        'prefill_tok_s_B1',
        'prefill_tok_s_G',
        'decode_tok_s_G1',
        'decode_tok_s_G',
      ] as const) {
        expect(Number.isFinite(s[k]) && s[k] > 0, `${s.runtime} ${k} = ${s[k]}`).toBe(true);
      }
    }
    const ratios = speedRatios(ours, ortSpeeds);
    expect(ratios.decode_tok_s_G).toBeCloseTo(ours.decode_tok_s_G / ortSpeeds.decode_tok_s_G, 2);
    be.destroy();
    await full.release();
    await cached.release();
  });
});
