// Which agents act and train at a step, how one step's (or one evaluation's) episodes are rolled out for each
// protocol mode, and what each agent earns. The parameter modes:
//  - shared: one set of weights for both agents; both train every step (ReMA code).
//  - separate, multi-turn: both agents roll out with their own adapters; only the current agent trains, and the
//    current agent switches every `switchEvery` steps (code algorithm.switch_agent).
//  - separate, single-turn: paper Algorithm 1: the current agent samples and trains while its frozen partner
//    decodes greedily (reasoning phase: one greedy plan per problem answered groupSize times; meta phase:
//    groupSize plans each answered once, or config.metaFollowers times at the rollout temperature); groups outside
//    the success-rate window are dropped (filter.ts).
//  - single-turn, whenever the meta agent trains (separate or shared): config.metaFollowers reasoning answers per
//    plan, which its reward averages (or whose agreement the consistency reward takes; App. C.2).
//  - a frozen agent (config.frozenAgent, run by another model): never trains; shared mode trains the shared weights
//    on the other agent's turns only, separate mode always trains the other agent (single-turn: Algorithm 1's phase
//    of that agent at every step, the frozen partner decoding greedily).

import type { Problem } from '../../data/problem.ts';
import type { SamplingParams } from '../../engine/policy/policy.ts';
import type { AgentRole, ExperimentConfig } from '../config.ts';
import { gradeAnswers, leaksAnswer, type Grade } from '../grade.ts';
import type { AnswerChecker } from '../verifier/checker.ts';
import {
  baseMetaReward,
  baseReasoningReward,
  binaryReward,
  consistencyMetaReward,
  multiTurnReward,
} from '../rewards.ts';
import { finalAnswerText, messagesOf, type Episode } from '../protocol/episode.ts';
import {
  multiTurnRollout,
  singleAgentRollout,
  singleTurnRollout,
  type PlanTurn,
  type RolloutSettings,
} from '../protocol/rollout.ts';

export interface StepPlan {
  /** agents whose rows are trained this step */
  trained: AgentRole[];
  /** the adapter name that is trained, for the metrics record ("shared", "meta", "reasoning", "full") */
  trainedLabel: string;
  greedy: Record<AgentRole, boolean>;
  /** Algorithm 1 reasoning phase: one plan per problem */
  onePlanPerGroup: boolean;
  /** reasoning answers per plan (config.metaFollowers when the meta agent trains in single-turn mode, else 1) */
  followers: number;
}

/** Reasoning answers per plan at a step training `trained`: metaFollowers when the single-turn meta agent trains. */
export function followersFor(config: ExperimentConfig, trained: readonly AgentRole[]): number {
  return config.mode === 'single-turn' && trained.includes('meta') ? config.metaFollowers : 1;
}

export function isTwoAgent(config: ExperimentConfig): boolean {
  return config.mode === 'multi-turn' || config.mode === 'single-turn';
}

/** The agents that can train: both, less a frozen one (config.frozenAgent). */
export function trainableRoles(config: ExperimentConfig): AgentRole[] {
  return (['meta', 'reasoning'] as const).filter((r) => r !== config.frozenAgent);
}

/**
 * The agent trained at 0-based step `k` in separate mode: (k // switchEvery + start) % 2, as the code. With a
 * frozen agent the alternation degenerates: the other agent trains at every step.
 */
export function currentAgent(config: ExperimentConfig, k: number): AgentRole {
  if (config.frozenAgent !== 'none') return config.frozenAgent === 'meta' ? 'reasoning' : 'meta';
  const start = config.startAgent === 'meta' ? 0 : 1;
  return (Math.floor(k / config.switchEvery) + start) % 2 === 0 ? 'meta' : 'reasoning';
}

export function stepPlan(config: ExperimentConfig, k: number, sharedAdapter: string): StepPlan {
  const sampled = { meta: false, reasoning: false };
  if (!isTwoAgent(config))
    return {
      trained: ['reasoning'],
      trainedLabel: sharedAdapter,
      greedy: sampled,
      onePlanPerGroup: false,
      followers: 1,
    };
  if (config.paramMode === 'shared') {
    const trained = trainableRoles(config);
    const followers = followersFor(config, trained);
    return { trained, trainedLabel: sharedAdapter, greedy: sampled, onePlanPerGroup: false, followers };
  }
  const agent = currentAgent(config, k);
  if (config.mode === 'multi-turn')
    return { trained: [agent], trainedLabel: agent, greedy: sampled, onePlanPerGroup: false, followers: 1 };
  return singleTurnAgentPlan(config, agent);
}

/**
 * A single-turn separate-mode step training `agent` (Algorithm 1): the partner decodes greedily, except the
 * reasoning answers to a meta plan when there are several per plan (metaFollowers), which sample.
 */
export function singleTurnAgentPlan(config: ExperimentConfig, agent: AgentRole): StepPlan {
  const followers = followersFor(config, [agent]);
  return {
    trained: [agent],
    trainedLabel: agent,
    greedy: { meta: agent !== 'meta', reasoning: agent !== 'reasoning' && followers === 1 },
    onePlanPerGroup: agent === 'reasoning',
    followers,
  };
}

