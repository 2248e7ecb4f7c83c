// Test helper: the embedded tiny model's real tokenizer (public/models/tiny-rema), loaded the way the app and
// the CLI load any Hugging Face tokenizer.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createHfTokenizer } from '../../../src/data/hf-tokenizer.ts';
import type { ChatTokenizer } from '../../../src/data/tokenizer.ts';

export const TINY_MODEL_DIR = resolve(import.meta.dirname, '../../../public/models/tiny-rema');

export function tinyTokenizer(): ChatTokenizer {
  const read = (f: string) => JSON.parse(readFileSync(join(TINY_MODEL_DIR, f), 'utf8')) as object;
  return createHfTokenizer(read('tokenizer.json'), read('tokenizer_config.json'), { where: TINY_MODEL_DIR });
}
