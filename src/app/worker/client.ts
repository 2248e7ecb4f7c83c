// The two TrainerClients: the real one (a module Web Worker running session.ts) and the in-process twin
// (the same session called directly), used where a worker is not available, e.g. component tests.
// A crash of the worker (uncaught error, failed module load) stops it and becomes a fatal `error` event, never
// silence.
import type { TrainerClient, WorkerEvent, WorkerRequest } from './protocol.ts';

type Listener = (event: WorkerEvent) => void;

export function createWorkerClient(): TrainerClient {
  const listeners = new Set<Listener>();
  const emit = (e: WorkerEvent) => listeners.forEach((l) => l(e));
  const worker = new Worker(new URL('./trainer.worker.ts', import.meta.url), { type: 'module', name: 'rema-trainer' });
  worker.addEventListener('message', (e: MessageEvent<WorkerEvent>) => emit(e.data));
  worker.addEventListener('error', (e: ErrorEvent) => {
    e.preventDefault();
    // an uncaught error does not stop a worker, but its state can no longer be trusted: stop it (and its helper
    // thread), so that nothing it still sends contradicts the crash; "Restart the worker" starts a new one
    worker.terminate();
    emit({ type: 'error', message: `training worker crashed: ${e.message || 'unknown error'}`, fatal: true, requestId: null });
  });
  worker.addEventListener('messageerror', () =>
    emit({ type: 'error', message: 'training worker sent a message that could not be read', fatal: false, requestId: null }),
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
