// A model whose context is shorter than the prompts: the rollout cuts a turn's generation budget where the context
// ends, or ends the episode (`completion_token_exceeded`) when the prompt alone fills it, and those episodes score 0.
// What this tool does about it, so it is never silent:
//  - at start (checkFirstPromptFits), refuse when even the first turn of the problem with the shortest question,
//    within the prompt cap (maxPromptTokens), cannot generate a single token: every episode would end before it
//    starts (a prompt over the cap ends its episode whatever the context, so it is not refused);
//  - otherwise count, per step and per evaluation, the episodes the context actually cut: a prompt within the
//    prompt cap that fills the context, or a turn that used all of a generation budget the context had shortened
//    below maxTokensPerTurn (MetricsRecord.context_limited, with the context length and the longest such prompt),
//    which the CLI prints as a warning and the page shows as a notice (contextMessage words both). A turn that ends
//    before the context would have cut it is not counted.
import type { ChatTokenizer } from '../../data/tokenizer.ts';
import type { Problem } from '../../data/problem.ts';
import type { AgentRole } from '../config.ts';
import type { MetricsRecord } from '../metrics.ts';
import type { AgentPrompts } from '../prompts/index.ts';
import { encodeChat } from '../protocol/encode.ts';
import { chatFor, type Episode } from '../protocol/episode.ts';

export type ContextFields = Pick<MetricsRecord, 'context_limited' | 'context_length' | 'context_prompt_tokens'>;

/** Collects RolloutSettings.onContextLimit calls for one batch of episodes. */
export class ContextTally {
  private readonly episodes = new Set<Episode>();
  private context = 0;
  private longest = 0;

  readonly add = (episode: Episode, promptTokens: number, context: number): void => {
    this.episodes.add(episode);
    this.context = context;
    this.longest = Math.max(this.longest, promptTokens);
  };

  /** the metrics fields, present only when some episode hit the context */
  fields(): ContextFields {
    if (this.episodes.size === 0) return {};
    return { context_limited: this.episodes.size, context_length: this.context, context_prompt_tokens: this.longest };
  }
}

/** One line for the CLI and the page: how many episodes, the model's context, the prompt's token count, the way out. */
export function contextMessage(f: ContextFields, total: number, maxTokensPerTurn: number, where: string): string {
  return (
    `${where}: ${f.context_limited} of ${total} episodes did not fit the model's context of ${f.context_length} tokens ` +
    `(prompt up to ${f.context_prompt_tokens} tokens + ${maxTokensPerTurn} tokens per turn): their turns were cut short or the episode ` +
    'ended (completion_token_exceeded), and they score 0. Use a model with a longer context, or lower maxTokensPerTurn / maxTurns.'
  );
}

/**
 * Throws when the first turn of the problem with the shortest question (the cheapest prompt a run can meet) leaves
 * no room in the context to generate a token, naming the context length, the prompt's token count and the problem.
 */
export function checkFirstPromptFits(
  problems: readonly Problem[],
  kind: Episode['kind'],
  role: AgentRole,
  tokenizer: ChatTokenizer,
  prompts: AgentPrompts,
  maxContext: number,
  maxPromptTokens = Infinity,
): void {
  if (!Number.isFinite(maxContext) || problems.length === 0) return;
  const problem = problems.reduce((a, p) => (p.question.length < a.question.length ? p : a));
  const episode: Episode = { problem, group: 0, sample: 0, kind, messages: [], finish: null };
  const tokens = encodeChat(tokenizer, chatFor(episode, role, prompts), [], true).tokens.length;
  // a prompt over the prompt cap ends its episode whatever the context (completion_token_exceeded, as in the code)
  if (tokens >= maxContext && tokens <= maxPromptTokens)
    throw new Error(
      `the model's context is ${maxContext} tokens (max_position_embeddings), but the first ${role} prompt of the shortest problem ` +
        `("${problem.id}") already takes ${tokens} tokens: no episode could generate a token. Use a model with a longer context or shorter prompts.`,
    );
}
