// loadHfTokenizer / createHfTokenizer on hand-written HF files: a small BPE tokenizer.json with ChatML special
// tokens, rendered through a Qwen2.5-style and a Llama-3-style Jinja chat template (the real rendering path).

import { describe, expect, it } from 'vitest';
import { createHfTokenizer, loadHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import type { FileSource } from '../../src/util/file-source.ts';

// The Qwen2.5-Instruct chat template (tool branches included), written out here so the test exercises Jinja.
const QWEN25_TEMPLATE = `{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}
    {%- endif %}
    {{- "\\n\\n# Tools\\n\\n<tools>" }}
    {%- for tool in tools %}
        {{- "\\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\\n</tools><|im_end|>\\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}
    {%- else %}
        {{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\\n' + message.content }}
        {%- endif %}
        {{- '<|im_end|>\\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
`;

// Llama-3-style: bos in the template, <|eot_id|> ends turns, raise_exception on a bad role order.
const LLAMA3_TEMPLATE = `{{- bos_token }}
{%- for message in messages %}
    {%- if message.role == 'assistant' and loop.first %}{{ raise_exception('Conversations must start with a user or system message') }}{%- endif %}
    {{- '<|start_header_id|>' + message.role + '<|end_header_id|>\\n\\n' + message.content | trim + '<|eot_id|>' }}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- endif %}`;

const CHARS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 \n.,!?:=+-*/'];

/** A BPE tokenizer.json: single characters, a few merges, and the given special tokens after the base vocab. */
function bpeTokenizerJson(specials: string[]): object {
  const merges = [
    ['h', 'e'],
    ['l', 'l'],
    ['he', 'll'],
    ['hell', 'o'],
    [' ', 'w'],
  ];
  const vocab: Record<string, number> = { '<unk>': 0 };
  for (const c of CHARS) vocab[c] = Object.keys(vocab).length;
  for (const [a, b] of merges) vocab[a + b] = Object.keys(vocab).length;
  const base = Object.keys(vocab).length;
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((content, i) => ({
      id: base + i,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: null,
    post_processor: null,
    decoder: { type: 'Fuse' },
    model: { type: 'BPE', dropout: null, unk_token: '<unk>', fuse_unk: false, byte_fallback: false, vocab, merges },
  };
}

const CHATML_SPECIALS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'];
const qwenConfig = {
  eos_token: '<|im_end|>',
  pad_token: '<|endoftext|>',
  bos_token: null,
  clean_up_tokenization_spaces: false,
  chat_template: QWEN25_TEMPLATE,
};

function memorySource(name: string, files: Record<string, unknown>): FileSource {
  return {
    name,
    async read(path) {
      const value = files[path];
      if (value === undefined) return null;
      return new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
    },
  };
}

describe('createHfTokenizer with a Qwen2.5-style ChatML template', () => {
  const tok = createHfTokenizer(bpeTokenizerJson(CHATML_SPECIALS), qwenConfig, {
    // as Qwen2.5-Instruct's generation_config: [<|im_end|>, <|endoftext|>] (ids follow the base vocab + 5 merges)
    generationConfig: { eos_token_id: [1 + CHARS.length + 5 + 2, 1 + CHARS.length + 5] },
  });
  const id = (piece: string) => tok.encode(piece)[0];

  it('renders ChatML exactly, with the default system prompt when none is given', () => {
    const text = tok.applyChatTemplate([{ role: 'user', content: 'hi there' }], { addGenerationPrompt: true });
    expect(text).toBe(
      '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' +
        '<|im_start|>user\nhi there<|im_end|>\n<|im_start|>assistant\n',
    );
    const multi = tok.applyChatTemplate(
      [
        { role: 'system', content: 'plan' },
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'a' },
      ],
      { addGenerationPrompt: false },
    );
    expect(multi).toBe(
      '<|im_start|>system\nplan<|im_end|>\n<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\na<|im_end|>\n',
    );
  });

  it('encodes special tokens as single ids, applies BPE merges, and round-trips', () => {
    const text = '<|im_start|>user\nhello world<|im_end|>\n';
    const ids = tok.encode(text);
    expect(ids.filter((i) => i === id('<|im_start|>'))).toHaveLength(1);
    expect(tok.encode('hello')).toHaveLength(1); // the merge chain h+e, l+l, he+ll, hell+o
    expect(tok.encode(' world')).toHaveLength(5); // ' w' merged, then o r l d
    expect(tok.decode(ids)).toBe(text);
    expect(tok.decode([])).toBe('');
  });

  it('finds <|im_end|> as the end-of-turn token; stop ids add eos and generation_config ids', () => {
    expect(tok.endOfTurnTokenId).toBe(id('<|im_end|>'));
    expect(tok.stopTokenIds.toSorted()).toEqual([id('<|endoftext|>'), id('<|im_end|>')].toSorted());
    expect(tok.vocabSize).toBe(1 + CHARS.length + 5 + 3);
  });
});

describe('createHfTokenizer with a Llama-3-style template', () => {
  const specials = ['<|begin_of_text|>', '<|start_header_id|>', '<|end_header_id|>', '<|eot_id|>', '<|end_of_text|>'];
  const tok = createHfTokenizer(bpeTokenizerJson(specials), {
    bos_token: '<|begin_of_text|>',
    eos_token: { content: '<|end_of_text|>' },
    chat_template: LLAMA3_TEMPLATE,
  });

  it('renders bos from the config, finds <|eot_id|>, and surfaces raise_exception', () => {
    const text = tok.applyChatTemplate([{ role: 'user', content: ' hi ' }], { addGenerationPrompt: true });
    expect(text).toBe(
      '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>' +
        '<|start_header_id|>assistant<|end_header_id|>\n\n',
    );
    expect(tok.endOfTurnTokenId).toBe(tok.encode('<|eot_id|>')[0]);
    expect(tok.stopTokenIds).toContain(tok.encode('<|end_of_text|>')[0]);
    expect(() => tok.applyChatTemplate([{ role: 'assistant', content: 'x' }], { addGenerationPrompt: false })).toThrow(
      /must start with a user or system message/,
    );
  });
});

describe('loadHfTokenizer errors name the file', () => {
  const json = bpeTokenizerJson(CHATML_SPECIALS);
  it('missing files', async () => {
    await expect(loadHfTokenizer(memorySource('/m/x', { 'tokenizer_config.json': qwenConfig }))).rejects.toThrow(
      '/m/x/tokenizer.json: file not found',
    );
    await expect(loadHfTokenizer(memorySource('/m/x', { 'tokenizer.json': json }))).rejects.toThrow(
      '/m/x/tokenizer_config.json: file not found',
    );
  });
  it('corrupt JSON and a missing chat template', async () => {
    await expect(
      loadHfTokenizer(memorySource('/m/y', { 'tokenizer.json': '{"model": ', 'tokenizer_config.json': qwenConfig })),
    ).rejects.toThrow(/\/m\/y\/tokenizer.json: not valid JSON/);
    const { chat_template: _omit, ...noTemplate } = qwenConfig;
    await expect(
      loadHfTokenizer(memorySource('/m/z', { 'tokenizer.json': json, 'tokenizer_config.json': noTemplate })),
    ).rejects.toThrow(/\/m\/z\/tokenizer_config.json: missing chat_template/);
    await expect(
      loadHfTokenizer(
        memorySource('/m/w', {
          'tokenizer.json': json,
          'tokenizer_config.json': { ...qwenConfig, chat_template: '{% if %}' },
        }),
      ),
    ).rejects.toThrow(/\/m\/w\/tokenizer_config.json: chat_template is not valid Jinja/);
  });
  it('falls back to chat_template.jinja, as newer HF folders store it', async () => {
    const { chat_template: _omit, ...noTemplate } = qwenConfig;
    const tok = await loadHfTokenizer(
      memorySource('/m/j', {
        'tokenizer.json': json,
        'tokenizer_config.json': noTemplate,
        'chat_template.jinja': QWEN25_TEMPLATE,
      }),
    );
    expect(tok.applyChatTemplate([{ role: 'user', content: 'q' }], { addGenerationPrompt: false })).toContain(
      '<|im_start|>user\nq<|im_end|>\n',
    );
  });
});
