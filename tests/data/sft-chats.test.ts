// Chat JSONL for SFT: both layouts read into the same messages, bad lines named by file, line and field, and the
// paper's 804 dialogues (public/data/sft, LLaMA-Factory alpaca layout with history) read whole.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSftChats } from '../../src/data/sft-chats.ts';

const shipped = resolve(import.meta.dirname, '../../public/data/sft');
/** Parsing a file whose second line is `line`. */
const bad = (line: string) => () => parseSftChats(`{"instruction":"q","output":"a"}\n${line}`, 'd/sft.jsonl');

describe('parseSftChats', () => {
  it('reads the OpenAI messages layout and the alpaca layout with history into the same chat', () => {
    const openai = JSON.stringify({
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: 'a1' },
        { role: 'user', content: 'q2\nextra' },
        { role: 'assistant', content: 'a2' },
      ],
    });
    const alpaca = JSON.stringify({
      system: 'S',
      history: [['q1', 'a1']],
      instruction: 'q2',
      input: 'extra',
      output: 'a2',
    });
    const [a, b] = parseSftChats(`${openai}\n\n${alpaca}\n`, 'chats.jsonl');
    expect(a.messages).toEqual(b.messages);
    expect([a.line, b.line]).toEqual([1, 3]);
    const bare = parseSftChats(JSON.stringify({ instruction: 'q', input: null, output: 'a' }), 'f.jsonl')[0];
    expect(bare.messages).toEqual([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a' },
    ]);
  });

  it('names the file, line and field of a bad chat', () => {
    expect(bad('{"messages":[{"role":"bot","content":"x"}]}')).toThrow(
      'd/sft.jsonl:2: messages[0].role must be "system", "user" or "assistant", got "bot"',
    );
    expect(bad('{"messages":[{"role":"user","content":3}]}')).toThrow(
      'd/sft.jsonl:2: messages[0].content must be a string, got 3',
    );
    expect(bad('{"messages":[{"role":"user","content":"q"}]}')).toThrow(
      'd/sft.jsonl:2: no assistant message to train on',
    );
    expect(bad('{"messages":[{"role":"assistant","content":"a"}]}')).toThrow(
      'd/sft.jsonl:2: the first assistant message has no user message before it',
    );
    expect(bad('{"instruction":"q","output":"a","history":[["u"]]}')).toThrow(
      'd/sft.jsonl:2: history[0] must be a [user, assistant] pair of strings',
    );
    expect(bad('{"instruction":"q","output":7}')).toThrow('d/sft.jsonl:2: "output" must be a string, got 7');
    expect(bad('{"text":"q"}')).toThrow(
      'd/sft.jsonl:2: expected "messages" (OpenAI layout) or "instruction" and "output" (alpaca layout)',
    );
    expect(bad('{oops')).toThrow(/d\/sft\.jsonl:2: not valid JSON/);
    expect(() => parseSftChats('\n', 'e.jsonl')).toThrow('e.jsonl: no chats (the file is empty)');
  });

  it("reads the paper SFT dialogues from both agents' sides", () => {
    const meta = parseSftChats(readFileSync(resolve(shipped, 'meta_thinking.jsonl'), 'utf8'), 'meta_thinking.jsonl');
    const reasoning = parseSftChats(readFileSync(resolve(shipped, 'reasoning.jsonl'), 'utf8'), 'reasoning.jsonl');
    expect([meta.length, reasoning.length]).toEqual([804, 804]);
    for (const chat of [...meta, ...reasoning]) {
      expect(chat.messages[0].role).toBe('system');
      // system, then strictly alternating user / assistant, ending with the assistant
      chat.messages.slice(1).forEach((m, i) => expect(m.role).toBe(i % 2 === 0 ? 'user' : 'assistant'));
      expect(chat.messages.at(-1)!.role).toBe('assistant');
    }
    expect(reasoning.every((c) => c.messages.at(-1)!.content.trimEnd().endsWith('[FINISH]'))).toBe(true);
    expect(reasoning[0].messages[1].content).toMatch(/^Question:\n[\s\S]+\n\nInstruction:\n/);
  });
});
