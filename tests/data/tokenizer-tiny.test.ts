// The shipped tiny tokenizer (public/models/tiny-rema): loads through the same path as real HF models, renders
// exactly the expected ChatML, round-trips every corpus string, keeps digits as single tokens, and is what the
// builder produces today (so the task's texts and the shipped tokenizer cannot drift apart).

import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../src/cli/fs-source.ts';
import { loadHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import { supervisedChats } from '../../src/data/tiny-task/corpus.ts';
import { supervisedExample } from '../../src/data/tiny-task/sft.ts';
import type { ChatTokenizer } from '../../src/data/tokenizer.ts';
import { buildTinyTokenizer, tokenizerCorpus } from '../../scripts/tiny/build-tokenizer.ts';

const MODEL_DIR = join(import.meta.dirname, '../../public/models/tiny-rema');
let tok: ChatTokenizer;
/** the builder's corpus (3000 problems and 600 judge items of the train split, every format, as rendered chats) */
let corpus: string[];
beforeAll(async () => {
  tok = await loadHfTokenizer(directoryFileSource(MODEL_DIR));
  corpus = tokenizerCorpus();
});

describe('tiny tokenizer', () => {
  it('has the ChatML special tokens; <|im_end|> ends a turn and stops generation', () => {
    expect(tok.vocabSize).toBe(256);
    const [imStart, imEnd, eot, finish] = ['<|im_start|>', '<|im_end|>', '<|endoftext|>', '[FINISH]'].map((t) =>
      tok.encode(t),
    );
    for (const ids of [imStart, imEnd, eot, finish]) expect(ids).toHaveLength(1);
    expect(tok.endOfTurnTokenId).toBe(imEnd[0]);
    expect(tok.stopTokenIds).toContain(imEnd[0]);
  });

  it('renders exactly the expected ChatML (no implicit system prompt)', () => {
    const messages = [
      { role: 'system' as const, content: 'You plan.' },
      { role: 'user' as const, content: 'Ann has 3 figs.' },
      { role: 'assistant' as const, content: 'Add 2.' },
    ];
    expect(tok.applyChatTemplate(messages, { addGenerationPrompt: false })).toBe(
      '<|im_start|>system\nYou plan.<|im_end|>\n<|im_start|>user\nAnn has 3 figs.<|im_end|>\n' +
        '<|im_start|>assistant\nAdd 2.<|im_end|>\n',
    );
    expect(tok.applyChatTemplate(messages.slice(0, 2), { addGenerationPrompt: true })).toBe(
      '<|im_start|>system\nYou plan.<|im_end|>\n<|im_start|>user\nAnn has 3 figs.<|im_end|>\n<|im_start|>assistant\n',
    );
  });

  it('keeps every digit a token of its own and merges words', () => {
    const ids = tok.encode('12+305=317.');
    expect(ids.map((i) => tok.decode([i]))).toEqual(['1', '2', '+', '3', '0', '5', '=', '3', '1', '7', '.']);
    expect(tok.encode(' Subtract').length).toBeLessThanOrEqual(2);
  });

  it('round-trips every corpus string (train and held-out chats of every format, judge included)', () => {
    const heldout = supervisedChats({ split: 'heldout', seed: 9, problems: 300, judgeItems: 60, formatsEvery: 2 });
    const texts = [...corpus, ...heldout.map((c) => tok.applyChatTemplate(c.messages, { addGenerationPrompt: false }))];
    let failures = 0;
    for (const text of texts) if (tok.decode(tok.encode(text)) !== text) failures++;
    expect(failures).toBe(0);
    expect(texts.length).toBeGreaterThan(11_000);
    // characters outside the task still round-trip when printable ASCII
    const typed = 'Q: (7 % 3) ^ 2 ~ `x` | {a} & "b" #9 @home $5 <tag> _ ;';
    expect(tok.decode(tok.encode(typed))).toBe(typed);
  });

  it('supervised targets are exactly the assistant messages and their end-of-turn tokens', () => {
    for (const chat of supervisedChats({ split: 'train', seed: 2, problems: 20, judgeItems: 5, formatsEvery: 1 })) {
      const ex = supervisedExample(tok, chat.messages);
      const expected = chat.messages
        .filter((m) => m.role === 'assistant')
        .map((m) => `${m.content}<|im_end|>`)
        .join('');
      expect(tok.decode(ex.targets.map((t) => ex.tokens[t]))).toBe(expected);
    }
  });

  it('is what the builder produces from the current task texts', () => {
    const built = buildTinyTokenizer(corpus);
    const shipped = JSON.parse(readFileSync(join(MODEL_DIR, 'tokenizer.json'), 'utf8'));
    expect(built.tokenizerJson).toEqual(shipped);
    expect(built.tokenizerConfig).toEqual(JSON.parse(readFileSync(join(MODEL_DIR, 'tokenizer_config.json'), 'utf8')));
  });
});
