// The answer checker as an injectable, asynchronous service, so that no model output can stall training or
// `rema verify`. verifyMath bounds every step of its own work with a Deadline, but one long synchronous call into
// the compute engine can not be interrupted from inside; the pre-emptible checker runs verifyMath in a worker
// that the host terminates (and restarts) when a check runs past its hard wall-clock limit, and answers
// { correct: false, reason: 'timeout' } for it. src/rl imports no node:* and no DOM: the host supplies the worker
// (worker_threads in src/cli/checker-node.ts, a Web Worker in src/app/worker/checker-web.ts) through the small
// CheckerWorker interface, and the worker's side is serveChecks (serve.ts). This file does not load the LaTeX
// parser: the training worker imports it, and only the checker's own worker (or an in-thread check) needs it.

import { DEFAULT_TIMEOUT_MS, type VerifyOptions, type VerifyResult } from './result.ts';

/** Checks one (gold, prediction) pair; resolves with a verdict whatever the input (never hangs, never rejects for it). */
export interface AnswerChecker {
  check(gold: string, prediction: string): Promise<VerifyResult>;
  /** Stops the worker(s) behind the checker; checks still pending resolve as `timeout`. */
  close(): void;
}

/**
 * verifyMath on the caller's thread: bounded by its Deadline only (tests, and hosts without workers). The verifier
 * and its LaTeX parser are loaded on the first check, not when this module is.
 */
export function inThreadChecker(opts: VerifyOptions = {}): AnswerChecker {
  return {
    check: async (gold, prediction) => (await import('./index.ts')).verifyMath(gold, prediction, opts),
    close: () => {},
  };
}

/** Host -> worker. */
export interface CheckRequest {
  id: number;
  gold: string;
  prediction: string;
  timeoutMs: number;
  floatRounding?: number;
}

/** Worker -> host: `ready` once the compute engine is warm, then one `result` per request. */
export type CheckReply = { type: 'ready' } | { type: 'result'; id: number; result: VerifyResult };

/** A started worker as the pre-emptible checker sees it (a thin wrapper over worker_threads or a Web Worker). */
export interface CheckerWorker {
  post(request: CheckRequest): void;
  /** Called once with the callbacks for the worker's replies and its failure (an error or an unexpected exit). */
  listen(onReply: (reply: CheckReply) => void, onFailure: (error: Error) => void): void;
  terminate(): void;
}

export interface PreemptibleCheckerOptions {
  /**
   * Hard wall-clock limit of one check, from the moment it is handed to a warm worker (checks wait in a queue,
   * and a replacement worker warms up in about a second before it takes the next one): past it the worker is
   * terminated and the check answers `timeout`. verifyMath inside gets 80 % of it as its own budget, so a
   * check that its Deadline can stop answers before the worker has to be killed.
   */
  limitMs?: number;
  floatRounding?: number;
  /** How long a fresh worker may take to load and warm up before the checker gives up on it (default 60 s). */
  startTimeoutMs?: number;
  /** Called each time a worker is terminated or lost and a new one started (for logs and tests). */
  onRestart?: (why: string) => void;
}

interface Job {
  gold: string;
  prediction: string;
  resolve: (r: VerifyResult) => void;
  reject: (e: Error) => void;
}

/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days): a longer one fires at once, as if 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `ms` when a timer can wait that long: a whole number from 1 to MAX_TIMER_MS, else an error naming the option. */
function timerMs(name: string, ms: number): number {
  if (!Number.isInteger(ms) || ms < 1 || ms > MAX_TIMER_MS)
    throw new Error(`preemptibleChecker: ${name} must be a whole number of ms from 1 to ${MAX_TIMER_MS}, got ${ms}`);
  return ms;
}

const timeoutResult = (): VerifyResult => ({ correct: false, extracted: null, reason: 'timeout' });

/** Distinct (gold, prediction) results a preemptibleChecker remembers (cleared when full). */
const MEMO_LIMIT = 10_000;

/**
 * A checker that runs every check in a worker from `spawn` and pre-empts it at the hard limit. Checks run one at a
 * time in submission order; a worker that is killed or crashes is replaced before the next check. Checking is
 * deterministic, so a (gold, prediction) pair asked again (a group's samples often give the same answer) gets the
 * first check's result without a round trip to the worker; a timeout or an error is not remembered.
 */
