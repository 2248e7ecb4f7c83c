// Regression test for the shipped tiny model (public/models/tiny-rema): it loads through the same paths as any
// Hugging Face model (config.json, F32 model.safetensors with HF names, tokenizer.json + chat template) and,
// decoding greedily with the ReMA multi-turn protocol on the fixed held-out regression sample, reproduces the
// accuracy that scripts/tiny/pretrain.ts recorded in training-log.json.
//
// Sample and tolerance: 48 held-out problems (16 per level; scripts/tiny/regression-sample.ts). pretrain.ts records
// the count on the same backend variant this test uses (WebAssembly, plain SIMD), and greedy decoding there is
// deterministic, so the expected difference is 0 (measured on the earlier, stage-2 weights: the TypeScript CPU
// backend, plain SIMD and relaxed SIMD all got the same 29 of 48 problems right; the current weights record 15 of 48,
// far below that, because their plans misread losses on purpose: see the model card). The test allows 2 of 48 (about 4 points) so that a change of
// summation order (another SIMD build, another V8) that flips a near-tie argmax in one or two episodes is not
// reported as a regression, while a broken loader, template, tokenizer or kernel (which changes many episodes, or
// all of them) is.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../src/cli/fs-source.ts';
import { loadHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import { loadHfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { readSafetensorsHeader } from '../../src/engine/io/safetensors.ts';
import { REGRESSION_SAMPLE } from '../../scripts/tiny/regression-sample.ts';
import { greedyEpisodes, greedyEvalPolicy } from '../../scripts/tiny/rollout.ts';
import { JUDGE_BASELINE_FILE, measureJudgeBaseline, type JudgeBaseline } from '../../scripts/tiny/judge-baseline.ts';

const MODEL_DIR = join(import.meta.dirname, '../../public/models/tiny-rema');
const TOLERANCE = 2;

describe('shipped tiny-rema model', () => {
  it('is a Llama checkpoint with F32 HF-named weights that matches its tokenizer', async () => {
    const source = directoryFileSource(MODEL_DIR);
    const { config, weights } = await loadHfCheckpoint(source);
    const tok = await loadHfTokenizer(source);
    expect(config.architecture).toBe('llama');
    expect(config.vocabSize).toBe(tok.vocabSize);
    expect(config.eosTokenIds).toContain(tok.endOfTurnTokenId);
    const header = readSafetensorsHeader(
      new Uint8Array(readFileSync(join(MODEL_DIR, 'model.safetensors'))),
      'model.safetensors',
    );
    for (const [name, entry] of header.entries) {
      expect(entry.dtype, name).toBe('F32');
      expect(weights.has(name), name).toBe(true);
    }
    expect(header.entries.has('model.layers.0.self_attn.q_proj.weight')).toBe(true);
  });

  it('reproduces its recorded greedy accuracy on the regression sample', async () => {
    const source = directoryFileSource(MODEL_DIR);
    const { config, weights } = await loadHfCheckpoint(source);
    const tok = await loadHfTokenizer(source);
    const record = JSON.parse(readFileSync(join(MODEL_DIR, 'training-log.json'), 'utf8')) as {
      regression: { size: number; correct: number };
    };
    const policy = await greedyEvalPolicy(config, weights, tok);
    const sample = REGRESSION_SAMPLE();
    expect(sample).toHaveLength(record.regression.size);
    const episodes = await greedyEpisodes(policy, tok, sample, 'full', config.maxPositionEmbeddings);
    const correct = episodes.filter((e) => e.correct).length;
    expect(Math.abs(correct - record.regression.correct)).toBeLessThanOrEqual(TOLERANCE);
    // the model knows the protocol: most episodes end with the meta-thinking agent's [FINISH]
    expect(episodes.filter((e) => e.finished).length).toBeGreaterThan(sample.length / 2);
  });

  it("re-measures the card's judge figure under the current prompts (judge-eval.json) on its first items", async () => {
    const recorded = JSON.parse(readFileSync(join(MODEL_DIR, JUDGE_BASELINE_FILE), 'utf8')) as JudgeBaseline;
    expect(recorded.items).toHaveLength(recorded.size);
    expect(recorded.items.filter((i) => i.correct).length).toBe(recorded.accuracy.all.correct);
    const now = await measureJudgeBaseline(MODEL_DIR, 20);
    expect(now.items.map((i) => i.id)).toEqual(recorded.items.slice(0, 20).map((i) => i.id));
    const differ = now.items.filter((item, k) => item.correct !== recorded.items[k].correct).length;
    expect(differ).toBeLessThanOrEqual(1); // a near-tie argmax flipped by another summation order, at most
  });
});
