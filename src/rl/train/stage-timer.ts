// The one place a step's stages are timed: timed(stage, fn) announces the stage (a TrainerEvent), runs it and adds
// its seconds to the step's time_s record, so the trainer's step() reads as a list of timed calls.
import type { StageTimes } from '../metrics.ts';
import type { StageName, TrainerEvent } from './types.ts';

/** Milliseconds from the platform's monotonic clock (Date.now where there is none). */
export const now = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

export interface StageTimer {
  /** seconds per stage so far (a stage timed twice, like the rollout with an Algorithm 1 probe, adds up) */
  readonly times: StageTimes;
  timed<T>(stage: StageName, fn: () => Promise<T> | T): Promise<T>;
}

/** A fresh timer for step `step`, all stages at 0 seconds, announcing each stage through `emit`. */
export function stageTimer(step: number, emit: (event: TrainerEvent) => void): StageTimer {
  const times: StageTimes = { rollout: 0, reward: 0, old: 0, ref: 0, adv: 0, update: 0, eval: 0 };
  return {
    times,
    async timed(stage, fn) {
      emit({ type: 'stage', step, stage });
      const t0 = now();
      const out = await fn();
      times[stage] += (now() - t0) / 1000;
      return out;
    },
  };
}
