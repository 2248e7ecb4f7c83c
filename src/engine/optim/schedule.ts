// Learning-rate schedules: constant (with optional linear warm-up) and linear warm-up then cosine decay.

export type LrSchedule =
  | { kind: 'constant'; warmupSteps?: number }
  | {
      kind: 'warmup-cosine';
      warmupSteps: number;
      totalSteps: number;
      /** floor as a fraction of lr (default 0) */ minLrRatio?: number;
    };

/**
 * Learning rate for optimiser step `step` (1-based). The cosine is read at the steps taken before this one (as
 * transformers' get_cosine_schedule_with_warmup), so the first step after warm-up has the full rate and the last
 * of `totalSteps` a positive one: no step is spent at lr 0 (with minLrRatio 0, a 1-step run gets the full rate).
 */
export function learningRate(baseLr: number, schedule: LrSchedule, step: number): number {
  const warm = schedule.warmupSteps ?? 0;
  if (warm > 0 && step <= warm) return (baseLr * step) / warm;
  if (schedule.kind === 'constant') return baseLr;
  const span = Math.max(1, schedule.totalSteps - warm);
  const progress = Math.min(1, Math.max(0, (step - 1 - warm) / span));
  const floor = schedule.minLrRatio ?? 0;
  return baseLr * (floor + (1 - floor) * 0.5 * (1 + Math.cos(Math.PI * progress)));
}

export function validateSchedule(schedule: LrSchedule): void {
  if ((schedule.warmupSteps ?? 0) < 0)
    throw new Error(`lr schedule: warmupSteps must be >= 0, got ${schedule.warmupSteps}`);
  if (schedule.kind === 'warmup-cosine' && !(schedule.totalSteps > 0)) {
    throw new Error(`lr schedule: warmup-cosine needs totalSteps > 0, got ${schedule.totalSteps}`);
  }
}
