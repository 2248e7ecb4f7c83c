// Per-step performance marks ("rema:step", one per training step the page receives), so a browser benchmark
// (bench/browser/page-train.ts) can read where each step's time went: the worker's StepTiming, the step's stage
// times, when the page received it and how long the page's main thread took to record it. At most MAX_MARKS are
// kept (the oldest are cleared), so a long run does not grow the performance timeline without bound.
import type { StageTimes } from '../../rl/metrics.ts';
import type { StepTiming } from '../worker/protocol.ts';

export const STEP_MARK = 'rema:step';
const MAX_MARKS = 2000;
let marks = 0;

export interface StepMarkDetail {
  step: number;
  /** ms since the Unix epoch the page received the step's event */
  received_at: number;
  /** ms the main thread spent recording it (the store's update, the run's save being queued) */
  record_ms: number;
  timing: StepTiming | null;
  time_s: StageTimes;
  /** seconds of the step's "explain" scoring pass after the update (ExplainRecord.rescoreSeconds; 0 without one) */
  explain_s: number;
}

export function markStep(detail: StepMarkDetail): void {
  if (typeof performance === 'undefined' || typeof performance.mark !== 'function') return;
  if (++marks > MAX_MARKS) {
    performance.clearMarks(STEP_MARK);
    marks = 1;
  }
  performance.mark(STEP_MARK, { detail });
}
