// The rollout protocols (ReMA code vllm_rollout_spmd.multi_turn_generate_sequences, paper §3.2 and App. D.2):
// - multi-turn MAMRP: each round, every unfinished episode's MTA writes m_t (batched), then its RA writes y_t.
//   "[FINISH]" is a stop string for both; the MTA keeps it in its message, the RA's output has it removed and
//   is right-trimmed. After the MTA says [FINISH] the RA answers once more and the episode is `finished`.
//   A message that hits the per-turn cap ends the episode (`stop_when_truncated`; after a truncated MTA message
//   a dummy empty RA message is appended); a chat longer than the prompt cap ends it with
//   `completion_token_exceeded` (the RA's, with overflowDummy, after a dummy empty RA message as the code); no [FINISH] within maxTurns rounds gives `reach_max_turn`.
// - single-turn MAMRP: one plan, then one solution; a plan may be answered several times (shared by a whole group:
//   Algorithm 1's reasoning phase; by `followers` consecutive episodes: App. C.2's reasoning samples per plan), or
//   come ready-made (Algorithm 1's phase plan set).
// - single agent (VRP / MRP): one response.
// Episodes are mutated in place (messages appended, finish set).

import type { ChatTokenizer } from '../../data/tokenizer.ts';
import type { Generation, Policy, SamplingParams, TokenConstraint } from '../../engine/policy/policy.ts';
import { uniform01 } from '../../util/rng.ts';
import type { AgentRole } from '../config.ts';
import { FINISH_FLAG } from '../prompts/paper.ts';
import type { AgentPrompts } from '../prompts/index.ts';
import { encodeChat } from './encode.ts';
import { chatFor, type Episode, type Message } from './episode.ts';

export interface RolloutSettings {
  policy: Policy;
  tokenizer: ChatTokenizer;
  prompts: AgentPrompts;
  /** the adapter that acts for an agent (null: base weights) */
  adapterFor: (role: AgentRole) => string | null;
  maxTurns: number;
  maxTokensPerTurn: number;
  maxPromptTokens: number;
  /** the model's context length: prompt + generated tokens never exceed it */
  maxContext: number;
  stopWhenTruncated: boolean;
  /** append the code's empty dummy reasoning message when the reasoning agent's chat overflows (config.overflowAnswer "empty") */
  overflowDummy?: boolean;
  /** generated tokens so far, for progress bars */
  onTokens?: (generated: number) => void;
  /** an agent run by another model (config.frozenAgent): its own policy, tokenizer (chat template, stop ids) and context */
  frozen?: FrozenActor;
  /** constrained decoding of the meta-thinking agent's turns (config.metaActions "json": the meta-action grammar's
   *  token mask), given the acting model's tokenizer and vocabulary size */
  metaConstraint?: (tokenizer: ChatTokenizer, vocabSize: number) => TokenConstraint;
  /**
   * Called for each episode whose turn did not fit the model's context: prompt + maxTokensPerTurn > maxContext, so
   * the turn was cut short, or (promptTokens >= context) could not start and the episode ended
   * `completion_token_exceeded`. The trainer counts these (metrics context_limited) so a too-short context is not silent.
   */
  onContextLimit?: (episode: Episode, promptTokens: number, context: number) => void;
}

export interface FrozenActor {
  role: AgentRole;
  policy: Policy;
  tokenizer: ChatTokenizer;
  maxContext: number;
}

/** Who writes `role`'s turns: the frozen model (base weights, its tokenizer) or the trained policy with the role's adapter. */
function actorFor(
  s: RolloutSettings,
  role: AgentRole,
): { policy: Policy; tokenizer: ChatTokenizer; adapter: string | null; maxContext: number } {
  if (s.frozen?.role === role)
    return { policy: s.frozen.policy, tokenizer: s.frozen.tokenizer, adapter: null, maxContext: s.frozen.maxContext };
  return { policy: s.policy, tokenizer: s.tokenizer, adapter: s.adapterFor(role), maxContext: s.maxContext };
}

export type RoleSampling = Record<AgentRole, SamplingParams>;

/** A distinct, reproducible 32-bit seed for one generate call. */
export function deriveSeed(seed: number, a: number, b: number): number {
  return Math.floor(uniform01(seed, a, b) * 0x100000000) >>> 0;
}

/** Everything up to and including the first stop string (the engine may decode a little past it). */
export function cutAfterStop(text: string, stop: string): string {
  const at = text.indexOf(stop);
  return at < 0 ? text : text.slice(0, at + stop.length);
}

/** The ReMA code's treatment of reasoning-agent outputs: output.replace("[FINISH]", "").rstrip(). */
export function stripFinish(text: string): string {
  return text.replaceAll(FINISH_FLAG, '').trimEnd();
}

type TurnResult = Generation | 'overflow';

