// Builds public/models/tiny-rema/tokenizer.json and tokenizer_config.json: renders a seeded tiny-task corpus
// through the ChatML template, learns BPE merges over it (digits stay single characters), writes standard HF files,
// then reloads them through loadHfTokenizer and checks that every corpus string round-trips.
// Run: npx tsx scripts/tiny/build-tokenizer.ts

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileChatTemplate } from '../../src/data/chat-template.ts';
import { createHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import { supervisedChats } from '../../src/data/tiny-task/corpus.ts';
import {
  pretokenize,
  TINY_ADDED_TOKENS,
  TINY_BASE_CHARS,
  TINY_CHAT_TEMPLATE,
  TINY_VOCAB_SIZE,
  tinyTokenizerFiles,
} from '../../src/data/tiny-task/tokenizer-spec.ts';
import { trainBpeMerges } from './bpe.ts';

export const TINY_MODEL_DIR = join(import.meta.dirname, '../../public/models/tiny-rema');

/** The texts the merges are learned from: multi-turn, single-turn, MRP, VRP and judge chats of the train split. */
export function tokenizerCorpus(): string[] {
  const template = compileChatTemplate(TINY_CHAT_TEMPLATE, {}, 'tiny template');
  const chats = supervisedChats({ split: 'train', seed: 1234, problems: 3000, judgeItems: 600, formatsEvery: 3 });
  return chats.map((c) => template.render(c.messages, { addGenerationPrompt: false }));
}

/** Learn the merges over the corpus and return the two files' contents (deterministic). */
export function buildTinyTokenizer(corpus: readonly string[]): {
  tokenizerJson: object;
  tokenizerConfig: object;
  merges: number;
} {
  const special = new RegExp(TINY_ADDED_TOKENS.map((t) => t.content.replace(/[[\]|]/g, '\\$&')).join('|'), 'g');
  const counts = new Map<string, number>();
  for (const text of corpus) {
    for (const section of text.split(special)) {
      for (const piece of pretokenize(section)) counts.set(piece, (counts.get(piece) ?? 0) + 1);
    }
  }
  const numMerges = TINY_VOCAB_SIZE - TINY_ADDED_TOKENS.length - 1 - TINY_BASE_CHARS.length;
  const merges = trainBpeMerges(counts, numMerges);
  return { ...tinyTokenizerFiles(merges), merges: merges.length };
}

function main(): void {
  const corpus = tokenizerCorpus();
  const { tokenizerJson, tokenizerConfig, merges } = buildTinyTokenizer(corpus);
  const tok = createHfTokenizer(tokenizerJson, tokenizerConfig, { where: 'tiny-rema' });
  let tokens = 0;
  let chars = 0;
  for (const text of corpus) {
    const ids = tok.encode(text);
    if (tok.decode(ids) !== text) throw new Error(`round trip failed for ${JSON.stringify(text)}`);
    tokens += ids.length;
    chars += text.length;
  }
  mkdirSync(TINY_MODEL_DIR, { recursive: true });
  writeFileSync(join(TINY_MODEL_DIR, 'tokenizer.json'), `${JSON.stringify(tokenizerJson, null, 1)}\n`);
  writeFileSync(join(TINY_MODEL_DIR, 'tokenizer_config.json'), `${JSON.stringify(tokenizerConfig, null, 2)}\n`);
  console.log(
    `tiny tokenizer: vocab ${tok.vocabSize} (${merges} merges), corpus ${corpus.length} chats, ` +
      `${(chars / corpus.length).toFixed(0)} chars -> ${(tokens / corpus.length).toFixed(0)} tokens per chat, all round-trip`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) main();
