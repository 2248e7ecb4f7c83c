// The longest ReMA horizon (rounds of one meta-thinking and one reasoning message) the embedded model's context
// allows, per per-turn cap: the reasoning agent's prompt before its r-th message (system prompt, question, the
// template's tokens for every message, and the earlier messages) plus one more message must fit the model's
// context. Counted with the real tokenizer, prompts and held-out questions, for messages that fill their cap (the
// horizon a run is sure to reach) and for messages of the length the model writes (`--typical` tokens).
//   npx tsx scripts/echo/horizon.ts [--caps 8,12,16,24,32,64] [--typical 14] [--json results/echo-horizon/horizon.json]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigProblems, modelSource } from '../../src/cli/setup.ts';
import { loadHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { promptsFor } from '../../src/rl/prompts/index.ts';
import { encodeChat } from '../../src/rl/protocol/encode.ts';
import { chatFor, type Episode, type Message } from '../../src/rl/protocol/episode.ts';

const { values } = parseArgs({
  options: {
    caps: { type: 'string', default: '8,12,16,24,32,64' },
    typical: { type: 'string', default: '14' },
    json: { type: 'string' },
  },
});

const config = getPreset('tiny-default');
const tokenizer = await loadHfTokenizer(modelSource(config));
const context = (
  JSON.parse(readFileSync(join('public/models', config.model, 'config.json'), 'utf8')) as {
    max_position_embeddings: number;
  }
).max_position_embeddings;
const problems = (await loadConfigProblems(config, {})).eval;
const prompts = promptsFor(config.prompts, 'multi-turn', 'math');
const msg = (role: Message['role']): Message => ({
  role,
  text: '',
  generated: 0,
  truncated: false,
  endedNormally: true,
  dummy: false,
});

/** Template and question tokens of the reasoning agent's prompt before its r-th message, messages left empty. */
function overhead(problem: Episode['problem'], r: number): number {
  const messages: Message[] = [];
  for (let i = 0; i < r; i++) messages.push(msg('meta'), ...(i < r - 1 ? [msg('reasoning')] : []));
  const episode: Episode = { problem, group: 0, sample: 0, kind: 'two-agent', messages, finish: null };
  return encodeChat(tokenizer, chatFor(episode, 'reasoning', prompts), [], true).tokens.length;
}

/** The most rounds whose last reasoning message of `len` tokens still fits, with earlier messages of `len` tokens. */
function horizon(problem: Episode['problem'], len: number): number {
  let r = 0;
  while (r < 200 && overhead(problem, r + 1) + (2 * (r + 1) - 1) * len + len <= context) r++;
  return r;
}

const longest = problems.reduce((a, p) => (p.question.length > a.question.length ? p : a));
const shortest = problems.reduce((a, p) => (p.question.length < a.question.length ? p : a));
const typical = Number(values.typical);
const rows = values.caps
  .split(',')
  .map(Number)
  .map((cap) => ({
    cap,
    rounds_full_longest: horizon(longest, cap),
    rounds_full_shortest: horizon(shortest, cap),
    rounds_typical_longest: horizon(longest, Math.min(cap, typical)),
  }));
const out = { context, typical_message_tokens: typical, first_prompt_tokens: overhead(longest, 1), rows };
console.log(JSON.stringify(out, null, 2));
if (values.json) {
  mkdirSync(dirname(values.json), { recursive: true });
  writeFileSync(values.json, JSON.stringify(out, null, 2) + '\n');
}
