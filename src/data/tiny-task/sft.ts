// Supervised fine-tuning examples from chats: the token ids of the rendered chat and the positions whose tokens
// are trained (every assistant message's content plus the end-of-turn token that closes it), found by rendering
// the chat prefix with the model's own template, so the trained tokens are exactly those a rollout would produce.

import type { ChatMessage, ChatTokenizer } from '../tokenizer.ts';

export interface SupervisedExample {
  tokens: number[];
  /** indices t whose token tokens[t] is a target (predicted from tokens[<t]); ascending, all >= 1 */
  targets: number[];
}

export function supervisedExample(tok: ChatTokenizer, messages: readonly ChatMessage[]): SupervisedExample {
  const full = tok.encode(tok.applyChatTemplate(messages, { addGenerationPrompt: false }));
  const targets: number[] = [];
  messages.forEach((m, k) => {
    if (m.role !== 'assistant') return;
    const prompt = tok.encode(tok.applyChatTemplate(messages.slice(0, k), { addGenerationPrompt: true }));
    const content = tok.encode(m.content);
    const end = prompt.length + content.length;
    for (let i = 0; i < prompt.length; i++) {
      if (full[i] !== prompt[i])
        throw new Error(`supervisedExample: message ${k}'s prompt does not tokenize as a prefix of the chat`);
    }
    for (let i = 0; i < content.length; i++) {
      if (full[prompt.length + i] !== content[i])
        throw new Error(`supervisedExample: message ${k}'s content tokenizes differently inside the chat`);
    }
    if (full[end] !== tok.endOfTurnTokenId)
      throw new Error(`supervisedExample: message ${k} is not closed by the end-of-turn token`);
    for (let t = Math.max(1, prompt.length); t <= end; t++) targets.push(t);
  });
  return { tokens: full, targets };
}
