// The ReMA code (encode_conversation) labels the end of a finished response with
// tokenizer.eos_token_id, not with the token the chat template closes the turn with. For an instruct tokenizer
// they are the same; for a base tokenizer such as Qwen2.5-7B's (eos_token <|endoftext|>, template <|im_end|>)
// they differ. Built here from the tiny Qwen2.5 fixture's tokenizer with its eos_token set to <|endoftext|>, as in
// the base model's tokenizer_config.json, and scored on the real engine (random weights, CPU backend).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHfTokenizer } from '../../../src/data/hf-tokenizer.ts';
import type { ChatMessage } from '../../../src/data/tokenizer.ts';
import { encodeChat } from '../../../src/rl/protocol/encode.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { createEnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { validateConfig } from '../../../src/rl/config.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';
import { tinyTokenizer } from '../../helpers/rl/tiny-tokenizer.ts';
import { constantAdamW } from '../../helpers/adamw.ts';

const dir = resolve(import.meta.dirname, '../../fixtures/hf/tiny-qwen2.5-instruct');
const read = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, unknown>;
const instruct = createHfTokenizer(read('tokenizer.json'), read('tokenizer_config.json'), { where: dir });
const base = createHfTokenizer(
  read('tokenizer.json'),
  { ...read('tokenizer_config.json'), eos_token: '<|endoftext|>' },
  { where: dir },
);

const chat: ChatMessage[] = [
  { role: 'system', content: 'Solve it.' },
  { role: 'user', content: 'What is 3 + 2?' },
  { role: 'assistant', content: 'It is 5.' },
];

describe('endTokenTarget', () => {
  it("the base tokenizer's eos differs from the template's closing token; the instruct one's does not", () => {
    expect(base.eosTokenId).not.toBe(base.endOfTurnTokenId);
    expect(instruct.eosTokenId).toBe(instruct.endOfTurnTokenId);
    // the embedded model: eos = <|im_end|>, so tiny presets train the same token either way
    const tiny = tinyTokenizer();
    expect(tiny.eosTokenId).toBe(tiny.endOfTurnTokenId);
  });

  it('"eos" (code default) trains eos_token_id at the end position while the sequence keeps the template\'s token', () => {
    const plain = encodeChat(base, chat, [{ train: true, endedNormally: true }], false);
    const eos = encodeChat(base, chat, [{ train: true, endedNormally: true }], false, base.eosTokenId);
    expect(eos.tokens).toEqual(plain.tokens);
    expect(eos.positions).toEqual(plain.positions);
    const last = eos.positions.length - 1;
    expect(plain.tokens[plain.positions[last]]).toBe(base.endOfTurnTokenId);
    expect(eos.targets).toEqual([...plain.positions.slice(0, last).map((p) => plain.tokens[p]), base.eosTokenId]);
    // a truncated message has no end position, so nothing to swap
    expect(
      encodeChat(base, chat, [{ train: true, endedNormally: false }], false, base.eosTokenId).targets,
    ).toBeUndefined();
    // same ids: no targets array at all
    expect(
      encodeChat(instruct, chat, [{ train: true, endedNormally: true }], false, instruct.eosTokenId).targets,
    ).toBeUndefined();
  });

  it('the engine scores the given target: log p(eos | prefix), as if eos were the next token', async () => {
    const model = tinyConfig({ vocabSize: base.vocabSize, maxPositionEmbeddings: 128 });
    const policy = createEnginePolicy({
      backend: new CpuBackend(),
      config: model,
      weights: randomWeights(model, 3),
      decoder: base,
      training: { mode: 'lora', adapters: ['shared'], rank: 2, alpha: 4, targets: ['q', 'v'] },
      optimizer: constantAdamW(0),
      seed: 0,
    });
    const enc = encodeChat(base, chat, [{ train: true, endedNormally: true }], false, base.eosTokenId);
    const endAt = enc.positions.at(-1)!;
    const swapped = [...enc.tokens];
    swapped[endAt] = base.eosTokenId!;
    const [withTargets, asIfEos, template] = await policy.score([
      { tokens: enc.tokens, positions: enc.positions, targets: enc.targets!, adapter: null },
      { tokens: swapped.slice(0, endAt + 1), positions: enc.positions, adapter: null },
      { tokens: enc.tokens, positions: enc.positions, adapter: null },
    ]);
    expect(Array.from(withTargets.logprobs)).toEqual(Array.from(asIfEos.logprobs));
    expect(withTargets.logprobs.at(-1)).not.toBe(template.logprobs.at(-1));
    expect(Array.from(withTargets.logprobs.slice(0, -1))).toEqual(Array.from(template.logprobs.slice(0, -1)));
    await expect(
      policy.score([{ tokens: enc.tokens, positions: enc.positions, targets: [1], adapter: null }]),
    ).rejects.toThrow(/1 targets for \d+ positions/);
  });

  it('is "eos" in the presets and reads as "template" in configs saved before it', () => {
    expect(getPreset('paper-multiturn-7b').endTokenTarget).toBe('eos');
    const { endTokenTarget: _dropped, ...old } = getPreset('paper-multiturn-7b');
    expect(validateConfig(old, 'old config.json').endTokenTarget).toBe('template');
  });
});