/** groupSize episodes per problem, in problem order */
export function freshEpisodes(problems: readonly Problem[], groupSize: number, kind: Episode['kind']): Episode[] {
  const out: Episode[] = [];
  problems.forEach((problem, group) => {
    for (let sample = 0; sample < groupSize; sample++)
      out.push({ problem, group, sample, kind, messages: [], finish: null });
  });
  return out;
}

/** Rolls out every episode with the mode's protocol; `sampling` is the training sampler (greedy roles use temperature 0). */
export async function runEpisodes(
  s: RolloutSettings,
  config: ExperimentConfig,
  episodes: Episode[],
  sampling: SamplingParams,
  plan: Pick<StepPlan, 'greedy' | 'onePlanPerGroup'> & Partial<Pick<StepPlan, 'followers'>>,
  given?: readonly PlanTurn[],
): Promise<void> {
  const greedy: SamplingParams = { temperature: 0, topP: 1, topK: 0, seed: sampling.seed };
  const byRole = {
    meta: plan.greedy.meta ? greedy : sampling,
    reasoning: plan.greedy.reasoning ? greedy : sampling,
  };
  if (config.mode === 'multi-turn') await multiTurnRollout(s, episodes, byRole);
  else if (config.mode === 'single-turn')
    await singleTurnRollout(s, episodes, byRole, {
      onePlanPerGroup: plan.onePlanPerGroup,
      followers: plan.followers ?? 1,
      ...(given ? { given } : {}),
    });
  else await singleAgentRollout(s, episodes, sampling);
}

export interface ScoredEpisode {
  episode: Episode;
  grade: Grade;
  /** what each agent earns (single-agent modes: only `reasoning` is meaningful; meta mirrors it) */
  reward: Record<AgentRole, number>;
}

/** Grades every episode's final answer through `checker` (the batch the reward step then scores). */
export function gradeEpisodes(
  config: ExperimentConfig,
  episodes: readonly Episode[],
  checker: AnswerChecker,
): Promise<Grade[]> {
  return gradeAnswers(
    episodes.map((e) => ({ problem: e.problem, text: finalAnswerText(e, config.overflowAnswer === 'empty') })),
    checker,
  );
}

/**
 * Applies the mode's reward rule (rewards.ts) to the episodes' grades (from gradeEpisodes, which the trainer awaits
 * first; grade-in-thread.ts's scoreEpisodes grades on the caller's thread).
 */
export function scoreGraded(
  config: ExperimentConfig,
  episodes: readonly Episode[],
  onePlanPerGroup: boolean,
  grades: readonly Grade[],
): ScoredEpisode[] {
  if (grades.length !== episodes.length)
    throw new Error(`scoreGraded: ${grades.length} grades for ${episodes.length} episodes`);
  return episodes.map((e, i) => {
    const g = grades[i];
    if (config.mode === 'multi-turn') {
      const r = multiTurnReward(g.correct, e.finish!, config.maskUnfinishedReward);
      return { episode: e, grade: g, reward: { meta: r, reasoning: r } };
    }
    // "consistency" changes only the meta agent's reward; the reasoning agent keeps the base reward
    const base = config.singleTurnReward !== 'binary';
    const reasoning = base ? baseReasoningReward(g.correct, g.hasFormat) : binaryReward(g.correct);
    if (config.mode !== 'single-turn') return { episode: e, grade: g, reward: { meta: reasoning, reasoning } };
    // the meta agent earns the mean correctness of the reasoning samples that followed its plan
    const group = grades.filter(
      (_, j) => episodes[j].group === e.group && (onePlanPerGroup || samePlan(episodes[j], e)),
    );
    const followers = group.map((x) => x.correct);
    const plan = messagesOf(e, 'meta')[0]?.text ?? '';
    const leak = leaksAnswer(e.problem, plan);
    const meta =
      config.singleTurnReward === 'consistency'
        ? consistencyMetaReward(
            group.map((x) => x.extracted),
            leak,
          )
        : base
          ? baseMetaReward(followers, leak)
          : followers.filter(Boolean).length / followers.length;
    return { episode: e, grade: g, reward: { meta, reasoning } };
  });
}

/** Two episodes of one group answer the same plan: the same episode, or followers of one plan (Episode.follower). */
function samePlan(a: Episode, b: Episode): boolean {
  if (a === b) return true;
  return a.follower !== undefined && b.follower !== undefined && a.sample - a.follower === b.sample - b.follower;
}

/**
 * Success-rate filter (paper Algorithm 1, App. D.1): the groups (problems) whose fraction of correct episodes
 * lies in [epsMin, epsMax]. Returns the kept group indices.
 */
export function groupsInWindow(scored: readonly ScoredEpisode[], epsMin: number, epsMax: number): Set<number> {
  const tally = new Map<number, { n: number; correct: number }>();
  for (const s of scored) {
    const t = tally.get(s.episode.group) ?? { n: 0, correct: 0 };
    t.n += 1;
    t.correct += s.grade.correct ? 1 : 0;
    tally.set(s.episode.group, t);
  }
  const kept = new Set<number>();
  for (const [g, t] of tally) {
    const rate = t.correct / t.n;
    if (rate >= epsMin && rate <= epsMax) kept.add(g);
  }
  return kept;
}
