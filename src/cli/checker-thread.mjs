// The answer checker's worker thread in Node (started by checker-node.ts): registers tsx's loader in this thread
// (a worker does not inherit the main thread's), warms the compute engine and answers check requests with
// verifyMath until the host terminates it (src/rl/verifier/serve.ts, serveChecks).
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { serveChecks } = await import(new URL('../rl/verifier/serve.ts', import.meta.url).href);
const handle = serveChecks((reply) => parentPort.postMessage(reply));
parentPort.on('message', handle);
