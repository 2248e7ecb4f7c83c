// Held-out evaluation (Trainer.evaluate, and a step's eval stage): every held-out problem once, both agents greedy,
// through the same rollout and grading as training; accuracy overall and per difficulty level, the reward the
// episodes would have earned, and the episodes that ran into the model's context.
import type { SamplingParams } from '../../engine/policy/policy.ts';
import { ContextTally, contextMessage } from './context.ts';
import { freshEpisodes, gradeEpisodes, isTwoAgent, runEpisodes, scoreGraded } from './episodes.ts';
import { episodeStats, rolloutRecords } from './records.ts';
import { rolloutSettings, type RunContext } from './run-context.ts';
import { now } from './stage-timer.ts';
import type { EvalResult } from './types.ts';

/** Evaluates the current weights on ctx.evalSet after `atStep` updates; throws when the set is empty. */
export async function evaluateHeldOut(ctx: RunContext, atStep: number): Promise<EvalResult> {
  const t0 = now();
  const { config, evalSet } = ctx;
  if (evalSet.length === 0) throw new Error('evaluate: the evaluation set is empty');
  const episodes = freshEpisodes(evalSet, 1, isTwoAgent(config) ? 'two-agent' : 'single');
  const greedy: SamplingParams = { temperature: 0, topP: 1, topK: 0, seed: 0 };
  const tally = new ContextTally();
  await runEpisodes(rolloutSettings(ctx, atStep, 'eval', tally, episodes), config, episodes, greedy, {
    greedy: { meta: true, reasoning: true },
    onePlanPerGroup: false,
  });
  const context = tally.fields();
  if (context.context_limited)
    ctx.emit({
      type: 'log',
      step: atStep,
      message: contextMessage(context, episodes.length, config.maxTokensPerTurn, `evaluation at step ${atStep}`),
    });
  const scored = scoreGraded(config, episodes, false, await gradeEpisodes(config, episodes, ctx.checker));
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
