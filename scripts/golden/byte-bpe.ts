// A small byte-level BPE tokenizer in the exact tokenizer.json / tokenizer_config.json layout that Qwen2.5 and
// SmolLM2 ship, learned over a short corpus, so the test checkpoints under tests/fixtures/hf/ exercise the same
// loading path (added special tokens, ByteLevel pre-tokenizer and decoder, Jinja chat template) as the real models.

/** GPT-2's byte -> printable character map used by every ByteLevel tokenizer (bytes_to_unicode). */
export function bytesToUnicode(): Map<number, string> {
  const printable: number[] = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const map = new Map<number, string>();
  for (const b of printable) map.set(b, String.fromCharCode(b));
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    if (!map.has(b)) map.set(b, String.fromCharCode(256 + extra++));
  }
  // order ids the way GPT-2 / Qwen vocabularies do: the printable bytes first, then the remapped ones
  return new Map(
    [...printable, ...[...Array(256).keys()].filter((b) => !printable.includes(b))].map((b) => [b, map.get(b)!]),
  );
}

/** Qwen2's pre-tokenizer regex (tokenizer.json, Split/Isolated). */
export const QWEN2_SPLIT_REGEX =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
/** The same pieces in JavaScript syntax (no inline flag group), used only to learn merges. */
const LEARNING_SPLIT =
  /'s|'t|'re|'ve|'m|'ll|'d|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

export const TRAINING_CORPUS = `You are a helpful assistant. Think step by step, then give the final answer.
The meta-thinking agent writes a plan; the reasoning agent follows the plan and answers the question.
Question: what is 12 + 7 * 3? First multiply 7 by 3 to get 21, then add 12 to get 33. The answer is 33.
Question: Tom has 5 apples and buys 3 more. How many apples does he have? He has 8 apples.
Let me check the answer again. The answer is correct. Plan: compute the product, then the sum.
user assistant system tool the and of to in is that it for on with as was he she they we you`;

/** Learn `count` merges over the corpus (most frequent pair first, ties broken by the pair's text). */
export function learnMerges(corpus: string, count: number): Array<[string, string]> {
  const byteChar = bytesToUnicode();
  const encoder = new TextEncoder();
  const words = new Map<string, number>();
  for (const piece of corpus.match(LEARNING_SPLIT) ?? []) {
    const mapped = [...encoder.encode(piece)].map((b) => byteChar.get(b)!).join('\u0000');
    words.set(mapped, (words.get(mapped) ?? 0) + 1);
  }
  let segmented = [...words].map(([w, n]) => ({ symbols: w.split('\u0000'), n }));
  const merges: Array<[string, string]> = [];
  while (merges.length < count) {
    const pairs = new Map<string, number>();
    for (const { symbols, n } of segmented) {
      for (let i = 0; i + 1 < symbols.length; i++) {
        const key = `${symbols[i]}\u0000${symbols[i + 1]}`;
        pairs.set(key, (pairs.get(key) ?? 0) + n);
      }
    }
    let best: string | null = null;
    for (const [key, n] of pairs) {
      const bestN = best === null ? -1 : pairs.get(best)!;
      if (n > bestN || (n === bestN && key < best!)) best = key;
    }
    if (best === null) break;
    const [a, b] = best.split('\u0000') as [string, string];
    merges.push([a, b]);
    segmented = segmented.map(({ symbols, n }) => {
      const out: string[] = [];
      for (let i = 0; i < symbols.length; i++) {
        if (i + 1 < symbols.length && symbols[i] === a && symbols[i + 1] === b) {
          out.push(a + b);
          i++;
        } else out.push(symbols[i]);
      }
      return { symbols: out, n };
    });
  }
  return merges;
}

export type TokenizerStyle = 'qwen2' | 'smollm2';

export interface TokenizerFiles {
  tokenizerJson: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
  /** ids of the special tokens */
  ids: { endoftext: number; imStart: number; imEnd: number };
  /** number of ids used (config.json's vocab_size must be at least this) */
  size: number;
}

const SPECIALS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'] as const;

/** tokenizer.json + tokenizer_config.json in the layout of Qwen2.5-Instruct or SmolLM2-Instruct. */
export function buildTokenizer(style: TokenizerStyle, chatTemplate: string, mergeCount = 64): TokenizerFiles {
  const merges = learnMerges(TRAINING_CORPUS, mergeCount);
  const vocab: Record<string, number> = {};
  let next = style === 'smollm2' ? SPECIALS.length : 0; // SmolLM2 puts its special tokens at ids 0..2
  // and, as its tokenizer.json, in the model's vocabulary too (Hugging Face tokenizers otherwise numbers an added
  // token absent from the vocabulary after it, onto an id the vocabulary already uses)
  if (style === 'smollm2') SPECIALS.forEach((s, i) => (vocab[s] = i));
  for (const ch of bytesToUnicode().values()) vocab[ch] = next++;
  for (const [a, b] of merges) vocab[a + b] = next++;
  const specialIds = SPECIALS.map((_, i) => (style === 'smollm2' ? i : next + i));
  const size = style === 'smollm2' ? next : next + SPECIALS.length;
  const addedTokens = SPECIALS.map((content, i) => ({
    id: specialIds[i],
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  }));
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: style === 'smollm2' };
  const tokenizerJson = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: addedTokens,
    normalizer: style === 'qwen2' ? { type: 'NFC' } : null,
    pre_tokenizer:
      style === 'qwen2'
        ? {
            type: 'Sequence',
            pretokenizers: [
              { type: 'Split', pattern: { Regex: QWEN2_SPLIT_REGEX }, behavior: 'Isolated', invert: false },
              byteLevel,
            ],
          }
        : { type: 'Sequence', pretokenizers: [{ type: 'Digits', individual_digits: true }, byteLevel] },
    post_processor: { ...byteLevel, trim_offsets: false },
    decoder: { ...byteLevel, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: style === 'qwen2' ? '' : null,
      end_of_word_suffix: style === 'qwen2' ? '' : null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges: merges.map(([a, b]) => [a, b]),
    },
  };
  const addedTokensDecoder = Object.fromEntries(
    addedTokens.map(({ id, ...t }) => [
      String(id),
      { content: t.content, lstrip: false, normalized: false, rstrip: false, single_word: false, special: true },
    ]),
  );
  const tokenizerConfig =
    style === 'qwen2'
      ? {
          add_bos_token: false,
          add_prefix_space: false,
          added_tokens_decoder: addedTokensDecoder,
          additional_special_tokens: ['<|im_start|>', '<|im_end|>'],
          bos_token: null,
          chat_template: chatTemplate,
          clean_up_tokenization_spaces: false,
          eos_token: '<|im_end|>',
          errors: 'replace',
          model_max_length: 131072,
          pad_token: '<|endoftext|>',
          split_special_tokens: false,
          tokenizer_class: 'Qwen2Tokenizer',
          unk_token: null,
        }
      : {
          add_prefix_space: false,
          added_tokens_decoder: addedTokensDecoder,
          additional_special_tokens: ['<|im_start|>', '<|im_end|>'],
          bos_token: '<|im_start|>',
          chat_template: chatTemplate,
          clean_up_tokenization_spaces: false,
          eos_token: '<|im_end|>',
          model_max_length: 8192,
          pad_token: '<|im_end|>',
          tokenizer_class: 'GPT2Tokenizer',
          unk_token: '<|endoftext|>',
          vocab_size: size,
        };
  return {
    tokenizerJson,
    tokenizerConfig,
    ids: { endoftext: specialIds[0], imStart: specialIds[1], imEnd: specialIds[2] },
    size,
  };
}
