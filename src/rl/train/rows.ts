// Training rows: one row = one agent's whole conversation in one episode (the meta agent's plan once, however
// many reasoning answers followed it: Episode.follower) as token ids, its turns the ids the agent sampled, with its trained positions
// grouped by turn (protocol/encode.ts), carrying the agent's reward and, once computed, its advantage. GRPO
// groups rows by (agent, problem), as the code's uid = f"{role}_{uid}".

import type { ChatTokenizer } from '../../data/tokenizer.ts';
import type { AgentRole, ExperimentConfig } from '../config.ts';
import { zeroStdGroupFraction } from '../losses/advantages.ts';
import { estimateAdvantages } from '../losses/estimators.ts';
import type { AgentPrompts } from '../prompts/index.ts';
import { encodeChat } from '../protocol/encode.ts';
import { chatFor, messagesOf } from '../protocol/episode.ts';
import type { ScoredEpisode } from './episodes.ts';

export interface TrainRow {
  /** index into the step's scored episodes */
  episode: number;
  role: AgentRole;
  adapter: string;
  /** GRPO group key: agent and problem */
  group: string;
  tokens: number[];
  positions: number[];
  turns: number[];
  /** the token trained at each position when it differs from tokens[position] (endTokenTarget "eos") */
  targets?: number[];
  reward: number;
  /** one advantage for every token (with per-token advantages: their mean, for the records) */
  advantage: number;
  /** per-token advantages when they differ along the row (KL in the reward, config.klPlacement "reward") */
  tokenAdvantages?: Float64Array;
  oldLogp: Float32Array | null;
  refLogp: Float32Array | null;
  /** per trained token, filled by the update stage for the rollout inspector (train/token-view.ts) */
  view?: TrainedTokens;
}

/** What the inspector shows per trained token: log pi_old, and the ratio and clip code the loss last used. */
export interface TrainedTokens {
  /** log-prob under the rollout weights (pi_old; the sampling log-prob of the sampled ids) */
  logprobs: Float32Array;
  ratio: Float32Array;
  clip: Int8Array;
}

/**
 * Rows of the trained agents for the kept episodes. Rows without a trained position (an agent with no message, or
 * none trainable) are left out unless `withEmpty`: then they are kept with no tokens, for the group statistics
 * only (config.groupStatsRows "all", as the code's merged batch holds every trajectory's row of each agent).
 */
export function buildRows(
  tokenizer: ChatTokenizer,
  prompts: AgentPrompts,
  scored: readonly ScoredEpisode[],
  trained: readonly AgentRole[],
  keep: (s: ScoredEpisode) => boolean,
  adapterFor: (role: AgentRole) => string,
  withEmpty = false,
  endToken?: number,
): TrainRow[] {
  const rows: TrainRow[] = [];
  scored.forEach((s, index) => {
    if (!keep(s)) return;
    for (const role of trained) {
      const e = s.episode;
      // a plan answered several times trains the meta agent once, on its first episode
      if (role === 'meta' && (e.follower ?? 0) > 0) continue;
      const training = messagesOf(e, role).map((m) => ({ train: true, endedNormally: m.endedNormally }));
      const enc =
        training.length === 0
          ? { tokens: [], positions: [], turns: [], targets: undefined }
          : encodeChat(tokenizer, chatFor(e, role, prompts, true), training, false, endToken);
      if (enc.positions.length === 0 && !withEmpty) continue;
      rows.push({
        episode: index,
        role,
        adapter: adapterFor(role),
        group: `${role}:${e.group}`,
        tokens: enc.tokens,
        positions: enc.positions,
        turns: enc.turns,
        ...(enc.targets ? { targets: enc.targets } : {}),
        reward: s.reward[role],
        advantage: 0,
        oldLogp: null,
        refLogp: null,
      });
    }
  });
  return rows;
}

/**
 * Fills row.advantage (and row.tokenAdvantages when the estimator gives per-token advantages, e.g. REINFORCE++
 * with the KL in the reward) with the configured estimator (losses/estimators.ts); returns the fraction of
 * zero-std groups, whatever the estimator.
 */
export function assignAdvantages(rows: TrainRow[], config: ExperimentConfig): number {
  const { advantages, tokenAdvantages } = estimateAdvantages(config.advantage, rows, config);
  rows.forEach((r, i) => {
    r.advantage = advantages[i];
    if (tokenAdvantages) r.tokenAdvantages = tokenAdvantages[i];
  });
  return zeroStdGroupFraction(
    rows.map((r) => r.reward),
    rows.map((r) => r.group),
  );
}
