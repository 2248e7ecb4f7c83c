// The RL trainer (its contract and types in train/types.ts, re-exported here). One step is a flat list of timed phases:
//   rollout  -> problems of this step x groupSize episodes with the mode's protocol (protocol/rollout.ts)
//   reward   -> grade the final answers, apply the reward rule, success-rate filter (train/episodes.ts)
//   old      -> log-probs of the trained positions under the rollout weights (skipped when fully on-policy)
//   ref      -> log-probs under the reference (adapters off), only when klBeta > 0
//   adv      -> GRPO / REINFORCE++ advantages per row (train/rows.ts)
//   update   -> mini-batches x epochs of loss coefficients, backward, optimiser steps (train/update.ts)
//   eval     -> greedy evaluation on the held-out set every evalEvery steps and on the last step
// Single-turn separate mode with config.phaseEpochs > 0 runs Algorithm 1's phases (train/phases.ts): a phase's
// first step probes the training set (not trained on) and keeps the problems in the success-rate range, and in the
// reasoning agent's phase the frozen meta agent writes the phase's plans for them; its steps then take their
// prompts from that dataset. config.updateIterations pairs of phases end the run (finished()).
// A frozen agent (config.frozenAgent, TrainerOptions.frozen) acts in rollout and eval with its own model and
// tokenizer and is left out of every later phase: rows are built for the trainable agents only.
// Divergence: a step whose update saw NaN / infinite numbers is flagged in its metrics (nonfinite, which
// quantities, the streak of such steps, skipped optimiser updates); after config.maxNonFiniteSteps of them in a
// row StepResult.stop tells the driver to end the run (train/divergence.ts words the message).
// A context shorter than the prompts: createTrainer refuses when even the shortest problem's first prompt fills it,
// and steps / evaluations count the episodes that ran into it (metrics context_limited; train/context.ts).
// All randomness comes from the config seed through counter-based seeds, so the same config, seed and backend
// give identical metrics, and a restored state continues exactly where the saved run stopped.

import type { Problem } from '../data/problem.ts';
import type { Policy, SamplingParams, TrainablePolicy } from '../engine/policy/policy.ts';
import { Rng } from '../util/rng.ts';
import type { AgentRole } from './config.ts';
import { meanAndStd } from './losses/advantages.ts';
import { kvClampMessage, type MetricsRecord, type PhaseTimes } from './metrics.ts';
import { runPrompts } from './prompts/json-actions.ts';
import { actionStats, metaActionConstraint } from './protocol/json-actions/actions.ts';
import { deriveSeed, planTurns, type PlanTurn, type RolloutSettings } from './protocol/rollout.ts';
import type { Episode } from './protocol/episode.ts';
import {
  freshEpisodes,
  gradeEpisodes,
  groupsInWindow,
  isTwoAgent,
  runEpisodes,
  scoreGraded,
  stepPlan,
} from './train/episodes.ts';
import { inThreadChecker } from './verifier/checker.ts';
import { episodeStats, rolloutRecords } from './train/records.ts';
import { checkFirstPromptFits, contextMessage, ContextTally } from './train/context.ts';
import { divergenceMessage } from './train/divergence.ts';
import { StepExplainer } from './train/explain.ts';
import { assignAdvantages, buildRows } from './train/rows.ts';
import { checkMetaActionCap, checkRunOptions, frozenActor } from './train/run-checks.ts';
import { checkedState } from './train/trainer-state.ts';
import {
  iterationsDone,
  phaseAgent,
  phaseBatch,
  phaseDone,
  phaseStepPlan,
  planSetSeed,
  plansPerProblem,
  probePlan,
  probeSeed,
  usesPhases,
  type PhaseState,
} from './train/phases.ts';
import { logprobTemperature, needsOldLogProbs, scoreRequests, sortByLength, updatePolicy } from './train/update.ts';
import type {
  EvalResult,
  Evaluator,
  EvaluatorOptions,
  PhaseName,
  StepResult,
  Trainer,
  TrainerOptions,
  TrainerState,
} from './train/types.ts';

export type {
  EvalResult,
  Evaluator,
  EvaluatorOptions,
  FrozenAgentOptions,
  PhaseName,
  StepResult,
  Trainer,
  TrainerEvent,
  TrainerOptions,
  TrainerState,
} from './train/types.ts';

const now = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/** Seeds used by the trainer, one stream per purpose. */
const STREAM = { order: 1, rollout: 2, minibatch: 3 } as const;

export function createTrainer(opts: TrainerOptions): Trainer {
  return createRun(opts, opts.policy, opts.policy.adapters, opts.policy);
}

