// The plain records a step emits (metrics.ts): the rollout inspector's view of each episode (every turn of both
// agents, reward, advantage, verdict) and the episode statistics of the metrics record.

import type { FinishReason, RolloutRecord } from '../metrics.ts';
import type { ScoredEpisode } from './episodes.ts';
import type { TrainRow } from './rows.ts';

export function rolloutRecords(step: number, scored: readonly ScoredEpisode[], rows: readonly TrainRow[]): RolloutRecord[] {
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
        .map((m) => ({ role: m.role, text: m.text, tokens: m.generated, truncated: m.truncated })),
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
  const finish: Record<FinishReason, number> = { finished: 0, reach_max_turn: 0, stop_when_truncated: 0, completion_token_exceeded: 0 };
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
