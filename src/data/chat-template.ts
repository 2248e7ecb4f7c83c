// Chat templates as real Hugging Face models ship them: a Jinja program in tokenizer_config.json (`chat_template`),
// rendered with @huggingface/jinja and the same variables transformers passes (messages, add_generation_prompt,
// bos_token, eos_token, ...; raise_exception and strftime_now are built into the Jinja runtime). The parsed program
// is also compiled to closures (chat-template-compile.ts) that render ChatML-style templates many times faster; a
// chat they cannot render goes to the interpreter.

import { Template } from '@huggingface/jinja';
import { compileJinja } from './chat-template-compile.ts';
import type { ChatMessage } from './tokenizer.ts';

/** A compiled chat template plus the special-token strings it may refer to. */
export interface ChatTemplate {
  render(messages: readonly ChatMessage[], opts: { addGenerationPrompt: boolean }): string;
}

/**
 * Pick the template string out of a tokenizer_config.json `chat_template` field. It is either a string, or (older
 * multi-template configs) a list of {name, template}; then the one named "default" is used.
 */
export function selectChatTemplate(field: unknown, where: string): string {
  if (typeof field === 'string') return field;
  if (Array.isArray(field)) {
    const named = field.filter(
      (t): t is { name: string; template: string } =>
        typeof t === 'object' && t !== null && typeof t.name === 'string' && typeof t.template === 'string',
    );
    const chosen = named.find((t) => t.name === 'default');
    if (chosen) return chosen.template;
    throw new Error(
      `${where}: chat_template is a list without an entry named "default" (names: ${named.map((t) => t.name).join(', ')})`,
    );
  }
  throw new Error(`${where}: missing chat_template (a Jinja string); this model cannot render chats`);
}

/**
 * Compile a Jinja chat template. `specialTokens` become template variables (bos_token, eos_token, pad_token,
 * unk_token), as transformers' apply_chat_template does.
 */
export function compileChatTemplate(
  source: string,
  specialTokens: Readonly<Record<string, string>>,
  where: string,
): ChatTemplate {
  let template: Template;
  try {
    template = new Template(source);
  } catch (err) {
    throw new Error(`${where}: chat_template is not valid Jinja: ${(err as Error).message}`, { cause: err });
  }
  const compiled = compileJinja(template.parsed);
  return {
    render(messages, opts) {
      const variables = {
        ...specialTokens,
        messages: messages.map((m) => ({ role: m.role, content: m.content })),
        add_generation_prompt: opts.addGenerationPrompt,
      };
      try {
        return compiled(new Map(Object.entries(variables)));
      } catch {
        // left the compiled subset (GIVE_UP): the interpreter renders it, or reports what is wrong
      }
      try {
        return template.render(variables);
      } catch (err) {
        throw new Error(`${where}: chat_template failed to render: ${(err as Error).message}`, { cause: err });
      }
    },
  };
}

/**
 * The text that a template writes right after an assistant message's content (e.g. "<|im_end|>\n" for ChatML,
 * "<|eot_id|>" for Llama 3), found by rendering a probe conversation. The caller tokenises it and takes the first
 * special token as the end-of-turn token.
 */
export function textAfterAssistantContent(template: ChatTemplate): string {
  const marker = 'QZXJVKW';
  const rendered = template.render(
    [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: marker },
    ],
    { addGenerationPrompt: false },
  );
  const at = rendered.lastIndexOf(marker);
  if (at < 0) return '';
  return rendered.slice(at + marker.length);
}
