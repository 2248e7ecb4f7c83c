// The plain records a step emits (metrics.ts): the rollout inspector's view of each episode (every turn of both
// agents, reward, advantage, verdict) and the episode statistics of the metrics record.

import type { FinishReason, RolloutRecord, TurnRecord } from '../metrics.ts';
import { messagesOf, type Message } from '../protocol/episode.ts';
import type { ScoredEpisode } from './episodes.ts';
import type { TrainRow } from './rows.ts';
import { tokenPieces } from './token-view.ts';

/** per-token arrays are kept for at most this many trained tokens of a turn (rollouts.jsonl stays small) */
export const MAX_TOKENS_PER_TURN_RECORD = 512;

type TokenFields = Pick<TurnRecord, 'pieces' | 'logprobs' | 'ratio' | 'clip' | 'advantage'>;

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/** The trained tokens of each message of the updated rows (needs the update stage's row.view). */
function tokensByMessage(
  scored: readonly ScoredEpisode[],
  rows: readonly TrainRow[],
  decode: (ids: readonly number[]) => string,
): Map<Message, TokenFields> {
  const out = new Map<Message, TokenFields>();
  for (const row of rows) {
    if (!row.view) continue;
    const messages = messagesOf(scored[row.episode].episode, row.role);
    let start = 0;
    while (start < row.turns.length) {
      const turn = row.turns[start];
      let end = start;
      while (end < row.turns.length && row.turns[end] === turn) end++;
      const stop = Math.min(end, start + MAX_TOKENS_PER_TURN_RECORD);
      const ids = row.positions.slice(start, stop).map((p) => row.tokens[p]);
      const message = messages[turn];
      if (message)
        out.set(message, {
          pieces: tokenPieces(decode, ids),
          logprobs: Array.from(row.view.logprobs.subarray(start, stop), round4),
          ratio: Array.from(row.view.ratio.subarray(start, stop), round4),
          clip: Array.from(row.view.clip.subarray(start, stop)),
          // per token: the KL in the reward (klPlacement "reward") makes them differ along the row
          advantage: ids.map((_, k) => round4(row.tokenAdvantages?.[start + k] ?? row.advantage)),
        });
      start = end;
    }
  }
  return out;
}

/**
 * The inspector's records of a step. With `decode` (the tokenizer's), every turn of an updated row also carries
 * its trained tokens' text pieces, log pi_old, ratio, clip code and advantage (metrics.ts TurnRecord).
 */
export function rolloutRecords(
  step: number,
  scored: readonly ScoredEpisode[],
  rows: readonly TrainRow[],
  decode?: (ids: readonly number[]) => string,
): RolloutRecord[] {
  const perToken = decode ? tokensByMessage(scored, rows, decode) : new Map<Message, TokenFields>();
  const advantageOf = new Map<number, number>();
  // the reasoning row's advantage when it was trained, else the meta row's
  for (const r of rows) if (r.role === 'meta' && !advantageOf.has(r.episode)) advantageOf.set(r.episode, r.advantage);
  for (const r of rows) if (r.role === 'reasoning') advantageOf.set(r.episode, r.advantage);
  return scored.map((s, i) => {
    const e = s.episode;
    return {
      step,
      group: e.group,
      sample: e.sample,
      question: e.problem.question,
      gold: e.problem.answer,
      turns: e.messages
        .filter((m) => !m.dummy)
        .map((m) => ({ role: m.role, text: m.text, tokens: m.generated, truncated: m.truncated, ...perToken.get(m) })),
      reward: s.reward.reasoning,
      advantage: advantageOf.get(i) ?? 0,
      correct: s.grade.correct,
      finish_reason: e.finish!,
      ...(s.grade.extracted !== undefined ? { extracted: s.grade.extracted } : {}),
    };
  });
}

export interface EpisodeStats {
  accuracy: number;
  len_meta_mean: number;
  len_reason_mean: number;
  turns_mean: number;
  finish_reasons: Record<FinishReason, number>;
}

export function episodeStats(scored: readonly ScoredEpisode[]): EpisodeStats {
  const finish: Record<FinishReason, number> = {
    finished: 0,
    reach_max_turn: 0,
    stop_when_truncated: 0,
    completion_token_exceeded: 0,
  };
  let correct = 0;
  const len = { meta: { sum: 0, n: 0 }, reasoning: { sum: 0, n: 0 } };
  let turns = 0;
  for (const s of scored) {
    const e = s.episode;
    finish[e.finish!] += 1;
    if (s.grade.correct) correct += 1;
    let rounds = 0;
    for (const m of e.messages) {
      if (m.dummy) continue;
      len[m.role].sum += m.generated;
      len[m.role].n += 1;
      if (m.role === 'meta' || e.kind === 'single') rounds += 1;
    }
    turns += rounds;
  }
  const n = Math.max(scored.length, 1);
  return {
    accuracy: correct / n,
    len_meta_mean: len.meta.n > 0 ? len.meta.sum / len.meta.n : 0,
    len_reason_mean: len.reasoning.n > 0 ? len.reasoning.sum / len.reasoning.n : 0,
    turns_mean: turns / n,
    finish_reasons: finish,
  };
}