/** One batched generate call for `role` in every given episode; 'overflow' where the chat exceeds the prompt cap. */
async function generateTurn(
  s: RolloutSettings,
  episodes: readonly Episode[],
  role: AgentRole,
  sampling: SamplingParams,
  stopStrings: readonly string[],
): Promise<TurnResult[]> {
  const actor = actorFor(s, role);
  const prompts = episodes.map((e) => {
    const chat = chatFor(e, role, s.prompts);
    return encodeChat(actor.tokenizer, chat, [], true).tokens;
  });
  const fits = prompts.map((p) => p.length <= s.maxPromptTokens && p.length < actor.maxContext);
  // the context bit when a prompt within the cap fills it, or when a turn used all of a budget the context shortened
  prompts.forEach((p, i) => {
    if (p.length <= s.maxPromptTokens && !fits[i]) s.onContextLimit?.(episodes[i], p.length, actor.maxContext);
  });
  const asked = episodes.map((_, i) => i).filter((i) => fits[i]);
  const constraint =
    role === 'meta' && s.metaConstraint ? s.metaConstraint(actor.tokenizer, actor.policy.vocabSize) : null;
  const requests = asked.map((i) => ({
    prompt: prompts[i],
    adapter: actor.adapter,
    maxNewTokens: Math.min(s.maxTokensPerTurn, actor.maxContext - prompts[i].length),
    stopStrings,
    stopTokenIds: actor.tokenizer.stopTokenIds,
    ...(constraint ? { constraint } : {}),
  }));
  const generated = requests.length > 0 ? await actor.policy.generate(requests, sampling, s.onTokens) : [];
  generated.forEach((g, k) => {
    const r = requests[k];
    if (g.finish === 'length' && r.maxNewTokens < s.maxTokensPerTurn)
      s.onContextLimit?.(episodes[asked[k]], r.prompt.length, actor.maxContext);
  });
  let next = 0;
  return fits.map((ok) => (ok ? generated[next++] : 'overflow'));
}

/**
 * The sampled ids whose decoding is exactly `text`: all of them when `text` is the generation's text, else the
 * shortest prefix that decodes to it (the generation cut after a stop string, or trimmed); undefined when none
 * does (the protocol changed the text: then it is tokenised).
 */
export function sampledIds(
  text: string,
  g: Generation,
  tokenizer: Pick<ChatTokenizer, 'decode'>,
): number[] | undefined {
  if (text === g.text) return g.tokens;
  if (!g.text.startsWith(text)) return undefined;
  // the decoded length grows with the prefix: the shortest prefix whose text is at least as long as `text`
  let lo = 0;
  let hi = g.tokens.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tokenizer.decode(g.tokens.slice(0, mid)).length >= text.length) hi = mid;
    else lo = mid + 1;
  }
  const ids = g.tokens.slice(0, lo);
  return tokenizer.decode(ids) === text ? ids : undefined;
}

function message(role: AgentRole, text: string, g: Generation, tokenizer: Pick<ChatTokenizer, 'decode'>): Message {
  const ids = sampledIds(text, g, tokenizer);
  return {
    role,
    text,
    generated: g.tokens.length,
    ...(ids ? { ids } : {}),
    truncated: g.finish === 'length',
    endedNormally: g.finish !== 'length',
    dummy: false,
  };
}

const DUMMY_REASONING: Message = {
  role: 'reasoning',
  text: '',
  generated: 0,
  truncated: false,
  endedNormally: false,
  dummy: true,
};

/** Multi-turn MAMRP rollout; `sampling[role].seed` is varied per round. */
export async function multiTurnRollout(s: RolloutSettings, episodes: Episode[], sampling: RoleSampling): Promise<void> {
  for (let turn = 0; turn < s.maxTurns; turn++) {
    const metaActive = episodes.filter((e) => e.finish === null);
    if (metaActive.length === 0) break;
    const metaSampling = { ...sampling.meta, seed: deriveSeed(sampling.meta.seed, turn, 0) };
    const metaOut = await generateTurn(s, metaActive, 'meta', metaSampling, [FINISH_FLAG]);
    metaActive.forEach((e, i) => {
      const g = metaOut[i];
      if (g === 'overflow') {
        e.finish = 'completion_token_exceeded';
        return;
      }
      const m = message('meta', cutAfterStop(g.text, FINISH_FLAG), g, actorFor(s, 'meta').tokenizer);
      e.messages.push(m);
      if (m.truncated && s.stopWhenTruncated) {
        e.messages.push({ ...DUMMY_REASONING });
        e.finish = 'stop_when_truncated';
      }
    });
    const reasonActive = metaActive.filter((e) => e.finish === null);
    if (reasonActive.length === 0) continue;
    const reasonSampling = { ...sampling.reasoning, seed: deriveSeed(sampling.reasoning.seed, turn, 1) };
    const reasonOut = await generateTurn(s, reasonActive, 'reasoning', reasonSampling, [FINISH_FLAG]);
    reasonActive.forEach((e, i) => {
      const g = reasonOut[i];
      if (g === 'overflow') {
        // the code appends an empty reasoning message here ("if the next gen is for reasoning agent")
        if (s.overflowDummy) e.messages.push({ ...DUMMY_REASONING });
        e.finish = 'completion_token_exceeded';
        return;
      }
      const m = message(
        'reasoning',
        stripFinish(cutAfterStop(g.text, FINISH_FLAG)),
        g,
        actorFor(s, 'reasoning').tokenizer,
      );
      e.messages.push(m);
      const lastMeta = e.messages[e.messages.length - 2];
      if (m.truncated && s.stopWhenTruncated) e.finish = 'stop_when_truncated';
      else if (lastMeta.text.includes(FINISH_FLAG)) e.finish = 'finished';
    });
  }
  for (const e of episodes) if (e.finish === null) e.finish = 'reach_max_turn';
}

