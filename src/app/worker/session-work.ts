// The session's recurring work as queued jobs: a training step (and Train's chain of them, one job per step so
// an intervention or an export can run between two steps), the held-out evaluation (also the start-up baseline),
// and the followed problem's greedy rollout. Statuses are set through the job queue only (session-jobs.ts).
import type { EvalResult } from '../../rl/trainer.ts';
import { followGreedy } from './follow.ts';
import type { FollowedRollout } from './protocol.ts';
import { KEEP_STATUS, type Busy } from './session-jobs.ts';
import { keepLastGood, runNotMoved, surviveDeviceLoss } from './session-device-loss.ts';
import type { SessionState } from './session-state.ts';

/** The run tag of `active`'s events (protocol.ts RunTagged), read when its work started. */
const runOf = (active: { run?: number } | null): { run?: number } =>
  active?.run !== undefined ? { run: active.run } : {};

function emitEvaluation(s: SessionState, r: EvalResult, run: { run?: number }): void {
  const context = r.context_limited
    ? {
        context_limited: r.context_limited,
        context_length: r.context_length,
        context_prompt_tokens: r.context_prompt_tokens,
      }
    : {};
  s.emit({
    type: 'evaluation',
    step: r.step,
    accuracy: r.accuracy,
    reward_mean: r.reward_mean,
    n: r.n,
    rollouts: r.rollouts,
    ...context,
    ...run,
  });
}

/**
 * Refreshes of the followed problem while training come at most this often (ms), whatever followEvery says: at
 * dozens of tiny steps a second, more would only add work to the page's main thread that no one can read.
 */
export const FOLLOW_MIN_INTERVAL_MS = 1000;
const lastFollowed = new WeakMap<SessionState, number>();

/**
 * The followed problem's greedy rollout with the current weights. `early` (after load, reset, a new problem): it
 * is also sent before grading, so it is on screen sooner; a refresh during training is sent once, graded.
 */
async function emitFollowed(s: SessionState, early: boolean): Promise<void> {
  const { active, loaded } = s;
  if (!active || !loaded) return;
  const run = runOf(active);
  const rollout = await followGreedy(
    {
      config: active.config,
      policy: active.policy,
      tokenizer: loaded.tokenizer,
      frozen: active.frozen,
      heldOut: active.heldOut,
      step: active.trainer.state().step,
      ...(early
        ? { onUngraded: (ungraded: FollowedRollout) => s.emit({ type: 'followed', rollout: ungraded, ...run }) }
        : {}),
      ...(s.env.checker ? { checker: s.env.checker } : {}),
    },
    s.follow.index,
  );
  lastFollowed.set(s, Date.now());
  if (rollout) s.emit({ type: 'followed', rollout, ...run });
}

/** One step; returns why training must stop (the run diverged: StepResult.stop), or null. */
export async function runStep(s: SessionState): Promise<string | null> {
  if (!s.active) throw new Error('no trainer: load a model first');
  const active = s.active;
  const run = runOf(active);
  const startedAt = performance.now();
  let trainerMs = 0;
  // a lost device moves the run onto a new backend from its last step shown (session-device-loss.ts)
  const result = await surviveDeviceLoss(s, `step ${active.trainer.state().step + 1}`, async () => {
    const r = await active.trainer.step();
    trainerMs = performance.now() - startedAt;
    await keepLastGood(s);
    return r;
  });
  const sent = performance.now();
  s.emit({
    type: 'step',
    metrics: result.metrics,
    rollouts: result.rollouts,
    ...(result.explain ? { explain: result.explain } : {}),
    timing: {
      trainer_ms: trainerMs,
      keep_ms: sent - startedAt - trainerMs,
      started_at: performance.timeOrigin + startedAt,
      sent_at: performance.timeOrigin + sent,
    },
    ...run,
  });
  if (result.eval) emitEvaluation(s, result.eval, run);
  const since = Date.now() - (lastFollowed.get(s) ?? 0);
  if (
    s.follow.every > 0 &&
    result.metrics.step % s.follow.every === 0 &&
    since >= (s.follow.minIntervalMs ?? FOLLOW_MIN_INTERVAL_MS)
  )
    await surviveDeviceLoss(s, "the followed problem's rollout", () => emitFollowed(s, false));
  return result.stop ?? null;
}

/** Greedy held-out evaluation with the current weights. */
export async function evaluateActive(s: SessionState, busy: Busy): Promise<void> {
  if (!s.active) throw new Error('no trainer: load a model first');
  busy('evaluating');
  const { trainer } = s.active;
  const run = runOf(s.active);
  emitEvaluation(s, await surviveDeviceLoss(s, 'an evaluation', () => trainer.evaluate()), run);
}

/** after load and reset: the followed problem's rollout comes before the start-up evaluation (the first rollout on screen) */
export function scheduleFollow(s: SessionState): void {
  s.jobs.enqueue(() => emitFollowed(s, true), { rest: null });
}

/** evalBeforeTrain: the baseline evaluation, which also puts the first rollouts on screen */
export function scheduleBaseline(s: SessionState): void {
  s.jobs.enqueue(async (busy) => {
    const { active } = s;
    if (!active || !active.config.evalBeforeTrain || active.trainer.state().step > 0) return KEEP_STATUS;
    await evaluateActive(s, busy);
  });
}

/** Train: one step per queued job, so other requests (intervene, export) interleave between steps. */
export function scheduleTraining(s: SessionState): void {
  s.jobs.enqueue(
    async (busy) => {
      const { active } = s;
      if (!s.wantTraining || !active) {
        s.emit({ type: 'stopped', reason: 'paused' });
        return;
      }
      const step = () => active.trainer.state().step;
      const over = active.trainer.finished();
      if (step() >= active.config.steps || over !== null) {
        s.wantTraining = false;
        s.emit({ type: 'activity', step: step(), text: `finished: ${over ?? `${active.config.steps} steps`}` });
        s.emit({ type: 'stopped', reason: 'finished' });
        return;
      }
      busy('training');
      const stop = await runStep(s);
      if (stop !== null) {
        // diverged (config.maxNonFiniteSteps): the page's divergence banner says why, from the step's metrics
        s.wantTraining = false;
        s.emit({ type: 'activity', step: step(), text: `stopped: diverged at step ${step()}` });
        s.emit({ type: 'stopped', reason: 'diverged' });
        return;
      }
      if (!s.wantTraining) {
        s.emit({ type: 'stopped', reason: 'paused' });
        return;
      }
      // still training: the next step's job takes the status over
      scheduleTraining(s);
      return KEEP_STATUS;
    },
    {
      // a lost device's run that could not be moved leaves no trainer: the session needs a new load
      fatal: () => runNotMoved(s),
      onError: () => {
        s.wantTraining = false;
        s.emit({ type: 'stopped', reason: 'error' });
      },
    },
  );
}