/** Evaluations only (Trainer.evaluate) of a policy that may be frozen: the VRP baseline of an ONNX model, `rema eval`. */
export function createEvaluator(opts: EvaluatorOptions): Evaluator {
  const { config, evaluate } = createRun(opts, opts.policy, opts.adapters, null);
  return { config, evaluate };
}

/** The trainer over `policy` acting with `adapters`; `trainable` is the same policy when steps may train it. */
function createRun(
  opts: Omit<TrainerOptions, 'policy'>,
  policy: Policy,
  adapters: readonly string[],
  trainable: TrainablePolicy | null,
): Trainer {
  const { config, tokenizer, onEvent } = opts;
  const checker = opts.checker ?? inThreadChecker();
  const train = opts.train;
  const evalSet = config.evalSize > 0 ? opts.eval.slice(0, config.evalSize) : opts.eval;
  const task = checkRunOptions(config, train, evalSet, adapters);
  const jsonActions = config.metaActions === 'json';
  const prompts = runPrompts(config, task);
  const shared = adapters[0];
  const frozen = frozenActor(opts);
  const adapterFor = (role: AgentRole): string =>
    config.paramMode === 'separate' && isTwoAgent(config) ? role : shared;
  const maxContext = opts.maxContext ?? policy.contextLength ?? Number.POSITIVE_INFINITY;
  // the token trained after a finished message (config.endTokenTarget): eos as the code, else the template's own
  const endToken = config.endTokenTarget === 'eos' ? tokenizer.eosTokenId : undefined;

  const metaActor = frozen?.role === 'meta' ? frozen : { tokenizer, policy };
  checkMetaActionCap(config, metaActor.tokenizer, metaActor.policy.vocabSize);

  const firstRole: AgentRole = isTwoAgent(config) ? 'meta' : 'reasoning';
  const firstActor = frozen?.role === firstRole ? frozen : { tokenizer, maxContext };
  try {
    checkFirstPromptFits(
      [...train, ...evalSet],
      isTwoAgent(config) ? 'two-agent' : 'single',
      firstRole,
      firstActor.tokenizer,
      prompts,
      firstActor.maxContext,
      config.maxPromptTokens,
    );
  } catch (e) {
    throw new Error(`createTrainer: ${(e as Error).message}`, { cause: e });
  }

  let state: TrainerState = { version: 1, step: 0, cursor: 0, epoch: 0 };

  const emit = onEvent ?? (() => {});
  /** rollout settings for `episodes` (progress: how many of them are finished, and the tokens generated) */
  const settings = (
    atStep: number,
    phase: PhaseName,
    tally: ContextTally,
    episodes: readonly Episode[],
  ): RolloutSettings => ({
    policy,
    tokenizer,
    prompts,
    adapterFor,
    maxTurns: config.maxTurns,
    maxTokensPerTurn: config.maxTokensPerTurn,
    maxPromptTokens: config.maxPromptTokens,
    maxContext,
    stopWhenTruncated: config.stopWhenTruncated,
    overflowDummy: config.overflowAnswer === 'empty',
    onTokens: (tokens) =>
      emit({
        type: 'progress',
        step: atStep,
        phase,
        done: episodes.reduce((n, e) => n + (e.finish === null ? 0 : 1), 0),
        total: episodes.length,
        tokens,
      }),
    onContextLimit: tally.add,
    ...(frozen ? { frozen } : {}),
    ...(jsonActions ? { metaConstraint: metaActionConstraint } : {}),
  });

  function epochOrder(epoch: number): number[] {
    return new Rng(deriveSeed(config.seed, STREAM.order, epoch)).shuffle(train.map((_, i) => i));
  }

  /** the next problemsPerStep problems of the seeded order, crossing epoch boundaries */
  function takeProblems(): Problem[] {
    const out: Problem[] = [];
    let order = epochOrder(state.epoch);
    while (out.length < config.problemsPerStep) {
      if (state.cursor >= order.length) {
        state.epoch += 1;
        state.cursor = 0;
        order = epochOrder(state.epoch);
      }
      out.push(train[order[state.cursor]]);
      state.cursor += 1;
    }
    return out;
  }

  async function timed<T>(times: PhaseTimes, atStep: number, phase: PhaseName, fn: () => Promise<T> | T): Promise<T> {
    emit({ type: 'phase', step: atStep, phase });
    const t0 = now();
    const out = await fn();
    times[phase] += (now() - t0) / 1000;
    return out;
  }

  async function evaluate(): Promise<EvalResult> {
    const t0 = now();
    const atStep = state.step;
    if (evalSet.length === 0) throw new Error('evaluate: the evaluation set is empty');
    const episodes = freshEpisodes(evalSet, 1, isTwoAgent(config) ? 'two-agent' : 'single');
    const greedy: SamplingParams = { temperature: 0, topP: 1, topK: 0, seed: 0 };
    const tally = new ContextTally();
    await runEpisodes(settings(atStep, 'eval', tally, episodes), config, episodes, greedy, {
      greedy: { meta: true, reasoning: true },
      onePlanPerGroup: false,
    });
    const context = tally.fields();
    if (context.context_limited)
      emit({
        type: 'log',
        step: atStep,
        message: contextMessage(context, episodes.length, config.maxTokensPerTurn, `evaluation at step ${atStep}`),
      });
    const scored = scoreGraded(config, episodes, false, await gradeEpisodes(config, episodes, checker));
    const byLevel: Record<string, { n: number; accuracy: number }> = {};
    for (const s of scored) {
      const level = s.episode.problem.level ?? 'all';
      const b = (byLevel[level] ??= { n: 0, accuracy: 0 });
      b.n += 1;
      b.accuracy += s.grade.correct ? 1 : 0;
    }
    for (const b of Object.values(byLevel)) b.accuracy /= b.n;
    const stats = episodeStats(scored);
    return {
      step: atStep,
      accuracy: stats.accuracy,
      reward_mean: scored.reduce((a, s) => a + s.reward.reasoning, 0) / scored.length,
      n: scored.length,
      by_level: byLevel,
      rollouts: rolloutRecords(atStep, scored, []),
      time_s: (now() - t0) / 1000,
      ...context,
    };
  }

  /** The reasoning phase's plan set (written when the phase starts, or again after a restore), by phase index. */
  let planSet: { index: number; plans: PlanTurn[] } | null = null;

  /**
   * Algorithm 1's D_l: the frozen meta agent writes plansPerProblem plans for each problem the phase kept, at the
   * rollout temperature (one greedy plan with planSamples 0), once per phase and from the phase's own seed.
   */
  async function phasePlans(atStep: number, phase: PhaseState): Promise<PlanTurn[]> {
    if (planSet?.index === phase.index) return planSet.plans;
    const per = plansPerProblem(config, phase.agent);
    const problems = phase.problems.flatMap((i) => Array<Problem>(per).fill(train[i]));
    const eps = freshEpisodes(problems, 1, 'two-agent');
    const sampling: SamplingParams = {
      temperature: config.planSamples > 0 ? config.temperature : 0,
      topP: config.topP,
      topK: config.topK,
      seed: planSetSeed(config, phase.index),
    };
    const plans = await planTurns(settings(atStep, 'rollout', new ContextTally(), eps), eps, sampling);
    planSet = { index: phase.index, plans };
    emit({
      type: 'log',
      step: atStep,
      message: `phase ${phase.index + 1} (reasoning agent): the frozen meta agent wrote ${per} plan${per > 1 ? 's' : ''} for each of ${phase.problems.length} kept problems: ${plans.length} (question, plan) prompts, ${config.problemsPerStep} per step`,
    });
    return plans;
  }

  /** Why the run is over before `steps`: Algorithm 1's update iterations are done (config.updateIterations). */
  function finished(): string | null {
    if (!usesPhases(config) || !iterationsDone(config, state.phase)) return null;
    return `Algorithm 1: ${config.updateIterations} update iteration${config.updateIterations > 1 ? 's' : ''} done (${2 * config.updateIterations} phases) at step ${state.step}`;
  }

  /**
   * Starts Algorithm 1 phase `index` (train/phases.ts): with filterGroups, probes every training problem with
   * probeSamples episodes (not trained on) and keeps those in the success-rate range.
   */
  async function nextPhase(atStep: number, index: number): Promise<PhaseState> {
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
    await runEpisodes(settings(atStep, 'rollout', new ContextTally(), eps), config, eps, sampling, probePlanned);
    const graded = scoreGraded(config, eps, probePlanned.onePlanPerGroup, await gradeEpisodes(config, eps, checker));
    const kept = groupsInWindow(graded, config.filterEpsMin, config.filterEpsMax);
    const problems = all.filter((i) => kept.has(i));
    emit({
      type: 'log',
      step: atStep,
      message: `phase ${index + 1} (${agent} agent): the probe (${config.probeSamples} samples per problem) kept ${problems.length} of ${train.length} problems with a success rate in [${config.filterEpsMin}, ${config.filterEpsMax}]`,
    });
    return { index, agent, problems, probed: train.length, step: 0 };
  }

  async function step(): Promise<StepResult> {
    if (config.mode === 'vrp')
      throw new Error('mode "vrp" is evaluation only (no RL); use evaluate(), or mode "vrp-rl" to train');
    // createEvaluator hands out evaluate() only, so a step always has the policy it trains
    if (trainable === null) throw new Error('createEvaluator: an evaluator does not train');
    const learner = trainable;
    const k = state.step;
    const stepNo = k + 1;
    const times: PhaseTimes = { rollout: 0, reward: 0, old: 0, ref: 0, adv: 0, update: 0, eval: 0 };
    const clampsBefore = (await policy.kvCacheClamps?.()) ?? 0;
    const tally = new ContextTally();
    // Algorithm 1 phases: a new phase probes the training set first (timed with the rollout)
    const phased = usesPhases(config);
    const over = finished();
    if (over !== null) throw new Error(`step: the run is over: ${over}`);
    if (phased && (!state.phase || phaseDone(config, state.phase)))
      await timed(times, stepNo, 'rollout', async () => {
        state.phase = await nextPhase(stepNo, state.phase ? state.phase.index + 1 : 0);
        // an empty phase (no problem in the range) hands over to the other agent's at once, once
        if (phaseDone(config, state.phase)) state.phase = await nextPhase(stepNo, state.phase.index + 1);
      });
    const phase = phased ? state.phase! : null;
    const plan = phase ? phaseStepPlan(config, phase.agent) : stepPlan(config, k, shared);

    const episodes = await timed(times, stepNo, 'rollout', async () => {
      const batch = phase && !phaseDone(config, phase) ? phaseBatch(config, phase) : [];
      const problems = phase ? batch.map((b) => train[b.problem]) : takeProblems();
      // the reasoning agent's phase answers its plan set: one GRPO group of groupSize answers per (question, plan)
      const plans =
        phase?.agent === 'reasoning' && batch.length > 0
          ? await phasePlans(stepNo, phase).then((all) => batch.map((b) => all[b.plan]))
          : undefined;
      const eps = freshEpisodes(
        problems,
        config.groupSize * plan.followers,
        isTwoAgent(config) ? 'two-agent' : 'single',
      );
      const sampling: SamplingParams = {
        temperature: config.temperature,
        topP: config.topP,
        topK: config.topK,
        seed: deriveSeed(config.seed, STREAM.rollout, stepNo),
      };
      await runEpisodes(settings(stepNo, 'rollout', tally, eps), config, eps, sampling, plan, plans);
      return eps;
    });

    const { scored, statRows, rows, fracFiltered } = await timed(times, stepNo, 'reward', async () => {
      const graded = scoreGraded(
        config,
        episodes,
        plan.onePlanPerGroup,
        await gradeEpisodes(config, episodes, checker),
      );
      // the earlier schedule filters the step's own samples; Algorithm 1 phases filtered in the probe
      const kept =
        config.filterGroups && !phase ? groupsInWindow(graded, config.filterEpsMin, config.filterEpsMax) : null;
      const groups = new Set(graded.map((s) => s.episode.group)).size;
      // rows ordered by length so the engine's padded chunks waste little (the loss does not depend on the order)
      const all = buildRows(
        tokenizer,
        prompts,
        graded,
        plan.trained,
        (s) => kept === null || kept.has(s.episode.group),
        adapterFor,
        config.groupStatsRows === 'all',
        endToken,
      );
      // rows without trained tokens only count in the group statistics (groupStatsRows "all")
      const built = sortByLength(all.filter((r) => r.positions.length > 0));
      const filtered = phase
        ? phase.probed > 0
          ? 1 - phase.problems.length / phase.probed
          : 0
        : kept === null
          ? 0
          : 1 - kept.size / groups;
      return { scored: graded, statRows: all, rows: built, fracFiltered: filtered };
    });
    if (rows.length === 0)
      emit({
        type: 'log',
        step: stepNo,
        message: 'no rows to train this step (all groups filtered out or nothing trainable)',
      });

    if (rows.length > 0 && needsOldLogProbs(config))
      await timed(times, stepNo, 'old', async () => {
        const res = await policy.score(scoreRequests(rows), { temperature: logprobTemperature(config) });
        rows.forEach((r, i) => (r.oldLogp = res[i].logprobs));
      });
    if (rows.length > 0 && config.klBeta > 0)
      await timed(times, stepNo, 'ref', async () => {
        const res = await policy.score(scoreRequests(rows), {
          reference: true,
          temperature: logprobTemperature(config),
        });
        rows.forEach((r, i) => (r.refLogp = res[i].logprobs));
      });
    const fracZeroStd = await timed(times, stepNo, 'adv', () => assignAdvantages(statRows, config));
    // "Explain this step" (opts.explain): the chosen groups' coefficients and gradient norms during the update
    const explainer = opts.explain && rows.length > 0 ? new StepExplainer(opts.explain, statRows, rows, scored) : null;
    const upd = await timed(times, stepNo, 'update', () =>
      rows.length === 0
        ? null
        : updatePolicy(
            learner,
            config,
            rows,
            deriveSeed(config.seed, STREAM.minibatch, stepNo),
            (done, total) => emit({ type: 'progress', step: stepNo, phase: 'update', done, total }),
            explainer?.probe,
          ),
    );
    const explain =
      explainer && upd
        ? await explainer.finish(stepNo, learner, config, upd.gradNorm, (ids) => tokenizer.decode(ids))
        : null;
    const nonfinite = upd?.nonfinite ?? [];
    const streak = nonfinite.length > 0 ? (state.nonfiniteStreak ?? 0) + 1 : 0;
    state = {
      ...state,
      step: stepNo,
      ...(streak > 0 ? { nonfiniteStreak: streak } : {}),
      ...(phase ? { phase: { ...phase, step: phase.step + 1 } } : {}),
    };
    if (streak === 0) delete state.nonfiniteStreak;

    let evalResult: EvalResult | null = null;
    const evalNow =
      evalSet.length > 0 &&
      ((config.evalEvery > 0 && stepNo % config.evalEvery === 0) || stepNo === config.steps || finished() !== null);
    if (evalNow) evalResult = await timed(times, stepNo, 'eval', evaluate);

    const kvClamped = ((await policy.kvCacheClamps?.()) ?? 0) - clampsBefore;
    const rewards = scored.flatMap((s) => plan.trained.map((role) => s.reward[role]));
    const { mean, std } = meanAndStd(rewards);
    const metrics: MetricsRecord = {
      step: stepNo,
      reward_mean: mean,
      reward_std: Number.isNaN(std) ? 0 : std,
      ...episodeStats(scored),
      kl: upd?.kl ?? 0,
      entropy: upd?.entropy ?? 0,
      clip_frac_low: upd?.clipFracLow ?? 0,
      clip_frac_high: upd?.clipFracHigh ?? 0,
      ...(upd && needsOldLogProbs(config) ? { ratio_std: upd.ratioStd } : {}),
      grad_norm: upd?.gradNorm ?? 0,
      frac_zero_std_groups: fracZeroStd,
      time_s: times,
      lr: upd?.lr ?? 0,
      trained: plan.trainedLabel,
      loss: upd?.loss ?? 0,
      frac_filtered_groups: fracFiltered,
      rows_trained: rows.length,
      tokens_trained: rows.reduce((a, r) => a + r.positions.length, 0),
      ...(evalResult ? { eval_accuracy: evalResult.accuracy, eval_reward_mean: evalResult.reward_mean } : {}),
      ...tally.fields(),
      ...(kvClamped > 0 ? { kv_cache_clamped: kvClamped } : {}),
      ...(jsonActions ? actionStats(scored.map((s) => s.episode)) : {}),
      ...(streak > 0
        ? {
            nonfinite: true as const,
            nonfinite_quantities: nonfinite,
            nonfinite_streak: streak,
            updates_skipped: upd?.skippedUpdates ?? 0,
          }
        : {}),
    };
    const stop =
      streak > 0 && config.maxNonFiniteSteps > 0 && streak >= config.maxNonFiniteSteps
        ? divergenceMessage(metrics, config)
        : null;
    if (streak > 0) emit({ type: 'log', step: stepNo, message: divergenceMessage(metrics, config) });
    if (kvClamped > 0) emit({ type: 'log', step: stepNo, message: kvClampMessage(kvClamped, `step ${stepNo}`) });
    if (metrics.context_limited)
      emit({
        type: 'log',
        step: stepNo,
        message: contextMessage(metrics, episodes.length, config.maxTokensPerTurn, `step ${stepNo}`),
      });
    return {
      metrics,
      rollouts: rolloutRecords(stepNo, scored, rows, (ids) => tokenizer.decode(ids)),
      ...(evalResult ? { eval: evalResult } : {}),
      ...(stop ? { stop } : {}),
      ...(explain ? { explain } : {}),
    };
  }

  return {
    config,
    step,
    evaluate,
    finished,
    state: () => structuredClone(state),
    restore(saved: TrainerState) {
      state = checkedState(saved, train.length);
      // the plan set is written again from the restored phase and weights
      planSet = null;
    },
  };
}
