// Chat templates compiled to closures (src/data/chat-template-compile.ts) against @huggingface/jinja's interpreter:
// on random chats, every render of the compiled program either gives up or writes the interpreter's text, and
// compileChatTemplate's render always equals the interpreter's. The shipped ChatML templates render compiled for
// every chat; Qwen2.5's (tools, tool calls) compiles in part.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { compileChatTemplate } from '../../src/data/chat-template.ts';
import { GIVE_UP, compileJinja } from '../../src/data/chat-template-compile.ts';
import type { ChatMessage } from '../../src/data/tokenizer.ts';
import { Rng } from '../../src/util/rng.ts';

const root = resolve(import.meta.dirname, '../..');
const shipped = (dir: string): string =>
  (JSON.parse(readFileSync(resolve(root, dir, 'tokenizer_config.json'), 'utf8')) as { chat_template: string })
    .chat_template;

/** Templates and the share of random chats their compiled program must render itself (1: all). */
const templates: Array<[string, string, number]> = [
  ['tiny-rema', shipped('public/models/tiny-rema'), 1],
  ['tiny-rema-judge', shipped('public/models/tiny-rema-judge'), 1],
  ['SmolLM2 (default system prompt, messages[0])', shipped('tests/fixtures/hf/tiny-smollm2-instruct'), 1],
  ['Qwen2.5 (tools, tool calls)', shipped('tests/fixtures/hf/tiny-qwen2.5-instruct'), 0],
  [
    'if / elif / else, not, !=, loop.last, raw text, a special token, messages[-1], the loop else block',
    `{{ bos_token }}{% for m in messages %}{% if m.role == 'system' %}[S]{{ m.content }}{% elif not (m['role'] != 'user') %}
[U] {{ m.content + '|' }}{% else %}[{{ m.role }}]{% if m.content %}{{ m.content }}{% else %}(empty){% endif %}{% endif %}{% if loop.last %}<end>{% endif %}{% else %}no messages{% endfor %}{% if add_generation_prompt and messages[-1].role != 'assistant' %}[A]{% endif %}`,
    0.5,
  ],
  [
    'left for the interpreter: filters, a boolean written out, none, an undefined name',
    `{% for m in messages %}{{ m.content | trim }}{{ loop.first }}{% endfor %}{{ none }}{{ tools }}`,
    0,
  ],
];

const contents = [
  '',
  'hello',
  ' two  words ',
  'line\nbreak',
  'ünïcödé ∑',
  '{{ not jinja }}',
  '<|im_end|>',
  'a + b = c',
];

function randomChat(rng: Rng): ChatMessage[] {
  const n = Math.floor(rng.next() * 6);
  return Array.from({ length: n }, (_, i) => ({
    role: i === 0 && rng.next() < 0.5 ? 'system' : rng.pick(['user', 'assistant', 'user', 'system'] as const),
    content: contents[Math.floor(rng.next() * contents.length)],
  }));
}

const special = { bos_token: '<s>', eos_token: '</s>' };

describe('compiled chat templates', () => {
  for (const [name, source, compiledShare] of templates) {
    it(`${name}: the interpreter's text, or gives up`, () => {
      const interpreter = new Template(source);
      const compiled = compileJinja(interpreter.parsed);
      const render = compileChatTemplate(source, special, name);
      const rng = new Rng(name.length);
      let rendered = 0;
      const chats = 300;
      for (let c = 0; c < chats; c++) {
        const messages = randomChat(rng);
        for (const addGenerationPrompt of [false, true]) {
          const variables = { ...special, messages, add_generation_prompt: addGenerationPrompt };
          let want: string;
          try {
            want = interpreter.render(variables);
          } catch {
            continue; // e.g. an index into no messages
          }
          try {
            expect(compiled(new Map(Object.entries(variables)))).toBe(want);
            rendered++;
          } catch (err) {
            if (err !== GIVE_UP) throw err;
          }
          expect(render.render(messages, { addGenerationPrompt })).toBe(want);
        }
      }
      if (compiledShare === 1) expect(rendered).toBe(2 * chats);
      else if (compiledShare > 0) expect(rendered).toBeGreaterThan(compiledShare * chats);
      else if (name.startsWith('left')) expect(rendered).toBeLessThan(2 * chats);
    });
  }
});
