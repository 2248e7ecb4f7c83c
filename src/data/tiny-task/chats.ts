// Turns a supervised dialogue into the two chats the agents see, exactly as the ReMA code builds them during
// rollouts (rema-paper-and-code §2.3): each agent keeps its own list in which it is the `assistant` and the other
// agent speaks as `user`; the reasoning agent's first user message carries the question and the first plan.

import type { ChatMessage } from '../tokenizer.ts';
import { reasoningFirstUserMessage } from './prompts.ts';
import type { DialogueTurn } from './traces.ts';

/** system, question, then m1, y1, m2, y2, ... with the meta-thinking agent as assistant. */
export function metaChat(system: string, question: string, turns: readonly DialogueTurn[]): ChatMessage[] {
  const chat: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: question },
  ];
  turns.forEach((turn, i) => {
    chat.push({ role: 'assistant', content: turn.meta });
    if (i < turns.length - 1) chat.push({ role: 'user', content: turn.reasoning });
  });
  return chat;
}

/** system, "Question:\n{q}\n\nInstruction:\n{m1}", then y1, m2, y2, ... with the reasoning agent as assistant. */
export function reasoningChat(system: string, question: string, turns: readonly DialogueTurn[]): ChatMessage[] {
  const chat: ChatMessage[] = [{ role: 'system', content: system }];
  turns.forEach((turn, i) => {
    chat.push({ role: 'user', content: i === 0 ? reasoningFirstUserMessage(question, turn.meta) : turn.meta });
    chat.push({ role: 'assistant', content: stripFinish(turn.reasoning) });
  });
  return chat;
}

/** The ReMA code removes [FINISH] from every reasoning-agent output: replace("[FINISH]", "").rstrip(). */
export function stripFinish(text: string): string {
  return text.replaceAll('[FINISH]', '').trimEnd();
}
