// Algorithm 1 as written (paper §3.2.1, App. D.1), for single-turn ReMA with separate parameters and
// config.phaseEpochs > 0: training runs in phases, each training one agent while its partner is frozen.
//  - At a phase's start its dataset is built once: every training problem is probed with probeSamples episodes,
//    separate from the training samples (reasoning phase: one greedy plan answered probeSamples times at the
//    rollout temperature; meta phase: probeSamples sampled plans, each answered greedily), and the problems whose
//    success rate lies in [filterEpsMin, filterEpsMax] are kept (all of them without filterGroups, and no probe).
//    In the reasoning phase the frozen meta agent then writes planSamples plans per kept problem at the rollout
//    temperature (0: one greedy plan): the phase's dataset is those (question, plan) prompts (D_l).
//  - The phase then makes phaseEpochs passes over its dataset, problemsPerStep prompts per step, in a seeded order
//    per pass, each step sampling fresh answers (reasoning phase: groupSize per plan, a GRPO group each; meta
//    phase: groupSize fresh plans per question).
//  - Then the other agent's phase (a frozen external agent: the same agent every phase). updateIterations ends the
//    run after that many pairs of phases.
// The phase (agent, kept problems, steps done) is part of the trainer state, so a resumed run continues inside it;
// the reasoning phase's plans are not saved but written again, from the same seed and frozen weights.

import type { AgentRole, ExperimentConfig } from '../config.ts';
import { Rng } from '../../util/rng.ts';
import { deriveSeed } from '../protocol/rollout.ts';
import { singleTurnAgentPlan, type StepPlan } from './episodes.ts';

export interface PhaseState {
  /** 0-based phase number */
  index: number;
  agent: AgentRole;
  /** indices into the training set of the problems the probe kept, ascending */
  problems: number[];
  /** problems probed (the training set's size) */
  probed: number;
  /** steps of this phase done so far */
  step: number;
}

/** Seed streams of the phases (the trainer uses 1-3). */
const STREAM = { probe: 4, order: 5, plans: 6 } as const;

export function usesPhases(config: ExperimentConfig): boolean {
  return config.phaseEpochs > 0 && config.mode === 'single-turn' && config.paramMode === 'separate';
}

/** The agent of phase `index`: alternating from startAgent; with a frozen agent always the other one. */
export function phaseAgent(config: ExperimentConfig, index: number): AgentRole {
  if (config.frozenAgent !== 'none') return config.frozenAgent === 'meta' ? 'reasoning' : 'meta';
  const start = config.startAgent === 'meta' ? 0 : 1;
  return (index + start) % 2 === 0 ? 'meta' : 'reasoning';
}

/** Plans per kept problem in `agent`'s phase dataset: planSamples (at least one) in the reasoning phase, else 1. */
export function plansPerProblem(config: ExperimentConfig, agent: AgentRole): number {
  return agent === 'reasoning' ? Math.max(1, config.planSamples) : 1;
}

/** Prompts in a phase's dataset: kept problems x plans per problem. */
export function phasePrompts(config: ExperimentConfig, phase: PhaseState): number {
  return phase.problems.length * plansPerProblem(config, phase.agent);
}

/** Steps a phase of `prompts` prompts lasts: phaseEpochs passes of ceil(prompts / problemsPerStep) steps. */
export function phaseSteps(config: ExperimentConfig, prompts: number): number {
  return Math.ceil(prompts / config.problemsPerStep) * config.phaseEpochs;
}

export function phaseDone(config: ExperimentConfig, phase: PhaseState): boolean {
  return phase.step >= phaseSteps(config, phasePrompts(config, phase));
}

/** Whether the run's update iterations (config.updateIterations pairs of phases) are all done. */
export function iterationsDone(config: ExperimentConfig, phase: PhaseState | undefined): boolean {
  return (
    config.updateIterations > 0 &&
    phase !== undefined &&
    phaseDone(config, phase) &&
    phase.index + 1 >= 2 * config.updateIterations
  );
}

/** One prompt of a phase's dataset: a training-set index and, in the reasoning phase, which of its plans. */
export interface PhasePrompt {
  problem: number;
  /** index into the phase's plan set (phase.problems order, plansPerProblem per problem); -1 in the meta phase */
  plan: number;
}

/** The prompts for the phase's next step: a slice of this pass's seeded order of the phase's dataset. */
export function phaseBatch(config: ExperimentConfig, phase: PhaseState): PhasePrompt[] {
  const per = plansPerProblem(config, phase.agent);
  const total = phasePrompts(config, phase);
  const perPass = Math.ceil(total / config.problemsPerStep);
  const pass = Math.floor(phase.step / perPass);
  const at = (phase.step % perPass) * config.problemsPerStep;
  const all = Array.from({ length: total }, (_, i) => i);
  const order = new Rng(deriveSeed(config.seed, STREAM.order, phase.index * 4096 + pass)).shuffle(all);
  return order.slice(at, at + config.problemsPerStep).map((i) => ({
    problem: phase.problems[Math.floor(i / per)],
    plan: phase.agent === 'reasoning' ? i : -1,
  }));
}

/** Sampling seed of phase `index`'s plan set (the reasoning phase's plans, written when it starts). */
export function planSetSeed(config: ExperimentConfig, index: number): number {
  return deriveSeed(config.seed, STREAM.plans, index);
}

/** Sampling seed of phase `index`'s probe. */
export function probeSeed(config: ExperimentConfig, index: number): number {
  return deriveSeed(config.seed, STREAM.probe, index);
}

/** Who samples and who decodes greedily in the probe of `agent`'s phase (Algorithm 1's dataset construction). */
export function probePlan(agent: AgentRole): Pick<StepPlan, 'greedy' | 'onePlanPerGroup' | 'followers'> {
  return agent === 'reasoning'
    ? { greedy: { meta: true, reasoning: false }, onePlanPerGroup: true, followers: 1 }
    : { greedy: { meta: false, reasoning: true }, onePlanPerGroup: false, followers: 1 };
}

/** The plan of a training step in `agent`'s phase; the reasoning phase answers the phase's plan set. */
export function phaseStepPlan(config: ExperimentConfig, agent: AgentRole): StepPlan {
  return singleTurnAgentPlan(config, agent);
}

const bad = (field: string, v: unknown) =>
  new Error(`trainer state: field "phase.${field}" is invalid, got ${JSON.stringify(v)}`);

/** Checks a restored phase (plain JSON from a checkpoint); returns it or throws naming the field. */
export function checkPhaseState(p: unknown, trainSize: number): PhaseState {
  if (typeof p !== 'object' || p === null) throw bad('', p);
  const s = p as Record<string, unknown>;
  for (const key of ['index', 'probed', 'step'] as const)
    if (!Number.isInteger(s[key]) || (s[key] as number) < 0) throw bad(key, s[key]);
  if (s.agent !== 'meta' && s.agent !== 'reasoning') throw bad('agent', s.agent);
  if (!Array.isArray(s.problems) || s.problems.some((i) => !Number.isInteger(i) || i < 0 || i >= trainSize))
    throw bad('problems', s.problems);
  return {
    index: s.index as number,
    agent: s.agent,
    problems: [...(s.problems as number[])],
    probed: s.probed as number,
    step: s.step as number,
  };
}
