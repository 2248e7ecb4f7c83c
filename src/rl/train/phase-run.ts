// Algorithm 1's phases as a run meets them (the phase arithmetic is in phases.ts): starting a phase (its probe
// keeps the problems in the success-rate range), the reasoning phase's plan set written by the frozen meta agent,
// and the end of the run after config.updateIterations pairs of phases.
import type { Problem } from '../../data/problem.ts';
import type { SamplingParams } from '../../engine/policy/policy.ts';
import type { ExperimentConfig } from '../config.ts';
import { planTurns, type PlanTurn } from '../protocol/rollout.ts';
import { ContextTally } from './context.ts';
import { freshEpisodes, gradeEpisodes, groupsInWindow, runEpisodes, scoreGraded } from './episodes.ts';
import {
  iterationsDone,
  phaseAgent,
  phaseDone,
  planSetSeed,
  plansPerProblem,
  probePlan,
  probeSeed,
  usesPhases,
  type PhaseState,
} from './phases.ts';
import { rolloutSettings, type RunContext } from './run-context.ts';
import type { TrainerState } from './types.ts';

/** Why the run is over before `steps`: Algorithm 1's update iterations are done (config.updateIterations). */
export function runOver(config: ExperimentConfig, state: TrainerState): string | null {
  if (!usesPhases(config) || !iterationsDone(config, state.phase)) return null;
  return `Algorithm 1: ${config.updateIterations} update iteration${config.updateIterations > 1 ? 's' : ''} done (${2 * config.updateIterations} phases) at step ${state.step}`;
}

/**
 * Starts Algorithm 1 phase `index`: with filterGroups, probes every training problem with probeSamples episodes
 * (not trained on) and keeps those in the success-rate range.
 */
async function startPhase(ctx: RunContext, atStep: number, index: number): Promise<PhaseState> {
  const { config, train } = ctx;
  const agent = phaseAgent(config, index);
  const all = train.map((_, i) => i);
  if (!config.filterGroups) return { index, agent, problems: all, probed: 0, step: 0 };
  const eps = freshEpisodes(train, config.probeSamples, 'two-agent');
  const sampling: SamplingParams = {
    temperature: config.temperature,
    topP: config.topP,
    topK: config.topK,
    seed: probeSeed(config, index),
  };
  const probePlanned = probePlan(agent);
  await runEpisodes(
    rolloutSettings(ctx, atStep, 'rollout', new ContextTally(), eps),
    config,
    eps,
    sampling,
    probePlanned,
  );
  const graded = scoreGraded(config, eps, probePlanned.onePlanPerGroup, await gradeEpisodes(config, eps, ctx.checker));
  const kept = groupsInWindow(graded, config.filterEpsMin, config.filterEpsMax);
  const problems = all.filter((i) => kept.has(i));
  ctx.emit({
    type: 'log',
    step: atStep,
    message: `phase ${index + 1} (${agent} agent): the probe (${config.probeSamples} samples per problem) kept ${problems.length} of ${train.length} problems with a success rate in [${config.filterEpsMin}, ${config.filterEpsMax}]`,
  });
  return { index, agent, problems, probed: train.length, step: 0 };
}

/**
 * Starts the phase after `previous` (the first when there is none). An empty phase, with no problem in the range,
 * hands over to the other agent's at once, once.
 */
export async function nextPhase(
  ctx: RunContext,
  atStep: number,
  previous: PhaseState | undefined,
): Promise<PhaseState> {
  const phase = await startPhase(ctx, atStep, previous ? previous.index + 1 : 0);
  return phaseDone(ctx.config, phase) ? startPhase(ctx, atStep, phase.index + 1) : phase;
}

/** The reasoning phase's plan set (Algorithm 1's D_l), written once per phase and again after a restore. */
export class PhasePlans {
  private written: { index: number; plans: PlanTurn[] } | null = null;

  /** forgets the plan set (a restored run writes it again from the restored phase and weights) */
  clear(): void {
    this.written = null;
  }

  /**
   * The frozen meta agent writes plansPerProblem plans for each problem the phase kept, at the rollout temperature
   * (one greedy plan with planSamples 0), once per phase and from the phase's own seed.
   */
  async plans(ctx: RunContext, atStep: number, phase: PhaseState): Promise<PlanTurn[]> {
    if (this.written?.index === phase.index) return this.written.plans;
    const { config } = ctx;
    const per = plansPerProblem(config, phase.agent);
    const problems = phase.problems.flatMap((i) => Array<Problem>(per).fill(ctx.train[i]));
    const eps = freshEpisodes(problems, 1, 'two-agent');
    const sampling: SamplingParams = {
      temperature: config.planSamples > 0 ? config.temperature : 0,
      topP: config.topP,
      topK: config.topK,
      seed: planSetSeed(config, phase.index),
    };
    const plans = await planTurns(rolloutSettings(ctx, atStep, 'rollout', new ContextTally(), eps), eps, sampling);
    this.written = { index: phase.index, plans };
    ctx.emit({
      type: 'log',
      step: atStep,
      message: `phase ${phase.index + 1} (reasoning agent): the frozen meta agent wrote ${per} plan${per > 1 ? 's' : ''} for each of ${phase.problems.length} kept problems: ${plans.length} (question, plan) prompts, ${config.problemsPerStep} per step`,
    });
    return plans;
  }
}
