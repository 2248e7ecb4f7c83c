// Turns one agent's chat into token ids the way the ReMA code's encode_conversation does: the chat is rendered
// with the model's template and tokenised piece by piece (template text between messages, then each assistant
// message's content), so that the position of every assistant token is known exactly. Trained positions are
// each token of a trained assistant message plus, when that message ended normally (a stop token or stop
// string, not the length cap), the end-of-turn token that closes it; all positions of message k carry turn id k.
// An assistant message that carries the ids its agent sampled (ChatTurn.ids, decoding exactly to its content) is
// encoded as those ids, as TRL and verl train the sampled ids; one without is tokenised from its text (the ReMA
// code's re-tokenisation). The template's tokens around it are the template's. The same encoding gives the
// generation prompt (addGenerationPrompt), so what the model was sampled from and what it is trained on are the
// same tokens.
// With an `endToken` (config.endTokenTarget "eos": the ReMA code labels the end of a finished response with
// tokenizer.eos_token_id) that position is trained on that token while the sequence keeps the template's text.
// Any length encodes; a prompt over the config's maxPromptTokens is then not generated from (the rollout marks the
// episode as an overflow, ./rollout.ts).

import type { ChatMessage, ChatTokenizer } from '../../data/tokenizer.ts';
import type { ChatTurn } from './episode.ts';

/** Per assistant message: train it? did it end normally (then its end-of-turn token is trained too)? */
export interface AssistantTraining {
  train: boolean;
  endedNormally: boolean;
}

export interface EncodedChat {
  tokens: number[];
  /** indices t whose token tokens[t] is trained: log p(tokens[t] | tokens[<t]) */
  positions: number[];
  /** turn id (index of the assistant message among the chat's assistant messages) per trained position */
  turns: number[];
  /**
   * Present only when some trained target differs from tokens[position]: the token trained at each position.
   * That happens with an `endToken` that is not the template's closing token (the code trains eos_token_id there).
   */
  targets?: number[];
}

/**
 * Rendering a chat template (Jinja) costs tens of microseconds with the interpreter (a few compiled,
 * data/chat-template-compile.ts), tokenising a segment more, and every turn re-renders the same prefixes of the same
 * chats, so renders and segment encodings are memoised per tokenizer (bounded; cleared when full).
 */
const MEMO_LIMIT = 20_000;
const memos = new WeakMap<ChatTokenizer, { render: Map<string, string>; encode: Map<string, number[]> }>();

function memoOf(tokenizer: ChatTokenizer): { render: Map<string, string>; encode: Map<string, number[]> } {
  let m = memos.get(tokenizer);
  if (!m) memos.set(tokenizer, (m = { render: new Map(), encode: new Map() }));
  if (m.render.size > MEMO_LIMIT) m.render.clear();
  if (m.encode.size > MEMO_LIMIT) m.encode.clear();
  return m;
}

function render(tokenizer: ChatTokenizer, messages: readonly ChatMessage[], addGenerationPrompt: boolean): string {
  const memo = memoOf(tokenizer).render;
  const key = (addGenerationPrompt ? '1' : '0') + JSON.stringify(messages);
  let text = memo.get(key);
  if (text === undefined) memo.set(key, (text = tokenizer.applyChatTemplate(messages, { addGenerationPrompt })));
  return text;
}

function encode(tokenizer: ChatTokenizer, text: string): number[] {
  const memo = memoOf(tokenizer).encode;
  let ids = memo.get(text);
  if (ids === undefined) memo.set(text, (ids = tokenizer.encode(text)));
  return ids;
}

/** Appends `ids` to `out` one by one: a spread (`out.push(...ids)`) passes every id as an argument and overflows
 *  the call stack on long texts (a problem of a few hundred KB is a few hundred thousand tokens). */
function append(out: number[], ids: readonly number[]): void {
  for (const id of ids) out.push(id);
}

function mustExtend(prefix: string, full: string, where: string): string {
  if (!full.startsWith(prefix))
    throw new Error(
      `${where}: the chat template is not prefix-stable (rendering more messages changed earlier text), so turns cannot be tokenised incrementally`,
    );
  return full.slice(prefix.length);
}

/**
 * Encode `messages` (system/user/assistant in any order). `training[k]` describes the k-th assistant message
 * (missing entries: not trained). With `addGenerationPrompt` the result ends with the template's generation
 * prompt, ready for generate(); trained positions are still reported for earlier messages.
 */
export function encodeChat(
  tokenizer: ChatTokenizer,
  chat: readonly ChatTurn[],
  training: readonly AssistantTraining[],
  addGenerationPrompt: boolean,
  endToken?: number,
): EncodedChat {
  // the template renders role and content only
  const messages: ChatMessage[] = chat.map((m) => ({ role: m.role, content: m.content }));
  const tokens: number[] = [];
  const positions: number[] = [];
  const turns: number[] = [];
  // positions (index into `positions`) whose target is `endToken` instead of the template's closing token
  const swapped: number[] = [];
  let text = '';
  let turn = 0;
  for (let i = 0; i < messages.length; i++) {
    if (messages[i].role !== 'assistant') continue;
    // template text up to this assistant message's content
    const prompt = render(tokenizer, messages.slice(0, i), true);
    append(tokens, encode(tokenizer, mustExtend(text, prompt, 'encodeChat')));
    const contentIds = chat[i].ids ?? encode(tokenizer, messages[i].content);
    const t = training[turn];
    if (t?.train) {
      for (let j = 0; j < contentIds.length; j++) {
        positions.push(tokens.length + j);
        turns.push(turn);
      }
    }
    append(tokens, contentIds);
    // the text that closes the message (e.g. "<|im_end|>\n"): its first token is the end-of-turn token
    const closed = render(tokenizer, messages.slice(0, i + 1), false);
    const closing = encode(tokenizer, mustExtend(prompt + messages[i].content, closed, 'encodeChat'));
    if (t?.train && t.endedNormally) {
      if (closing[0] !== tokenizer.endOfTurnTokenId)
        throw new Error(
          `encodeChat: the template closes an assistant message with token ${closing[0]}, not the end-of-turn token ${tokenizer.endOfTurnTokenId}`,
        );
      if (endToken !== undefined && endToken !== closing[0]) swapped.push(positions.length);
      positions.push(tokens.length);
      turns.push(turn);
    }
    append(tokens, closing);
    text = closed;
    turn += 1;
  }
  const full = render(tokenizer, messages, addGenerationPrompt);
  append(tokens, encode(tokenizer, mustExtend(text, full, 'encodeChat')));
  if (swapped.length === 0) return { tokens, positions, turns };
  const targets = positions.map((p) => tokens[p]);
  for (const k of swapped) targets[k] = endToken!;
  return { tokens, positions, turns, targets };
}