export type PlanTurn = TurnResult;

/** How the episodes of a single-turn rollout share plans. */
export interface PlanSharing {
  /** every episode of a group answers the group's one plan (Algorithm 1's reasoning phase) */
  onePlanPerGroup?: boolean;
  /** consecutive episodes of a group answering one plan; each gets its index among them as Episode.follower */
  followers?: number;
  /** ready-made plans, one per group: no meta turn is generated (Algorithm 1's phase plan set, planTurns) */
  given?: readonly PlanTurn[];
}

/** The meta agent's single-turn plan for each episode (one batched call; `sampling.seed` as singleTurnRollout's). */
export function planTurns(
  s: RolloutSettings,
  episodes: readonly Episode[],
  sampling: SamplingParams,
): Promise<PlanTurn[]> {
  return generateTurn(s, episodes, 'meta', { ...sampling, seed: deriveSeed(sampling.seed, 0, 0) }, []);
}

/**
 * Single-turn MAMRP rollout: a plan, then a solution. Which episodes share a plan, and whether the plans are
 * generated here or given, is `sharing` (default: every episode writes its own plan).
 */
export async function singleTurnRollout(
  s: RolloutSettings,
  episodes: Episode[],
  sampling: RoleSampling,
  sharing: PlanSharing = {},
): Promise<void> {
  const k = sharing.followers ?? 1;
  const key = (e: Episode) => (sharing.onePlanPerGroup ? `${e.group}` : `${e.group}:${e.sample - (e.sample % k)}`);
  if (k > 1) for (const e of episodes) e.follower = e.sample % k;
  let planOf: (e: Episode) => PlanTurn;
  if (sharing.given) {
    const given = sharing.given;
    planOf = (e) => given[e.group];
  } else {
    const planners = episodes.filter((e, i) => i === 0 || key(episodes[i - 1]) !== key(e));
    const plans = await planTurns(s, planners, sampling.meta);
    const byKey = new Map(planners.map((e, i) => [key(e), plans[i]]));
    planOf = (e) => byKey.get(key(e))!;
  }
  episodes.forEach((e) => {
    const g = planOf(e);
    if (g === 'overflow') {
      e.finish = 'completion_token_exceeded';
      return;
    }
    const m = message('meta', g.text, g, actorFor(s, 'meta').tokenizer);
    e.messages.push(m);
    if (m.truncated && s.stopWhenTruncated) {
      e.messages.push({ ...DUMMY_REASONING });
      e.finish = 'stop_when_truncated';
    }
  });
  const active = episodes.filter((e) => e.finish === null);
  const answers = await generateTurn(
    s,
    active,
    'reasoning',
    { ...sampling.reasoning, seed: deriveSeed(sampling.reasoning.seed, 0, 1) },
    [],
  );
  active.forEach((e, i) => {
    const g = answers[i];
    if (g === 'overflow') {
      if (s.overflowDummy) e.messages.push({ ...DUMMY_REASONING });
      e.finish = 'completion_token_exceeded';
      return;
    }
    const m = message('reasoning', stripFinish(g.text), g, actorFor(s, 'reasoning').tokenizer);
    e.messages.push(m);
    e.finish = m.truncated && s.stopWhenTruncated ? 'stop_when_truncated' : 'finished';
  });
}

/** VRP / MRP: one agent, one response. */
export async function singleAgentRollout(
  s: RolloutSettings,
  episodes: Episode[],
  sampling: SamplingParams,
): Promise<void> {
  const out = await generateTurn(s, episodes, 'reasoning', { ...sampling, seed: deriveSeed(sampling.seed, 0, 2) }, []);
  episodes.forEach((e, i) => {
    const g = out[i];
    if (g === 'overflow') {
      e.finish = 'completion_token_exceeded';
      return;
    }
    const m = message('reasoning', g.text, g, actorFor(s, 'reasoning').tokenizer);
    e.messages.push(m);
    e.finish = m.truncated && s.stopWhenTruncated ? 'stop_when_truncated' : 'finished';
  });
}
