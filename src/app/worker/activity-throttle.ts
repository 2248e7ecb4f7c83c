// The worker's activity lines ("rollout 120 tokens", "update 3/8") come once per decoded token, hundreds a second
// on a small model: each one is a message the page must handle and a status-line redraw. This sends at most one
// activity line per interval (the newest), and sends a waiting one before any other event so the order holds.
import { throttleLatest } from '../util/throttle.ts';
import type { WorkerEvent } from './protocol.ts';

export const ACTIVITY_INTERVAL_MS = 100;

export function throttleActivity(
  emit: (e: WorkerEvent) => void,
  intervalMs = ACTIVITY_INTERVAL_MS,
): (e: WorkerEvent) => void {
  const lines = throttleLatest<WorkerEvent>(emit, intervalMs);
  return (e) => {
    if (e.type === 'activity') lines.push(e);
    else {
      lines.flush();
      emit(e);
    }
  };
}
