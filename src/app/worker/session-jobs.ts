// The worker session's one queue of jobs, and the one place its status changes. Every request that touches the
// model runs as a job after the jobs before it (an intervention waits for the running step instead of racing
// it). A job may set a busy status while it runs ("stepping", "evaluating", ...); when it ends, the queue sets
// the job's resting status exactly once, also when the job throws: then it first sends the error event, and a
// fatal failure rests at "failed". Jobs that only answer a request (an intervention, an adapter export) leave
// the status alone.
import type { SessionStatus, WorkerEvent } from './protocol.ts';
import { RunMovedError } from './run-moved.ts';

/** Returned by a job that hands the busy status on to a job it queued (Train's next step): no resting status. */
export const KEEP_STATUS = 'keep-status';

/** Sets the status while the job runs (several calls allowed: "loading" an ONNX model, then "evaluating"). */
export type Busy = (status: SessionStatus) => void;

export type Job = (busy: Busy) => Promise<void | typeof KEEP_STATUS>;

export interface JobOptions {
  /** the status once the job is done (default "idle"); null: the job leaves the status alone */
  rest?: SessionStatus | null | (() => SessionStatus);
  /** whether a failure ends the session (it needs a new load); read after the failure. Default false */
  fatal?: boolean | (() => boolean);
  /** the request the job answers, named in its error event */
  requestId?: number;
  /** runs after a failure's error event and before the resting status (e.g. Train says it stopped) */
  onError?: () => void;
}

export interface JobQueue {
  enqueue(job: Job, options?: JobOptions): void;
  /** jobs queued so far that have not started are dropped (a new model is loading); a running one finishes */
  dropQueued(): void;
}

const read = <T>(x: T | (() => T)): T => (typeof x === 'function' ? (x as () => T)() : x);

export function createJobQueue(emit: (e: WorkerEvent) => void): JobQueue {
  let queue: Promise<unknown> = Promise.resolve();
  /** bumps on dropQueued, so jobs queued before it are skipped */
  let generation = 0;
  const status = (s: SessionStatus) => emit({ type: 'status', status: s });

  async function runJob(job: Job, options: JobOptions): Promise<void> {
    const rest = options.rest === undefined ? 'idle' : options.rest;
    let settled: SessionStatus | null = null;
    try {
      if ((await job(status)) === KEEP_STATUS) return;
      settled = rest === null ? null : read(rest);
    } catch (e) {
      const fatal = read(options.fatal ?? false);
      emit({
        type: 'error',
        message: e instanceof Error ? e.message : String(e),
        fatal,
        requestId: options.requestId ?? null,
        ...(e instanceof RunMovedError ? { continuable: true as const } : {}),
      });
      options.onError?.();
      settled = fatal ? 'failed' : rest === null ? null : read(rest);
    }
    if (settled !== null) status(settled);
  }

  return {
    /**
     * Each job first yields to the event loop: a CPU-backend step awaits only settled promises, so without this
     * yield the worker would never read an incoming Pause or intervention message between steps.
     */
    enqueue(job, options = {}) {
      const mine = generation;
      queue = queue.then(async () => {
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (mine !== generation) return;
        await runJob(job, options);
      });
    },
    dropQueued() {
      generation++;
    },
  };
}
