// The RL trainer (its contract and types in train/types.ts, re-exported here). One step is a flat list of timed stages,
// each one call into a train/ file, timed by train/stage-timer.ts:
//   rollout  -> problems of this step x groupSize episodes with the mode's protocol (train/step-rollout.ts)
//   reward   -> grade the final answers, apply the reward rule, success-rate filter, rows (train/reward-stage.ts)
//   old      -> log-probs of the trained positions under the rollout weights, skipped when fully on-policy
//   ref      -> log-probs under the reference (adapters off), only when klBeta > 0 (both train/logprob-stages.ts)
//   adv      -> GRPO / REINFORCE++ advantages per row (train/rows.ts)
//   update   -> mini-batches x epochs of loss coefficients, backward, optimiser steps (train/update.ts)
//   eval     -> greedy evaluation on the held-out set every evalEvery steps and on the last step (train/evaluation.ts)
// then the metrics record (train/step-metrics.ts).
// Single-turn separate mode with config.phaseEpochs > 0 runs Algorithm 1's phases (train/phases.ts,
// train/phase-run.ts): a phase's first step probes the training set (not trained on) and keeps the problems in the
// success-rate range, and in the reasoning agent's phase the frozen meta agent writes the phase's plans for them;
// its steps then take their prompts from that dataset. config.updateIterations pairs of phases end the run (finished()).
// A frozen agent (config.frozenAgent, TrainerOptions.frozen) acts in rollout and eval with its own model and
// tokenizer and is left out of every later stage: rows are built for the trainable agents only.
// Divergence: a step whose update saw NaN / infinite numbers is flagged in its metrics (nonfinite, which
// quantities, the streak of such steps, skipped optimiser updates); after config.maxNonFiniteSteps of them in a
// row StepResult.stop tells the driver to end the run (train/divergence.ts words the message).
// A context shorter than the prompts: createTrainer refuses when even the shortest problem's first prompt fills it,
// and steps / evaluations count the episodes that ran into it (metrics context_limited; train/context.ts).
// All randomness comes from the config seed through counter-based seeds, so the same config, seed and backend
// give identical metrics, and a restored state continues exactly where the saved run stopped.

