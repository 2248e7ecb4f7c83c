// The tiny model's tokenizer, as data: special tokens, the pre-tokenizer pattern, the ChatML chat template. The
// builder (scripts/tiny/build-tokenizer.ts) learns BPE merges over the tiny corpus and writes a standard
// tokenizer.json + tokenizer_config.json from this; at run time the files load through data/hf-tokenizer.ts like
// any Hugging Face model's.

/** Added tokens, in id order from 0. Only [FINISH] is not special (it is ordinary text the agents write). */
export const TINY_ADDED_TOKENS: ReadonlyArray<{ content: string; special: boolean }> = [
  { content: '<|endoftext|>', special: true },
  { content: '<|im_start|>', special: true },
  { content: '<|im_end|>', special: true },
  { content: '[FINISH]', special: false },
];
export const TINY_UNK = '<unk>';

/** Printable ASCII and newline: every character a question typed on a keyboard can hold. */
export const TINY_BASE_CHARS: readonly string[] = [
  '\n',
  ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)),
];

/** Total vocabulary: added tokens, <unk>, base characters, then learned merges. */
export const TINY_VOCAB_SIZE = 256;

/**
 * Pre-tokenizer (HF `Split`, behaviour Isolated): each digit alone (arithmetic stays digit by digit), words with an
 * optional leading space, runs of punctuation with an optional leading space, runs of whitespace. BPE merges never
 * cross these pieces, so a message's tokens do not depend on what precedes it in the chat.
 */
export const TINY_PRETOKENIZE_PATTERN = String.raw`\p{N}| ?\p{L}+| ?[^\s\p{L}\p{N}]+|\s+`;

/** Qwen-style ChatML without an implicit default system prompt. */
export const TINY_CHAT_TEMPLATE =
  "{%- for message in messages %}{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}" +
  "{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}";

/** Split text into pre-tokenizer pieces, the way the HF Split pre-tokenizer does with TINY_PRETOKENIZE_PATTERN. */
export function pretokenize(text: string): string[] {
  return text.match(new RegExp(TINY_PRETOKENIZE_PATTERN, 'gu')) ?? [];
}

/** Build tokenizer.json and tokenizer_config.json objects from learned merges. */
export function tinyTokenizerFiles(merges: ReadonlyArray<readonly [string, string]>): {
  tokenizerJson: object;
  tokenizerConfig: object;
} {
  const vocab: Record<string, number> = {};
  const add = (token: string) => {
    if (token in vocab) throw new Error(`tiny tokenizer: duplicate vocabulary entry ${JSON.stringify(token)}`);
    vocab[token] = Object.keys(vocab).length;
  };
  for (const t of TINY_ADDED_TOKENS) add(t.content);
  add(TINY_UNK);
  for (const c of TINY_BASE_CHARS) add(c);
  for (const [a, b] of merges) add(a + b);
  const addedTokens = TINY_ADDED_TOKENS.map((t, id) => ({
    id,
    content: t.content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: t.special,
  }));
  const tokenizerJson = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: addedTokens,
    normalizer: null,
    pre_tokenizer: {
      type: 'Split',
      pattern: { Regex: TINY_PRETOKENIZE_PATTERN },
      behavior: 'Isolated',
      invert: false,
    },
    post_processor: null,
    decoder: { type: 'Fuse' },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: TINY_UNK,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges: merges.map(([a, b]) => [a, b]),
    },
  };
  const tokenizerConfig = {
    add_bos_token: false,
    add_eos_token: false,
    added_tokens_decoder: Object.fromEntries(addedTokens.map((t) => [String(t.id), { ...t, id: undefined }])),
    bos_token: null,
    eos_token: '<|im_end|>',
    pad_token: '<|endoftext|>',
    unk_token: TINY_UNK,
    clean_up_tokenization_spaces: false,
    model_max_length: 256,
    tokenizer_class: 'PreTrainedTokenizerFast',
    chat_template: TINY_CHAT_TEMPLATE,
  };
  return { tokenizerJson, tokenizerConfig };
}
