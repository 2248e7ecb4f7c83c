// A step's metrics record (one line of metrics.jsonl, one point of each chart) assembled from what its stages
// returned, and the notes the record raises for the driver's log: divergence, values clamped into the f16 KV cache,
// episodes cut by the model's context.
import type { ExperimentConfig } from '../config.ts';
import { meanAndStd } from '../losses/advantages.ts';
import { kvClampMessage, type MetricsRecord, type StageTimes } from '../metrics.ts';
import { actionStats } from '../protocol/json-actions/actions.ts';
import { contextMessage, type ContextFields } from './context.ts';
import { divergenceMessage } from './divergence.ts';
import type { StepPlan } from './episodes.ts';
import { episodeStats } from './records.ts';
import type { ScoredStep } from './reward-stage.ts';
import type { EvalResult } from './types.ts';
import { needsOldLogProbs, type UpdateStats } from './update.ts';

export interface StepOutcome {
  step: number;
  plan: StepPlan;
  /** the reward stage's episodes and rows */
  scoring: ScoredStep;
  /** the advantage stage's fraction of groups whose rewards were all equal */
  fracZeroStd: number;
  /** the update stage's statistics; null when no row trained */
  update: UpdateStats | null;
  /** consecutive steps with non-finite numbers up to and including this one (0: this step's were finite) */
  streak: number;
  times: StageTimes;
  evalResult: EvalResult | null;
  context: ContextFields;
  /** values clamped into the f16 KV cache during this step */
  kvClamped: number;
}

export function stepMetrics(config: ExperimentConfig, o: StepOutcome): MetricsRecord {
  const { scored, rows } = o.scoring;
  const upd = o.update;
  const rewards = scored.flatMap((s) => o.plan.trained.map((role) => s.reward[role]));
  const { mean, std } = meanAndStd(rewards);
  return {
    step: o.step,
    reward_mean: mean,
    reward_std: Number.isNaN(std) ? 0 : std,
    ...episodeStats(scored),
    kl: upd?.kl ?? 0,
    entropy: upd?.entropy ?? 0,
    clip_frac_low: upd?.clipFracLow ?? 0,
    clip_frac_high: upd?.clipFracHigh ?? 0,
    ...(upd && needsOldLogProbs(config) ? { ratio_std: upd.ratioStd } : {}),
    grad_norm: upd?.gradNorm ?? 0,
    frac_zero_std_groups: o.fracZeroStd,
    time_s: o.times,
    lr: upd?.lr ?? 0,
    trained: o.plan.trainedLabel,
    loss: upd?.loss ?? 0,
    frac_filtered_groups: o.scoring.fracFiltered,
    rows_trained: rows.length,
    tokens_trained: rows.reduce((a, r) => a + r.positions.length, 0),
    ...(o.evalResult ? { eval_accuracy: o.evalResult.accuracy, eval_reward_mean: o.evalResult.reward_mean } : {}),
    ...o.context,
    ...(o.kvClamped > 0 ? { kv_cache_clamped: o.kvClamped } : {}),
    ...(config.metaActions === 'json' ? actionStats(scored.map((s) => s.episode)) : {}),
    ...(o.streak > 0
      ? {
          nonfinite: true as const,
          nonfinite_quantities: upd?.nonfinite ?? [],
          nonfinite_streak: o.streak,
          updates_skipped: upd?.skippedUpdates ?? 0,
        }
      : {}),
  };
}

/** The log lines a step's record raises, in the order the driver shows them. */
export function stepNotes(config: ExperimentConfig, m: MetricsRecord, episodes: number): string[] {
  const notes: string[] = [];
  if (m.nonfinite) notes.push(divergenceMessage(m, config));
  if (m.kv_cache_clamped) notes.push(kvClampMessage(m.kv_cache_clamped, `step ${m.step}`));
  if (m.context_limited) notes.push(contextMessage(m, episodes, config.maxTokensPerTurn, `step ${m.step}`));
  return notes;
}
