// Independent check through transformers.js (@huggingface/transformers on onnxruntime-node): its generate() on a
// Hugging Face ONNX folder (config.json, generation_config.json, onnx/model.onnx in Optimum's KV-cache layout) must
// give the same greedy tokens as our engine on the same weights (model.safetensors), through the benchmark's
// helpers (bench/browser/measure.ts), so the transformers.js rows of the benchmark time the same work.
//   - every golden model: its model_kv.onnx arranged as such a folder in a temp dir, a batch of 3 distinct prompts
//   - the shipped tiny-rema model (public/models/tiny-rema/onnx/model.onnx, scripts/onnx/export_hf_onnx.py): real
//     chat-templated ReMA prompts, tokenized by transformers.js's AutoTokenizer and by our loadHfTokenizer (same
//     ids), then greedy generation up to the end of the turn.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AutoModelForCausalLM, AutoTokenizer, env, Tensor } from '@huggingface/transformers';
import { afterAll, describe, expect, it } from 'vitest';
import {
  benchTokens,
  engineGeneration,
  transformersForward,
  transformersGeneration,
  type TransformersTensorClass,
} from '../../bench/browser/measure.ts';
import { hfOnnxLayout } from '../../bench/browser/models.ts';
import { directoryFileSource } from '../../src/cli/fs-source.ts';
import { loadHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import { metaChat, reasoningChat } from '../../src/data/tiny-task/chats.ts';
import { tinyArithProblems } from '../../src/data/tiny-task/dataset.ts';
import { TINY_META_SYSTEM, TINY_REASONING_SYSTEM } from '../../src/data/tiny-task/prompts.ts';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { loadHfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { uploadParams } from '../../src/engine/model/params.ts';
import { GOLDEN_FIXTURES_MIN, GOLDEN_ROOT as goldenRoot, goldenFixtures } from '../helpers/golden-fixtures.ts';

const golden = goldenFixtures('model_kv.onnx');
const tinyDir = resolve(import.meta.dirname, '../../public/models/tiny-rema');
const TensorClass = Tensor as unknown as TransformersTensorClass;
const temp = mkdtempSync(join(tmpdir(), 'rema-transformers-js-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

env.allowRemoteModels = false;
env.allowLocalModels = true;

/** transformers.js's causal LM from `<root>/<name>/` on onnxruntime-node's CPU EP, float32. */
async function loadTransformers(root: string, name: string) {
  env.localModelPath = root.endsWith('/') ? root : `${root}/`;
  return AutoModelForCausalLM.from_pretrained(name, { device: 'cpu', dtype: 'fp32' });
}

async function loadEngine(dir: string) {
  const { config: cfg, weights } = await loadHfCheckpoint(directoryFileSource(dir));
  const be = await WasmBackend.create();
  return { cfg, be, w: { params: uploadParams(be, cfg, weights), lora: null } };
}

/** The tokens up to and including the first stop token. */
function untilStop(tokens: number[], stops: readonly number[]): number[] {
  const end = tokens.findIndex((t) => stops.includes(t));
  return end < 0 ? tokens : tokens.slice(0, end + 1);
}

describe('transformers.js (onnxruntime-node) vs our engine, greedy', () => {
  it('finds the golden models', () => expect(golden.length).toBeGreaterThanOrEqual(GOLDEN_FIXTURES_MIN));

  for (const name of golden) {
    it(`${name}: the same greedy tokens for a batch of 3 distinct prompts, from its HF ONNX folder`, async () => {
      const dir = join(temp, name);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
      copyFileSync(join(goldenRoot, name, 'config.json'), join(dir, 'config.json'));
      symlinkSync(join(goldenRoot, name, 'model_kv.onnx'), join(dir, 'model_kv.onnx'));
      hfOnnxLayout(dir);
      const model = await loadTransformers(temp, name);
      const { cfg, be, w } = await loadEngine(join(goldenRoot, name));
      try {
        const prompts = [0, 1, 2].map((s) => benchTokens(5, s, cfg.vocabSize));
        const theirs = await transformersGeneration(model, TensorClass, prompts, 6);
        const ours = await engineGeneration(be, cfg, w, prompts, 6);
        expect(theirs.tokens.map((t) => t.length)).toEqual([6, 6, 6]);
        expect(ours.tokens).toEqual(theirs.tokens);
        expect(theirs.prefillSeconds > 0 && theirs.decodeSeconds > 0).toBe(true);
        expect(await transformersForward(model, TensorClass, prompts)).toBeGreaterThan(0);
      } finally {
        be.destroy();
        await model.dispose();
      }
    });
  }

  it('tiny-rema: chat-templated ReMA prompts get the same ids from both tokenizers and the same greedy turn', async () => {
    const ours = await loadHfTokenizer(directoryFileSource(tinyDir));
    env.localModelPath = resolve(tinyDir, '..') + '/';
    const theirs = await AutoTokenizer.from_pretrained('tiny-rema');
    const model = await loadTransformers(resolve(tinyDir, '..'), 'tiny-rema');
    const { cfg, be, w } = await loadEngine(tinyDir);
    try {
      const problems = tinyArithProblems({ split: 'heldout', count: 2, seed: 3 });
      const chats = problems.flatMap((p) => [
        metaChat(TINY_META_SYSTEM, p.question, []),
        reasoningChat(TINY_REASONING_SYSTEM, p.question, [
          { meta: 'Add the numbers in order. [FINISH]', reasoning: '' },
        ]).slice(0, 2),
      ]);
      let turnsEnded = 0;
      for (const chat of chats) {
        const ourText = ours.applyChatTemplate(chat, { addGenerationPrompt: true });
        const theirText = theirs.apply_chat_template(chat, { tokenize: false, add_generation_prompt: true }) as string;
        expect(theirText).toBe(ourText);
        const ids = ours.encode(ourText);
        expect(theirs.encode(theirText, { add_special_tokens: false })).toEqual(ids);
        const maxNew = 48;
        const a = untilStop((await engineGeneration(be, cfg, w, [ids], maxNew)).tokens[0], ours.stopTokenIds);
        const b = untilStop(
          (await transformersGeneration(model, TensorClass, [ids], maxNew)).tokens[0],
          ours.stopTokenIds,
        );
        expect(b, `${JSON.stringify(ourText)} -> ${JSON.stringify(ours.decode(a))}`).toEqual(a);
        expect(a.length).toBeGreaterThan(4);
        if (ours.stopTokenIds.includes(a.at(-1)!)) turnsEnded++;
      }
      expect(turnsEnded).toBeGreaterThan(0); // the trained model ends its turns: the comparison covers real text
    } finally {
      be.destroy();
      await model.dispose();
    }
  });
});