import type { Policy, TrainablePolicy } from '../engine/policy/policy.ts';
import type { MetricsRecord } from './metrics.ts';
import { deriveSeed } from './protocol/rollout.ts';
import { ContextTally } from './train/context.ts';
import { stepPlan } from './train/episodes.ts';
import { evaluateHeldOut } from './train/evaluation.ts';
import { divergenceMessage } from './train/divergence.ts';
import { StepExplainer } from './train/explain.ts';
import { oldLogProbs, refLogProbs } from './train/logprob-stages.ts';
import { nextPhase, PhasePlans, runOver } from './train/phase-run.ts';
import { phaseDone, phaseStepPlan, usesPhases, type PhaseState } from './train/phases.ts';
import { rolloutRecords } from './train/records.ts';
import { rewardStage } from './train/reward-stage.ts';
import { assignAdvantages } from './train/rows.ts';
import { runContext } from './train/run-context.ts';
import { stageTimer } from './train/stage-timer.ts';
import { stepMetrics, stepNotes } from './train/step-metrics.ts';
import { rolloutStage } from './train/step-rollout.ts';
import { STREAM } from './train/streams.ts';
import { checkedState } from './train/trainer-state.ts';
import { needsOldLogProbs, updatePolicy } from './train/update.ts';
import type {
  EvalResult,
  Evaluator,
  EvaluatorOptions,
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
  StageName,
  StepResult,
  Trainer,
  TrainerEvent,
  TrainerOptions,
  TrainerState,
} from './train/types.ts';

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
  const ctx = runContext(opts, policy, adapters);
  const { config, emit } = ctx;
  let state: TrainerState = { version: 1, step: 0, cursor: 0, epoch: 0 };
  const phasePlans = new PhasePlans();

  const evaluate = (): Promise<EvalResult> => evaluateHeldOut(ctx, state.step);
  const finished = (): string | null => runOver(config, state);

  /** Whether step `stepNo` ends with an evaluation: every evalEvery steps, on the last step and when the run is over. */
  const evaluatesAt = (stepNo: number): boolean =>
    ctx.evalSet.length > 0 &&
    ((config.evalEvery > 0 && stepNo % config.evalEvery === 0) || stepNo === config.steps || finished() !== null);

  async function step(): Promise<StepResult> {
    if (config.mode === 'vrp')
      throw new Error('mode "vrp" is evaluation only (no RL); use evaluate(), or mode "vrp-rl" to train');
    // createEvaluator hands out evaluate() only, so a step always has the policy it trains
    if (trainable === null) throw new Error('createEvaluator: an evaluator does not train');
    const learner = trainable;
    const stepNo = state.step + 1;
    const { times, timed } = stageTimer(stepNo, emit);
    const clampsBefore = (await policy.kvCacheClamps?.()) ?? 0;
    const tally = new ContextTally();
    const over = finished();
    if (over !== null) throw new Error(`step: the run is over: ${over}`);
    // Algorithm 1: a new phase probes the training set first (timed with the rollout)
    const phased = usesPhases(config);
    if (phased && (!state.phase || phaseDone(config, state.phase)))
      state.phase = await timed('rollout', () => nextPhase(ctx, stepNo, state.phase));
    const phase = phased ? state.phase! : null;
    const plan = phase ? phaseStepPlan(config, phase.agent) : stepPlan(config, state.step, ctx.shared);

    const episodes = await timed('rollout', () => rolloutStage(ctx, stepNo, state, phase, phasePlans, plan, tally));
    const scoring = await timed('reward', () => rewardStage(ctx, episodes, plan, phase));
    const { scored, statRows, rows } = scoring;
    if (rows.length === 0)
      emit({
        type: 'log',
        step: stepNo,
        message: 'no rows to train this step (all groups filtered out or nothing trainable)',
      });
    if (rows.length > 0 && needsOldLogProbs(config)) await timed('old', () => oldLogProbs(policy, config, rows));
    if (rows.length > 0 && config.klBeta > 0) await timed('ref', () => refLogProbs(policy, config, rows));
    const fracZeroStd = await timed('adv', () => assignAdvantages(statRows, config));
    // "Explain this step" (opts.explain): the chosen groups' coefficients and gradient norms during the update
    const explainer = opts.explain && rows.length > 0 ? new StepExplainer(opts.explain, statRows, rows, scored) : null;
    const update = await timed('update', () =>
      rows.length === 0
        ? null
        : updatePolicy(
            learner,
            config,
            rows,
            deriveSeed(config.seed, STREAM.minibatch, stepNo),
            (done, total) => emit({ type: 'progress', step: stepNo, stage: 'update', done, total }),
            explainer?.probe,
          ),
    );
    const explain =
      explainer && update
        ? await explainer.finish(stepNo, learner, config, update.gradNorm, (ids) => ctx.tokenizer.decode(ids))
        : null;
    const streak = (update?.nonfinite.length ?? 0) > 0 ? (state.nonfiniteStreak ?? 0) + 1 : 0;
    state = afterStep(state, stepNo, streak, phase);
    const evalResult = evaluatesAt(stepNo) ? await timed('eval', evaluate) : null;

    const kvClamped = ((await policy.kvCacheClamps?.()) ?? 0) - clampsBefore;
    const metrics: MetricsRecord = stepMetrics(config, {
      step: stepNo,
      plan,
      scoring,
      fracZeroStd,
      update,
      streak,
      times,
      evalResult,
      context: tally.fields(),
      kvClamped,
    });
    for (const message of stepNotes(config, metrics, episodes.length)) emit({ type: 'log', step: stepNo, message });
    const stop = streak > 0 && config.maxNonFiniteSteps > 0 && streak >= config.maxNonFiniteSteps;
    return {
      metrics,
      rollouts: rolloutRecords(stepNo, scored, rows, (ids) => ctx.tokenizer.decode(ids)),
      ...(evalResult ? { eval: evalResult } : {}),
      ...(stop ? { stop: divergenceMessage(metrics, config) } : {}),
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
      state = checkedState(saved, ctx.train.length);
      // the plan set is written again from the restored phase and weights
      phasePlans.clear();
    },
  };
}

/** The state after step `stepNo`: its count, the non-finite streak (absent at 0), one more step of the phase. */
function afterStep(state: TrainerState, stepNo: number, streak: number, phase: PhaseState | null): TrainerState {
  const next: TrainerState = {
    ...state,
    step: stepNo,
    ...(streak > 0 ? { nonfiniteStreak: streak } : {}),
    ...(phase ? { phase: { ...phase, step: phase.step + 1 } } : {}),
  };
  if (streak === 0) delete next.nonfiniteStreak;
  return next;
}
