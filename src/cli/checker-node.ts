// The pre-emptible answer checker in Node: verifyMath runs in a worker_threads Worker (checker-thread.mjs) that is
// terminated and restarted when a check runs past its hard limit (src/rl/verifier/checker.ts). Used by
// `rema verify` and by the reward and evaluation steps of `rema train` / `rema eval`.
import { Worker } from 'node:worker_threads';
import {
  preemptibleChecker,
  type AnswerChecker,
  type CheckerWorker,
  type PreemptibleCheckerOptions,
} from '../rl/verifier/checker.ts';

/** One worker_threads Worker running the checker; unref'd, so an idle checker never keeps the process alive. */
export function spawnNodeCheckerWorker(): CheckerWorker {
  const worker = new Worker(new URL('./checker-thread.mjs', import.meta.url), { name: 'rema-answer-checker' });
  let terminated = false;
  return {
    post: (request) => worker.postMessage(request),
    listen(onReply, onFailure) {
      worker.on('message', onReply);
      worker.on('error', (e: Error) => onFailure(e));
      worker.on('exit', (code) => {
        if (!terminated) onFailure(new Error(`the checker thread exited with code ${code}`));
      });
      // after the listeners: adding a 'message' listener refs the worker's port again
      worker.unref();
    },
    terminate() {
      terminated = true;
      void worker.terminate();
    },
  };
}

/** The answer checker of the command line: one pre-emptible worker thread. */
export function nodeAnswerChecker(opts: PreemptibleCheckerOptions = {}): AnswerChecker {
  return preemptibleChecker(spawnNodeCheckerWorker, opts);
}
