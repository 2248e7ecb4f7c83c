// The tokenizer contract the rest of the system uses: HF tokenizer.json encoding plus the model's chat template.
// Implementation: data/hf-tokenizer.ts (@huggingface/tokenizers + @huggingface/jinja).

export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

export interface ChatTokenizer {
  readonly vocabSize: number;
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  /** Render messages with the model's chat template (tokenizer_config.json `chat_template`). */
  applyChatTemplate(messages: readonly ChatMessage[], opts: { addGenerationPrompt: boolean }): string;
  /** the token that ends an assistant turn in this template (e.g. <|im_end|>, <|eot_id|>) */
  readonly endOfTurnTokenId: number;
  /** tokenizer_config.json's eos_token (transformers tokenizer.eos_token_id), when it names one */
  readonly eosTokenId?: number;
  /** every id that should stop generation (end-of-turn and eos) */
  readonly stopTokenIds: readonly number[];
  /** tokenizer.json's added tokens (special and control tokens such as <|im_end|>): never part of free text, so a
   *  grammar-constrained decoder (rl/protocol/json-actions) keeps them out of the text it allows */
  readonly addedTokenIds?: readonly number[];
}
