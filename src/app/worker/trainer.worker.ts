// The Web Worker entry: the training session runs here, off the page's main thread. Messages in are
// WorkerRequests, messages out WorkerEvents (protocol.ts). An error that escapes becomes a fatal event.
import { webAnswerChecker } from './checker-web.ts';
import { createSession } from './session.ts';
import type { WorkerEvent, WorkerRequest } from './protocol.ts';
import { siteRoot } from './site-root.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const emit = (e: WorkerEvent) => scope.postMessage(e);
const base = siteRoot(scope.location.origin);
// answers are graded in a nested worker that is terminated past a hard limit per check (checker-web.ts)
const checker = webAnswerChecker();
const handle = createSession(emit, {
  gpu: scope.navigator.gpu,
  modelsUrl: `${base}models/`,
  dataUrl: `${base}data`,
  ...(checker ? { checker } : {}),
});

scope.addEventListener('message', (e: MessageEvent<WorkerRequest>) => handle(e.data));
scope.addEventListener('unhandledrejection', (e: PromiseRejectionEvent) => {
  emit({
    type: 'error',
    message: `training worker: ${(e.reason as Error)?.message ?? String(e.reason)}`,
    fatal: true,
    requestId: null,
  });
});
