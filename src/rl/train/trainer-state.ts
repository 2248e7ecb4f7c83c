// A saved trainer state (Trainer.state(), stored with a run's checkpoints) checked field by field before a run
// resumes from it: a bad field fails with its name and value instead of resuming at a wrong place.
import { checkPhaseState } from './phases.ts';
import type { TrainerState } from './types.ts';

/** `s` as a valid state of a run over `trainSize` training problems, or an error naming the bad field. */
export function checkedState(s: TrainerState, trainSize: number): TrainerState {
  if (s.version !== 1) throw new Error(`trainer state: unknown version ${String(s.version)}`);
  for (const key of ['step', 'cursor', 'epoch'] as const)
    if (!Number.isInteger(s[key]) || s[key] < 0)
      throw new Error(`trainer state: field "${key}" must be a non-negative integer, got ${String(s[key])}`);
  const streak = s.nonfiniteStreak ?? 0;
  if (!Number.isInteger(streak) || streak < 0)
    throw new Error(
      `trainer state: field "nonfiniteStreak" must be a non-negative integer, got ${String(s.nonfiniteStreak)}`,
    );
  const phase = s.phase === undefined ? undefined : checkPhaseState(s.phase, trainSize);
  return {
    version: 1,
    step: s.step,
    cursor: s.cursor,
    epoch: s.epoch,
    ...(streak > 0 ? { nonfiniteStreak: streak } : {}),
    ...(phase ? { phase } : {}),
  };
}
