// The reward stage of a step: the episodes' final answers graded and scored with the mode's reward rule, the
// success-rate filter of the schedule without Algorithm 1 phases, and the training rows built from what is kept
// (ordered by length so the engine's padded chunks waste little; the loss does not depend on the order).
import type { Episode } from '../protocol/episode.ts';
import { gradeEpisodes, groupsInWindow, scoreGraded, type ScoredEpisode, type StepPlan } from './episodes.ts';
import type { PhaseState } from './phases.ts';
import { buildRows, type TrainRow } from './rows.ts';
import type { RunContext } from './run-context.ts';
import { sortByLength } from './update.ts';

export interface ScoredStep {
  /** the step's episodes with their grades and rewards, in rollout order */
  scored: ScoredEpisode[];
  /** every row of the kept groups, those without trained tokens included (the group statistics, groupStatsRows "all") */
  statRows: TrainRow[];
  /** the rows that train: those of statRows with trained tokens, shortest first */
  rows: TrainRow[];
  /** fraction of problems the success-rate filter dropped (the phase's probe in Algorithm 1) */
  fracFiltered: number;
}

export async function rewardStage(
  ctx: RunContext,
  episodes: readonly Episode[],
  plan: StepPlan,
  phase: PhaseState | null,
): Promise<ScoredStep> {
  const { config } = ctx;
  const scored = scoreGraded(
    config,
    episodes,
    plan.onePlanPerGroup,
    await gradeEpisodes(config, episodes, ctx.checker),
  );
  // the schedule without phases filters the step's own samples; Algorithm 1 phases filtered in the probe
  const kept = config.filterGroups && !phase ? groupsInWindow(scored, config.filterEpsMin, config.filterEpsMax) : null;
  const groups = new Set(scored.map((s) => s.episode.group)).size;
  const statRows = buildRows(
    ctx.tokenizer,
    ctx.prompts,
    scored,
    plan.trained,
    (s) => kept === null || kept.has(s.episode.group),
    ctx.adapterFor,
    config.groupStatsRows === 'all',
    ctx.endToken,
  );
  const rows = sortByLength(statRows.filter((r) => r.positions.length > 0));
  const fracFiltered = phase
    ? phase.probed > 0
      ? 1 - phase.problems.length / phase.probed
      : 0
    : kept === null
      ? 0
      : 1 - kept.size / groups;
  return { scored, statRows, rows, fracFiltered };
}
