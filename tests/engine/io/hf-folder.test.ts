// The committed HF-layout checkpoints (scripts/golden/make-hf-fixtures.ts) load end to end like the real models
// they imitate: sharded bf16 (Qwen2.5-Instruct layout) and single-file f16 (SmolLM2-Instruct layout) weights,
// tokenizer.json + tokenizer_config.json with the real chat templates, the end-of-turn token, and the engine
// generating from a rendered chat until that token.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../../src/cli/fs-source.ts';
import { loadHfTokenizer } from '../../../src/data/hf-tokenizer.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { createEnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import { loadHfCheckpoint } from '../../../src/engine/io/hf-model.ts';
import { constantAdamW } from '../../helpers/adamw.ts';

const root = resolve(import.meta.dirname, '../../fixtures/hf');
const qwenDir = join(root, 'tiny-qwen2.5-instruct');
const smolDir = join(root, 'tiny-smollm2-instruct');

describe('HF-layout fixtures', () => {
  it('Qwen2.5 layout: sharded bf16 with index, tied, biases, the real ChatML template with its default system prompt', async () => {
    const source = directoryFileSource(qwenDir);
    const ckpt = await loadHfCheckpoint(source);
    const index = JSON.parse(readFileSync(join(qwenDir, 'model.safetensors.index.json'), 'utf8'));
    expect(new Set(Object.values(index.weight_map)).size).toBe(3);
    expect(ckpt.storedDtypes).toEqual(new Set(['BF16']));
    expect(ckpt.config).toMatchObject({ architecture: 'qwen2', attentionBias: true, tieWordEmbeddings: true });
    // every bf16 value has a zero low half when widened to f32
    const bits = new Uint32Array(ckpt.weights.get('model.layers.1.mlp.up_proj.weight')!.data.buffer);
    expect(bits.every((b) => (b & 0xffff) === 0)).toBe(true);

    const tok = await loadHfTokenizer(source);
    const chat = [{ role: 'user' as const, content: 'What is 12 + 7?' }];
    expect(tok.applyChatTemplate(chat, { addGenerationPrompt: true })).toBe(
      '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' +
        '<|im_start|>user\nWhat is 12 + 7?<|im_end|>\n<|im_start|>assistant\n',
    );
    const withSystem = [
      { role: 'system' as const, content: 'Plan first.' },
      ...chat,
      { role: 'assistant' as const, content: '19' },
    ];
    expect(tok.applyChatTemplate(withSystem, { addGenerationPrompt: false })).toBe(
      '<|im_start|>system\nPlan first.<|im_end|>\n<|im_start|>user\nWhat is 12 + 7?<|im_end|>\n<|im_start|>assistant\n19<|im_end|>\n',
    );
    const vocab = JSON.parse(readFileSync(join(qwenDir, 'tokenizer.json'), 'utf8')).added_tokens as Array<{
      id: number;
      content: string;
    }>;
    const imEnd = vocab.find((t) => t.content === '<|im_end|>')!.id;
    expect(tok.endOfTurnTokenId).toBe(imEnd);
    expect(ckpt.config.eosTokenIds).toEqual([imEnd]);
    expect(tok.vocabSize).toBeLessThanOrEqual(ckpt.config.vocabSize);
    const text = 'Tom has 5 apples, then buys 3 more.\nThe answer is 8.';
    expect(tok.decode(tok.encode(text))).toBe(text);
    expect(tok.encode('<|im_start|>user')[0]).toBe(vocab.find((t) => t.content === '<|im_start|>')!.id);
  });

  it('SmolLM2 layout: llama, tied, f16 in one file, special tokens at ids 0-2, its own template', async () => {
    const source = directoryFileSource(smolDir);
    const ckpt = await loadHfCheckpoint(source);
    expect(ckpt.storedDtypes).toEqual(new Set(['F16']));
    expect(ckpt.config).toMatchObject({
      architecture: 'llama',
      attentionBias: false,
      tieWordEmbeddings: true,
      numKvHeads: 1,
      headDim: 16,
      bosTokenId: 1,
      eosTokenIds: [2],
    });
    const tok = await loadHfTokenizer(source);
    expect(tok.applyChatTemplate([{ role: 'user', content: 'hi' }], { addGenerationPrompt: true })).toBe(
      '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n',
    );
    expect(tok.endOfTurnTokenId).toBe(2);
    expect(tok.encode('12')).toHaveLength(2); // SmolLM2 splits digits
  });

  it('the engine scores and generates a chat from the loaded folder, stopping at the end-of-turn token', async () => {
    const source = directoryFileSource(qwenDir);
    const { config, weights } = await loadHfCheckpoint(source);
    const tok = await loadHfTokenizer(source);
    const policy = createEnginePolicy({
      backend: new CpuBackend(),
      config,
      weights,
      decoder: tok,
      training: { mode: 'lora', adapters: ['meta', 'reasoning'], rank: 2, alpha: 4, targets: ['q', 'v'] },
      optimizer: constantAdamW(1e-3),
      seed: 3,
    });
    const prompt = tok.encode(
      tok.applyChatTemplate([{ role: 'user', content: 'What is 2 + 2?' }], { addGenerationPrompt: true }),
    );
    const [gen] = await policy.generate(
      [{ prompt, adapter: 'meta', maxNewTokens: 12, stopStrings: [], stopTokenIds: tok.stopTokenIds }],
      { temperature: 1, topP: 1, topK: 0, seed: 9 },
    );
    expect(gen.tokens.length).toBeGreaterThan(0);
    expect(gen.tokens.every((t) => !tok.stopTokenIds.includes(t))).toBe(true);
    expect(gen.finish === 'length' ? gen.tokens.length === 12 : gen.finish === 'stop_token').toBe(true);
    const [scored] = await policy.score([
      { tokens: [...prompt, ...gen.tokens], positions: gen.tokens.map((_, i) => prompt.length + i), adapter: 'meta' },
    ]);
    scored.logprobs.forEach((lp, i) => expect(lp).toBeCloseTo(gen.logprobs[i], 4));
  });
});
