// Starts the training worker from its own small entry script (index.html), before the page's modules (React, the
// charts, the store) have loaded, so the worker's module graph, its backend and the model load while the page's
// own graph does; createWorkerClient takes this worker once (a restart makes a new one). A load error that comes
// before the client listens is kept and reported by the client.
let early: { worker: Worker; error: ErrorEvent | null } | null = null;

export function spawnTrainerWorker(): Worker {
  return new Worker(new URL('./trainer.worker.ts', import.meta.url), { type: 'module', name: 'rema-trainer' });
}

export function startWorkerEarly(): void {
  if (early || typeof Worker === 'undefined') return;
  const entry: { worker: Worker; error: ErrorEvent | null } = { worker: spawnTrainerWorker(), error: null };
  entry.worker.addEventListener('error', (e) => (entry.error ??= e));
  early = entry;
}

/** The worker started early, once (null when none was started or it was taken). */
export function takeEarlyWorker(): { worker: Worker; error: ErrorEvent | null } | null {
  const taken = early;
  early = null;
  return taken;
}
