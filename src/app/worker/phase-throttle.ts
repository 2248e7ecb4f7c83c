// The worker's phase lines ("rollout 120 tokens", "update 3/8") come once per decoded token, hundreds a second on
// a small model: each one is a message the page must handle and a status-line redraw. This sends at most one
// phase line per interval (the newest), and sends a waiting one before any other event so the order holds.
import { throttleLatest } from '../util/throttle.ts';
import type { WorkerEvent } from './protocol.ts';

export const PHASE_INTERVAL_MS = 100;

export function throttlePhases(
  emit: (e: WorkerEvent) => void,
  intervalMs = PHASE_INTERVAL_MS,
): (e: WorkerEvent) => void {
  const phases = throttleLatest<WorkerEvent>(emit, intervalMs);
  return (e) => {
    if (e.type === 'phase') phases.push(e);
    else {
      phases.flush();
      emit(e);
    }
  };
}
