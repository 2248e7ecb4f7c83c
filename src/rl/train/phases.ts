// Algorithm 1 as written (paper §3.2.1, App. D.1), for single-turn ReMA with separate parameters and
// config.phaseEpochs > 0: training runs in phases, each training one agent while its partner is frozen.
//  - At a phase's start its dataset is built once: every training problem is probed with probeSamples episodes,
//    separate from the training samples (reasoning phase: one greedy plan answered probeSamples times at the
//    rollout temperature; meta phase: probeSamples sampled plans, each answered greedily), and the problems whose
//    success rate lies in [filterEpsMin, filterEpsMax] are kept (all of them without filterGroups, and no probe).
//  - The phase then makes phaseEpochs passes over the kept problems, problemsPerStep per step, in a seeded order per
//    pass, each step sampling fresh rollouts. In the reasoning phase the frozen meta agent samples planSamples plans
//    per problem at the rollout temperature (0: one greedy plan), each answered groupSize times.
//  - Then the other agent's phase (a frozen external agent: the same agent every phase).
// The phase (agent, kept problems, steps done) is part of the trainer state, so a resumed run continues inside it.

import type { AgentRole, ExperimentConfig } from '../config.ts';
import { Rng } from '../../util/rng.ts';
import { deriveSeed } from '../protocol/rollout.ts';
import type { StepPlan } from './episodes.ts';

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
const STREAM = { probe: 4, order: 5 } as const;

export function usesPhases(config: ExperimentConfig): boolean {
  return config.phaseEpochs > 0 && config.mode === 'single-turn' && config.paramMode === 'separate';
}

/** The agent of phase `index`: alternating from startAgent; with a frozen agent always the other one. */
export function phaseAgent(config: ExperimentConfig, index: number): AgentRole {
  if (config.frozenAgent !== 'none') return config.frozenAgent === 'meta' ? 'reasoning' : 'meta';
  const start = config.startAgent === 'meta' ? 0 : 1;
  return (index + start) % 2 === 0 ? 'meta' : 'reasoning';
}

/** Steps a phase with `kept` problems lasts: phaseEpochs passes of ceil(kept / problemsPerStep) steps. */
export function phaseSteps(config: ExperimentConfig, kept: number): number {
  return Math.ceil(kept / config.problemsPerStep) * config.phaseEpochs;
}

export function phaseDone(config: ExperimentConfig, phase: PhaseState): boolean {
  return phase.step >= phaseSteps(config, phase.problems.length);
}

/** The training-set indices for the phase's next step: a slice of this pass's seeded order of the kept problems. */
export function phaseBatch(config: ExperimentConfig, phase: PhaseState): number[] {
  const perPass = Math.ceil(phase.problems.length / config.problemsPerStep);
  const pass = Math.floor(phase.step / perPass);
  const at = (phase.step % perPass) * config.problemsPerStep;
  const order = new Rng(deriveSeed(config.seed, STREAM.order, phase.index * 4096 + pass)).shuffle([...phase.problems]);
  return order.slice(at, at + config.problemsPerStep);
}

/** Sampling seed of phase `index`'s probe. */
export function probeSeed(config: ExperimentConfig, index: number): number {
  return deriveSeed(config.seed, STREAM.probe, index);
}

/** Who samples and who decodes greedily in the probe of `agent`'s phase (Algorithm 1's dataset construction). */
export function probePlan(agent: AgentRole): Pick<StepPlan, 'greedy' | 'onePlanPerGroup'> {
  return agent === 'reasoning'
    ? { greedy: { meta: true, reasoning: false }, onePlanPerGroup: true }
    : { greedy: { meta: false, reasoning: true }, onePlanPerGroup: false };
}

/** The plan of a training step in `agent`'s phase; the reasoning phase samples planSamples plans when > 0. */
export function phaseStepPlan(config: ExperimentConfig, agent: AgentRole): StepPlan {
  if (agent === 'meta')
    return {
      trained: ['meta'],
      trainedLabel: 'meta',
      greedy: { meta: false, reasoning: true },
      onePlanPerGroup: false,
    };
  return {
    trained: ['reasoning'],
    trainedLabel: 'reasoning',
    greedy: { meta: config.planSamples === 0, reasoning: false },
    onePlanPerGroup: true,
  };
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
