// The rollout stage of a step: which prompts it answers (the next problemsPerStep of the seeded data order, or the
// next slice of the current Algorithm 1 phase's dataset with its plans) and their episodes, groupSize (times the
// followers of a plan) per prompt, rolled out with the step's sampling seed.
import type { Problem } from '../../data/problem.ts';
import type { SamplingParams } from '../../engine/policy/policy.ts';
import { Rng } from '../../util/rng.ts';
import type { ExperimentConfig } from '../config.ts';
import type { Episode } from '../protocol/episode.ts';
import { deriveSeed, type PlanTurn } from '../protocol/rollout.ts';
import type { ContextTally } from './context.ts';
import { freshEpisodes, isTwoAgent, runEpisodes, type StepPlan } from './episodes.ts';
import type { PhasePlans } from './phase-run.ts';
import { phaseBatch, phaseDone, type PhaseState } from './phases.ts';
import { rolloutSettings, type RunContext } from './run-context.ts';
import { STREAM } from './streams.ts';
import type { TrainerState } from './types.ts';

function epochOrder(config: ExperimentConfig, train: readonly Problem[], epoch: number): number[] {
  return new Rng(deriveSeed(config.seed, STREAM.order, epoch)).shuffle(train.map((_, i) => i));
}

/** The next problemsPerStep problems of the seeded order, crossing epoch boundaries; advances state's cursor. */
function takeProblems(config: ExperimentConfig, train: readonly Problem[], state: TrainerState): Problem[] {
  const out: Problem[] = [];
  let order = epochOrder(config, train, state.epoch);
  while (out.length < config.problemsPerStep) {
    if (state.cursor >= order.length) {
      state.epoch += 1;
      state.cursor = 0;
      order = epochOrder(config, train, state.epoch);
    }
    out.push(train[order[state.cursor]]);
    state.cursor += 1;
  }
  return out;
}

/**
 * The step's episodes, rolled out. Without a phase the problems come from the data order (advancing `state`);
 * in a phase from its dataset, and the reasoning agent's phase answers its plan set: one GRPO group of groupSize
 * answers per (question, plan).
 */
export async function rolloutStage(
  ctx: RunContext,
  stepNo: number,
  state: TrainerState,
  phase: PhaseState | null,
  phasePlans: PhasePlans,
  plan: StepPlan,
  tally: ContextTally,
): Promise<Episode[]> {
  const { config, train } = ctx;
  const batch = phase && !phaseDone(config, phase) ? phaseBatch(config, phase) : [];
  const problems = phase ? batch.map((b) => train[b.problem]) : takeProblems(config, train, state);
  const plans: PlanTurn[] | undefined =
    phase?.agent === 'reasoning' && batch.length > 0
      ? await phasePlans.plans(ctx, stepNo, phase).then((all) => batch.map((b) => all[b.plan]))
      : undefined;
  const eps = freshEpisodes(problems, config.groupSize * plan.followers, isTwoAgent(config) ? 'two-agent' : 'single');
  const sampling: SamplingParams = {
    temperature: config.temperature,
    topP: config.topP,
    topK: config.topK,
    seed: deriveSeed(config.seed, STREAM.rollout, stepNo),
  };
  await runEpisodes(rolloutSettings(ctx, stepNo, 'rollout', tally, eps), config, eps, sampling, plan, plans);
  return eps;
}