export function preemptibleChecker(spawn: () => CheckerWorker, opts: PreemptibleCheckerOptions = {}): AnswerChecker {
  const limitMs = timerMs('limitMs', opts.limitMs ?? DEFAULT_TIMEOUT_MS);
  const startTimeoutMs = timerMs('startTimeoutMs', opts.startTimeoutMs ?? 60_000);
  const queue: Job[] = [];
  let worker: CheckerWorker | null = null;
  let ready = false;
  let running: { id: number; job: Job; timer: ReturnType<typeof setTimeout> } | null = null;
  let startTimer: ReturnType<typeof setTimeout> | null = null;
  let nextId = 1;
  let closed = false;

  function stopWorker(): void {
    if (startTimer) clearTimeout(startTimer);
    startTimer = null;
    worker?.terminate();
    worker = null;
    ready = false;
  }

  function failAll(error: Error): void {
    for (const job of queue.splice(0)) job.reject(error);
  }

  function start(): void {
    const w = spawn();
    worker = w;
    ready = false;
    startTimer = setTimeout(() => {
      if (worker !== w) return;
      stopWorker();
      failAll(new Error(`answer checker: the checker worker did not start within ${startTimeoutMs / 1000} s`));
    }, startTimeoutMs);
    w.listen(
      (reply) => {
        if (worker !== w) return;
        if (reply.type === 'ready') {
          if (startTimer) clearTimeout(startTimer);
          startTimer = null;
          ready = true;
          pump();
        } else if (running && reply.id === running.id) {
          clearTimeout(running.timer);
          const { job } = running;
          running = null;
          job.resolve(reply.result);
          pump();
        }
      },
      (error) => {
        if (worker !== w) return;
        stopWorker();
        if (running) {
          clearTimeout(running.timer);
          const { job } = running;
          running = null;
          opts.onRestart?.(`worker failed: ${error.message}`);
          job.resolve({ correct: false, extracted: null, reason: `error: checker worker failed (${error.message})` });
          if (!closed) start();
          pump();
        } else {
          // A worker that fails before it ever answers would fail again: report it instead of looping.
          failAll(new Error(`answer checker: the checker worker failed to start (${error.message})`, { cause: error }));
        }
      },
    );
  }

  function pump(): void {
    if (closed || running || queue.length === 0) return;
    if (!worker) return start();
    if (!ready) return;
    const job = queue.shift()!;
    const id = nextId++;
    const timer = setTimeout(() => {
      if (!running || running.id !== id) return;
      running = null;
      stopWorker(); // the only way to stop a synchronous call that ignores its deadline
      opts.onRestart?.(`check ran past its ${limitMs} ms limit`);
      job.resolve(timeoutResult());
      if (!closed) start(); // warm the replacement now, not when the next check arrives
      pump();
    }, limitMs);
    running = { id, job, timer };
    worker.post({
      id,
      gold: job.gold,
      prediction: job.prediction,
      timeoutMs: Math.max(1, Math.floor(limitMs * 0.8)),
      ...(opts.floatRounding !== undefined ? { floatRounding: opts.floatRounding } : {}),
    });
  }

  const memo = new Map<string, Promise<VerifyResult>>();
  return {
    check(gold, prediction) {
      if (closed) return Promise.reject(new Error('answer checker: check() after close()'));
      const key = JSON.stringify([gold, prediction]);
      const known = memo.get(key);
      if (known) return known;
      if (memo.size >= MEMO_LIMIT) memo.clear();
      const result = new Promise<VerifyResult>((resolve, reject) => {
        queue.push({ gold, prediction, resolve, reject });
        pump();
      });
      memo.set(key, result);
      result.then(
        (r) => {
          if (r.reason === 'timeout' || r.reason.startsWith('error')) memo.delete(key);
        },
        () => memo.delete(key),
      );
      return result;
    },
    close() {
      closed = true;
      if (running) {
        clearTimeout(running.timer);
        running.job.resolve(timeoutResult());
        running = null;
      }
      for (const job of queue.splice(0)) job.resolve(timeoutResult());
      stopWorker();
    },
  };
}

/** Checks every pair through `checker`, all queued at once, verdicts in input order. */
export function checkAll(
  checker: AnswerChecker,
  pairs: ReadonlyArray<{ gold: string; prediction: string }>,
): Promise<VerifyResult[]> {
  return Promise.all(pairs.map((p) => checker.check(p.gold, p.prediction)));
}
