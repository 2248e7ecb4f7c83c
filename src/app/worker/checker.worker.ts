// The answer checker's Web Worker (started by checker-web.ts from the training worker): warms the compute engine,
// then answers check requests with verifyMath until the training worker terminates it at a check's hard limit
// (src/rl/verifier/serve.ts).
import type { CheckRequest } from '../../rl/verifier/checker.ts';
import { serveChecks } from '../../rl/verifier/serve.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const handle = serveChecks((reply) => scope.postMessage(reply));
scope.addEventListener('message', (e: MessageEvent<CheckRequest>) => handle(e.data));
