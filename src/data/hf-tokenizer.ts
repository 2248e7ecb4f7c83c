// Loads a Hugging Face tokenizer (tokenizer.json + tokenizer_config.json) the way transformers does: the encoding
// model through @huggingface/tokenizers, the chat template through real Jinja (chat-template.ts). The same code
// serves the embedded tiny model and real models (Qwen2.5, SmolLM2, Llama 3.x).

import { Tokenizer } from '@huggingface/tokenizers';
import type { FileSource } from '../util/file-source.ts';
import { compileChatTemplate, selectChatTemplate, textAfterAssistantContent } from './chat-template.ts';
import type { ChatMessage, ChatTokenizer } from './tokenizer.ts';

/** Optional extras that live in other files of a model folder. */
export interface HfTokenizerExtras {
  /** generation_config.json: its eos_token_id (number or list) adds stop ids */
  generationConfig?: object | null;
  /** a template from chat_template.jinja / chat_template.json, used when tokenizer_config.json has none */
  chatTemplate?: string | null;
  /** shown in error messages, e.g. the folder name */
  where?: string;
}

/** Read tokenizer.json, tokenizer_config.json (and, when present, generation_config.json, chat_template.jinja). */
export async function loadHfTokenizer(source: FileSource): Promise<ChatTokenizer> {
  const tokenizerJson = await readJson(source, 'tokenizer.json', true);
  const tokenizerConfig = await readJson(source, 'tokenizer_config.json', true);
  const generationConfig = await readJson(source, 'generation_config.json', false);
  let chatTemplate: string | null = null;
  if (!('chat_template' in (tokenizerConfig as object))) {
    const jinja = await source.read('chat_template.jinja');
    if (jinja) chatTemplate = new TextDecoder().decode(jinja);
    else {
      const json = await readJson(source, 'chat_template.json', false);
      const field = (json as { chat_template?: unknown } | null)?.chat_template;
      if (typeof field === 'string') chatTemplate = field;
    }
  }
  return createHfTokenizer(tokenizerJson as object, tokenizerConfig as object, {
    generationConfig: generationConfig as object | null,
    chatTemplate,
    where: source.name,
  });
}

/** Build a ChatTokenizer from the parsed JSON files. */
export function createHfTokenizer(
  tokenizerJson: object,
  tokenizerConfig: object,
  extras: HfTokenizerExtras = {},
): ChatTokenizer {
  const where = extras.where ?? 'tokenizer';
  const configFile = `${where}/tokenizer_config.json`;
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
  } catch (err) {
    throw new Error(`${where}/tokenizer.json: cannot build the tokenizer: ${(err as Error).message}`, { cause: err });
  }
  const config = tokenizerConfig as Record<string, unknown>;

  // Special-token strings, as template variables (transformers passes them to apply_chat_template).
  const specialTokens: Record<string, string> = {};
  for (const name of ['bos_token', 'eos_token', 'pad_token', 'unk_token']) {
    const value = tokenString(config[name]);
    if (value !== null) specialTokens[name] = value;
  }

  const templateSource =
    'chat_template' in config ? selectChatTemplate(config.chat_template, configFile) : extras.chatTemplate;
  if (templateSource === undefined || templateSource === null) {
    throw new Error(
      `${configFile}: missing chat_template (and no chat_template.jinja); this model cannot render chats`,
    );
  }
  const template = compileChatTemplate(templateSource, specialTokens, configFile);

  const encode = (text: string): number[] => tokenizer.encode(text, { add_special_tokens: false }).ids;
  const addedIds = new Set(tokenizer.get_added_tokens_decoder().keys());

  const idOf = (token: string, field: string): number => {
    const id = tokenizer.token_to_id(token);
    if (id === undefined) throw new Error(`${configFile}: ${field} "${token}" is not in tokenizer.json's vocabulary`);
    return id;
  };
  const eosId = specialTokens.eos_token !== undefined ? idOf(specialTokens.eos_token, 'eos_token') : null;

  // End of turn: the first added/special token the template writes after an assistant message's content.
  const afterContent = encode(textAfterAssistantContent(template));
  const endOfTurnTokenId = afterContent.find((id) => addedIds.has(id)) ?? eosId;
  if (endOfTurnTokenId === null) {
    throw new Error(
      `${configFile}: cannot find the end-of-turn token: the chat template writes no special token after an ` +
        'assistant message and there is no eos_token',
    );
  }

  const stopIds = new Set<number>([endOfTurnTokenId]);
  if (eosId !== null) stopIds.add(eosId);
  const genEos = (extras.generationConfig as { eos_token_id?: unknown } | null | undefined)?.eos_token_id;
  for (const id of Array.isArray(genEos) ? genEos : genEos === undefined || genEos === null ? [] : [genEos]) {
    if (typeof id !== 'number' || !Number.isInteger(id)) {
      throw new Error(`${where}/generation_config.json: eos_token_id must be an integer or a list of integers`);
    }
    stopIds.add(id);
  }

  let maxId = -1;
  for (const id of tokenizer.get_vocab(true).values()) maxId = Math.max(maxId, id);

  return {
    vocabSize: maxId + 1,
    encode,
    decode(ids: readonly number[]): string {
      if (ids.length === 0) return '';
      return tokenizer.decode([...ids], { skip_special_tokens: false });
    },
    applyChatTemplate(messages: readonly ChatMessage[], opts: { addGenerationPrompt: boolean }): string {
      return template.render(messages, opts);
    },
    endOfTurnTokenId,
    ...(eosId !== null ? { eosTokenId: eosId } : {}),
    stopTokenIds: [...stopIds],
    addedTokenIds: [...addedIds],
  };
}

/** A special token in tokenizer_config.json is a string or (older configs) an AddedToken object {content}. */
function tokenString(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { content?: unknown }).content === 'string') {
    return (value as { content: string }).content;
  }
  return null;
}

async function readJson(source: FileSource, path: string, required: boolean): Promise<unknown> {
  const bytes = await source.read(path);
  if (bytes === null) {
    if (required) throw new Error(`${source.name}/${path}: file not found`);
    return null;
  }
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new Error('expected a JSON object');
    }
    return value;
  } catch (err) {
    throw new Error(`${source.name}/${path}: not valid JSON: ${(err as Error).message}`, { cause: err });
  }
}
