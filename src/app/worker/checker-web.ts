// The pre-emptible answer checker in the page: verifyMath runs in a nested Web Worker (checker.worker.ts) that the
// training worker terminates and restarts when a check runs past its hard limit, so no model output can stall
// training (src/rl/verifier/checker.ts). Absent where this scope has no Worker (the trainer then checks in-thread).
import {
  preemptibleChecker,
  type AnswerChecker,
  type CheckerWorker,
  type CheckReply,
  type PreemptibleCheckerOptions,
} from '../../rl/verifier/checker.ts';

/** One Web Worker running the checker. */
export function spawnWebCheckerWorker(): CheckerWorker {
  const worker = new Worker(new URL('./checker.worker.ts', import.meta.url), {
    type: 'module',
    name: 'rema-answer-checker',
  });
  return {
    post: (request) => worker.postMessage(request),
    listen(onReply, onFailure) {
      worker.addEventListener('message', (e: MessageEvent<CheckReply>) => onReply(e.data));
      worker.addEventListener('error', (e) => {
        e.preventDefault();
        onFailure(new Error(e.message || 'the checker worker failed to load or threw'));
      });
    },
    terminate: () => worker.terminate(),
  };
}

/** The page's answer checker (undefined without Worker support in this scope). */
export function webAnswerChecker(opts: PreemptibleCheckerOptions = {}): AnswerChecker | undefined {
  return typeof Worker === 'undefined' ? undefined : preemptibleChecker(spawnWebCheckerWorker, opts);
}
