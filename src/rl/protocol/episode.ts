// An episode (one rollout of one problem) as the protocol records it, and the two views of it that the agents
// see (ReMA code vllm_rollout_spmd._build_chat_list_for_role): each agent keeps its own message list in which it
// is the `assistant` and the other agent speaks as `user`. The meta-thinking agent's list starts with the
// question; the reasoning agent's first user message carries the question and the first plan.

import type { Problem } from '../../data/problem.ts';
import type { ChatMessage } from '../../data/tokenizer.ts';
import type { AgentRole } from '../config.ts';
import type { FinishReason } from '../metrics.ts';
import type { AgentPrompts } from '../prompts/index.ts';

export interface Message {
  role: AgentRole;
  /** the message as the agents see it in history (RA: [FINISH] removed and right-trimmed) */
  text: string;
  /** tokens the policy generated for it */
  generated: number;
  /**
   * The sampled token ids whose decoding is exactly `text` (the generation, or the prefix of it up to a stop string):
   * the agent is trained on these and its later prompts carry them (protocol/encode.ts). Absent when the protocol
   * changed the text (the reasoning agent's [FINISH] removed and trimmed, a dummy, a written plan): then `text` is
   * tokenised.
   */
  ids?: readonly number[];
  /** hit the per-turn token cap */
  truncated: boolean;
  /** ended with a stop token or stop string (its end-of-turn token is trained) */
  endedNormally: boolean;
  /** an empty placeholder (the code's dummy RA message after a truncated MTA message or, with overflowAnswer "empty", an RA chat over the prompt cap); never trained */
  dummy: boolean;
}

export interface Episode {
  problem: Problem;
  /** index of the problem within the step (the GRPO group) */
  group: number;
  /** index of this rollout within its group */
  sample: number;
  /**
   * Single-turn with several reasoning answers per plan (config.metaFollowers): this episode's index among the
   * answers to its plan; 0 is the plan's first episode, the one whose meta row trains. Absent: its own plan.
   */
  follower?: number;
  /** `two-agent`: MTA and RA alternate (m1, y1, m2, y2, ...); `single`: one agent answers once */
  kind: 'two-agent' | 'single';
  messages: Message[];
  /** null while the episode is still running */
  finish: FinishReason | null;
}

/**
 * The episode's final answer: the last real reasoning-agent message (empty when there is none). With
 * `dummyIsEmpty` (config.overflowAnswer "empty", the ReMA code's history[-1]) an episode that ends with a dummy
 * message answers "".
 */
export function finalAnswerText(e: Episode, dummyIsEmpty = false): string {
  if (dummyIsEmpty && e.messages.at(-1)?.dummy) return '';
  for (let i = e.messages.length - 1; i >= 0; i--) {
    const m = e.messages[i];
    if (m.role === 'reasoning' && !m.dummy) return m.text;
  }
  return '';
}

/** A chat message with, for an agent's own message, the token ids it sampled (Message.ids). */
export interface ChatTurn extends ChatMessage {
  ids?: readonly number[];
}

/** `m` as the agent that wrote it sees it: an assistant message carrying its sampled ids. */
const own = (m: Message): ChatTurn => ({ role: 'assistant', content: m.text, ...(m.ids ? { ids: m.ids } : {}) });

/**
 * The chat `role` sees: its system prompt, its first user message, then the dialogue with its own messages as
 * `assistant` (with the ids it sampled). With `forTraining`, trailing messages of the other agent are dropped
 * (nothing after them is trained).
 */
export function chatFor(e: Episode, role: AgentRole, prompts: AgentPrompts, forTraining = false): ChatTurn[] {
  const q = e.problem.question;
  const real = e.messages.filter((m) => !m.dummy);
  if (e.kind === 'single') {
    const chat: ChatTurn[] = [
      { role: 'system', content: prompts.singleSystem },
      { role: 'user', content: prompts.singleUser(q, e.problem) },
    ];
    for (const m of real) chat.push(own(m));
    return chat;
  }
  const chat: ChatTurn[] = [];
  if (role === 'meta') {
    chat.push(
      { role: 'system', content: prompts.metaSystem },
      { role: 'user', content: prompts.metaUser(q, e.problem) },
    );
    for (const m of real) chat.push(m.role === 'meta' ? own(m) : { role: 'user', content: m.text });
  } else {
    chat.push({ role: 'system', content: prompts.reasoningSystem });
    real.forEach((m, i) => {
      if (i === 0) {
        if (m.role !== 'meta') throw new Error('chatFor: a two-agent episode must start with a meta-thinking message');
        chat.push({ role: 'user', content: prompts.reasoningUser(q, m.text, e.problem) });
      } else chat.push(m.role === 'reasoning' ? own(m) : { role: 'user', content: m.text });
    });
  }
  if (forTraining) while (chat.length > 0 && chat[chat.length - 1].role !== 'assistant') chat.pop();
  return chat;
}

/** The messages of `role` in an episode in order (the assistant messages of chatFor), dummies excluded. */
export function messagesOf(e: Episode, role: AgentRole): Message[] {
  return e.messages.filter((m) => !m.dummy && (e.kind === 'single' || m.role === role));
}
