// Chat JSONL for supervised fine-tuning, in the two layouts such data ships in: OpenAI-style
// {"messages": [{"role", "content"}, ...]} and LLaMA-Factory's alpaca layout with history
// {"system"?, "history"?: [[user, assistant], ...], "instruction", "input"?, "output"} (how the ReMA paper's SFT
// dialogues ship). Every line becomes one chat; training puts the loss on every assistant message. Errors name the
// file, the line and the field.

import type { ChatMessage } from './tokenizer.ts';
import { DataFormatError, parseJsonl } from './jsonl.ts';

export interface SftChat {
  /** 1-based line in the file */
  line: number;
  messages: ChatMessage[];
}

const ROLES = new Set(['system', 'user', 'assistant']);

function fromMessages(value: unknown[], where: string): ChatMessage[] {
  return value.map((m, i) => {
    const at = `${where}: messages[${i}]`;
    if (typeof m !== 'object' || m === null)
      throw new DataFormatError(`${at} must be an object with "role" and "content"`);
    const { role, content } = m as Record<string, unknown>;
    if (typeof role !== 'string' || !ROLES.has(role))
      throw new DataFormatError(`${at}.role must be "system", "user" or "assistant", got ${JSON.stringify(role)}`);
    if (typeof content !== 'string')
      throw new DataFormatError(`${at}.content must be a string, got ${JSON.stringify(content)}`);
    return { role: role as ChatMessage['role'], content };
  });
}

/** LLaMA-Factory's alpaca converter: the user turn is `instruction`, then `input` on a new line when present. */
function fromAlpaca(row: Record<string, unknown>, where: string): ChatMessage[] {
  const { system, history, instruction, input, output } = row;
  const text = (v: unknown, field: string): string => {
    if (v === undefined) throw new DataFormatError(`${where}: "${field}" is missing`);
    if (typeof v !== 'string')
      throw new DataFormatError(`${where}: "${field}" must be a string, got ${JSON.stringify(v)}`);
    return v;
  };
  const messages: ChatMessage[] = [];
  if (system !== undefined && system !== null && system !== '')
    messages.push({ role: 'system', content: text(system, 'system') });
  if (history !== undefined && history !== null) {
    if (!Array.isArray(history))
      throw new DataFormatError(`${where}: "history" must be a list of [user, assistant] pairs`);
    history.forEach((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string')
        throw new DataFormatError(`${where}: history[${i}] must be a [user, assistant] pair of strings`);
      messages.push({ role: 'user', content: pair[0] }, { role: 'assistant', content: pair[1] });
    });
  }
  const query = text(instruction, 'instruction');
  const extra = input === undefined || input === null ? '' : text(input, 'input');
  messages.push(
    { role: 'user', content: extra === '' ? query : `${query}\n${extra}` },
    { role: 'assistant', content: text(output, 'output') },
  );
  return messages;
}

/** Parse a chat JSONL file (either layout, line by line) into chats with at least one assistant message. */
export function parseSftChats(text: string, file: string): SftChat[] {
  const rows = parseJsonl(text, file);
  if (rows.length === 0) throw new DataFormatError(`${file}: no chats (the file is empty)`);
  return rows.map(({ line, value }) => {
    const where = `${file}:${line}`;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new DataFormatError(`${where}: expected an object with "messages" or with "instruction" and "output"`);
    const row = value as Record<string, unknown>;
    let messages: ChatMessage[];
    if ('messages' in row) {
      if (!Array.isArray(row.messages)) throw new DataFormatError(`${where}: "messages" must be a list`);
      messages = fromMessages(row.messages, where);
    } else if ('instruction' in row || 'output' in row) {
      messages = fromAlpaca(row, where);
    } else {
      throw new DataFormatError(
        `${where}: expected "messages" (OpenAI layout) or "instruction" and "output" (alpaca layout)`,
      );
    }
    if (!messages.some((m) => m.role === 'assistant'))
      throw new DataFormatError(`${where}: no assistant message to train on`);
    const firstAssistant = messages.findIndex((m) => m.role === 'assistant');
    if (!messages.slice(0, firstAssistant).some((m) => m.role === 'user'))
      throw new DataFormatError(`${where}: the first assistant message has no user message before it`);
    return { line, messages };
  });
}
