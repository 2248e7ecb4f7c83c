// SFT data at sizes a real file reaches: 150k chats (no argument spreading on the way), and a 100 MB message that is
// cut before it is tokenised (its line named), with the same tokens within the cutoff as the whole message gives.
import { describe, expect, it } from 'vitest';
import { sftExamples, sftExamplesOfFiles } from '../../src/rl/sft.ts';
import type { ChatMessage, ChatTokenizer } from '../../src/data/tokenizer.ts';
import { tok } from '../helpers/rl/trainer-setup.ts';

/** A character-level chat tokenizer (one token per character, `|` ends a turn): fast enough for 150k chats. */
const charTok: ChatTokenizer = {
  vocabSize: 65_536,
  encode: (text) => Array.from(text, (c) => c.charCodeAt(0)),
  decode: (ids) => String.fromCharCode(...ids),
  applyChatTemplate: (messages: readonly ChatMessage[], { addGenerationPrompt }) =>
    messages.map((m) => `${m.role[0]}:${m.content}|`).join('') + (addGenerationPrompt ? 'a:' : ''),
  endOfTurnTokenId: '|'.charCodeAt(0),
  stopTokenIds: ['|'.charCodeAt(0)],
};

const chat = (line: number, answer: string) => ({
  line,
  messages: [
    { role: 'user' as const, content: 'What is 2+3?' },
    { role: 'assistant' as const, content: answer },
  ],
});

describe('SFT data sizes', () => {
  it('takes 150k chats from one file', () => {
    const chats = Array.from({ length: 150_000 }, (_, i) => chat(i + 1, `It is ${i % 10}.`));
    const { examples, truncated, notes } = sftExamplesOfFiles(charTok, [{ file: 'big.jsonl', chats }], 64);
    expect(examples).toHaveLength(150_000);
    expect(examples.at(-1)!.line).toBe(150_000);
    expect(truncated).toBe(0);
    expect(notes).toEqual([]);
  });

  it('cuts a 100 MB message before tokenising it, names the line, and keeps the tokens within the cutoff', () => {
    const huge = 'add the digits and carry. '.repeat(4_000_000); // 104 MB
    const t0 = performance.now();
    const made = sftExamplesOfFiles(tok, [{ file: 'huge.jsonl', chats: [chat(1, 'ok'), chat(2, huge)] }], 256);
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(made.examples.map((e) => [e.line, e.truncated, e.tokens.length])).toEqual([
      [1, false, made.examples[0].tokens.length],
      [2, true, 256],
    ]);
    expect(made.notes).toEqual(['huge.jsonl: 1 chats longer than 256 tokens were cut before tokenising (lines 2)']);
    // the same first 256 tokens as a message short enough to tokenise whole
    const whole = sftExamples(tok, [chat(2, huge.slice(0, 6_000))], 256, 'huge.jsonl');
    expect(whole.cut).toEqual([]);
    expect(made.examples[1].tokens).toEqual(whole.examples[0].tokens);
    expect(made.examples[1].targets).toEqual(whole.examples[0].targets);
  }, 60_000);
});
