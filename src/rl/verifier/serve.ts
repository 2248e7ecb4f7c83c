// The answer checker's worker side (a Web Worker in src/app/worker/checker.worker.ts, a worker thread in
// src/cli/checker-thread.mjs): the one place that loads verifyMath and its LaTeX parser for the pre-emptible
// checker (checker.ts), kept apart so that importing checker.ts does not load them.
import type { CheckReply, CheckRequest } from './checker.ts';
import { verifyMath } from './index.ts';

/**
 * Warms the compute engine, says `ready`, then answers each request with verifyMath. Returns the handler for
 * incoming requests; `post` sends a reply to the host.
 */
export function serveChecks(post: (reply: CheckReply) => void): (request: CheckRequest) => void {
  verifyMath('1', '\\boxed{1}'); // the engine's one-time warm-up, before any check's clock starts
  post({ type: 'ready' });
  return (req) => {
    const result = verifyMath(req.gold, req.prediction, {
      timeoutMs: req.timeoutMs,
      ...(req.floatRounding !== undefined ? { floatRounding: req.floatRounding } : {}),
    });
    post({ type: 'result', id: req.id, result });
  };
}
