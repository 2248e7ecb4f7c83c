// The two TrainerClients: the real one (a module Web Worker running session.ts) and the in-process twin
// (the same session called directly), used where a worker is not available, e.g. component tests.
// A crash of the worker (uncaught error, failed module load) stops it and becomes a fatal `error` event, never
// silence.
import { spawnTrainerWorker, takeEarlyWorker } from './early-worker.ts';
import type { TrainerClient, WorkerEvent, WorkerRequest } from './protocol.ts';

type Listener = (event: WorkerEvent) => void;

export function createWorkerClient(): TrainerClient {
  const listeners = new Set<Listener>();
  const emit = (e: WorkerEvent) => listeners.forEach((l) => l(e));
  // the worker index.html's first script started (its modules load while the page's do), else a new one
  const early = takeEarlyWorker();
  const worker = early?.worker ?? spawnTrainerWorker();
  worker.addEventListener('message', (e: MessageEvent<WorkerEvent>) => emit(e.data));
  const crashed = (e: ErrorEvent) => {
    e.preventDefault();
    // an uncaught error does not stop a worker, but its state can no longer be trusted: stop it (and its helper
    // thread), so that nothing it still sends contradicts the crash; "Restart the worker" starts a new one
    worker.terminate();
    emit({
      type: 'error',
      message: `training worker crashed: ${e.message || 'unknown error'}`,
      fatal: true,
      requestId: null,
    });
  };
  worker.addEventListener('error', crashed);
  // an error before this client listened (the early worker failed to load): reported once the page subscribes
  if (early?.error) {
    const error = early.error;
    queueMicrotask(() => crashed(error));
  }
  worker.addEventListener('messageerror', () =>
    emit({
      type: 'error',
      message: 'training worker sent a message that could not be read',
      fatal: false,
      requestId: null,
    }),
  );
  return {
    send: (request: WorkerRequest) => worker.postMessage(request),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    terminate: () => worker.terminate(),
  };
}

/** Same protocol without a thread: the handler is the worker's session, called with each request. */
export function createInProcessClient(
  makeHandler: (emit: (e: WorkerEvent) => void) => (request: WorkerRequest) => void,
): TrainerClient {
  const listeners = new Set<Listener>();
  // events are delivered asynchronously, as a worker would, so callers never see re-entrant updates
  const handle = makeHandler((e) => queueMicrotask(() => listeners.forEach((l) => l(e))));
  return {
    send: (request) => handle(request),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    terminate: () => handle({ type: 'pause' }),
  };
}
