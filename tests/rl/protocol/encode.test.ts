// Token accounting as the ReMA code: trained positions are each token of a trained assistant message plus the
// end-of-turn token when the message ended normally, grouped by turn; checked on the tiny model's tokenizer.
import { describe, expect, it } from 'vitest';
import { encodeChat } from '../../../src/rl/protocol/encode.ts';
import type { ChatMessage } from '../../../src/data/tokenizer.ts';
import { tinyTokenizer } from '../../helpers/rl/tiny-tokenizer.ts';

const tok = tinyTokenizer();
const chat: ChatMessage[] = [
  { role: 'system', content: 'You plan. End with [FINISH].' },
  { role: 'user', content: 'Ann has 3 apples.' },
  { role: 'assistant', content: 'Add 2.' },
  { role: 'user', content: '3 + 2 = 5' },
  { role: 'assistant', content: 'Confirm the answer. [FINISH]' },
];

describe('encodeChat', () => {
  it('produces the same ids as tokenising the whole rendered chat', () => {
    const enc = encodeChat(tok, chat, [], false);
    expect(enc.tokens).toEqual(tok.encode(tok.applyChatTemplate(chat, { addGenerationPrompt: false })));
    const gen = encodeChat(tok, chat.slice(0, 4), [], true);
    expect(gen.tokens).toEqual(tok.encode(tok.applyChatTemplate(chat.slice(0, 4), { addGenerationPrompt: true })));
    expect(gen.positions).toEqual([]);
  });

  it('trains each message token plus the end-of-turn token of normally ended messages, by turn', () => {
    const enc = encodeChat(
      tok,
      chat,
      [
        { train: true, endedNormally: true },
        { train: true, endedNormally: false },
      ],
      false,
    );
    const first = tok.encode('Add 2.');
    const second = tok.encode('Confirm the answer. [FINISH]');
    expect(enc.positions.length).toBe(first.length + 1 + second.length);
    expect(enc.turns).toEqual([...first.map(() => 0), 0, ...second.map(() => 1)]);
    const at = (t: number) => enc.positions.filter((_, i) => enc.turns[i] === t).map((p) => enc.tokens[p]);
    expect(at(0)).toEqual([...first, tok.endOfTurnTokenId]);
    expect(at(1)).toEqual(second);
    // positions ascend and the token before the first trained one ends the generation prompt "assistant\n"
    expect(enc.positions.toSorted((a, b) => a - b)).toEqual(enc.positions);
    const promptIds = encodeChat(tok, chat.slice(0, 2), [], true).tokens;
    expect(enc.positions[0]).toBe(promptIds.length);
  });

  it('skips untrained messages', () => {
    const enc = encodeChat(
      tok,
      chat,
      [
        { train: false, endedNormally: true },
        { train: true, endedNormally: true },
      ],
      false,
    );
    expect(new Set(enc.turns)).toEqual(new Set([1]));
  });

  it('encodes a problem of a few hundred KB (hundreds of thousands of tokens) without overflowing the stack', () => {
    const problem = 'Ann has 3 apples and buys 12 more. '.repeat(10_000);
    const long: ChatMessage[] = [chat[0], { role: 'user', content: problem }, { role: 'assistant', content: problem }];
    const enc = encodeChat(tok, long, [{ train: true, endedNormally: true }], true);
    expect(enc.tokens.length).toBeGreaterThan(200_000);
    expect(enc.tokens).toEqual(tok.encode(tok.applyChatTemplate(long, { addGenerationPrompt: true })));
    expect(enc.positions.length).toBe(tok.encode(problem).length + 1);
  });
});
