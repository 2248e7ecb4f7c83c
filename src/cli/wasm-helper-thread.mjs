// The helper thread of the two-thread WebAssembly backend in Node (a worker_threads Worker started by
// wasm-helper-node.ts): registers tsx's loader in this thread (a worker does not inherit the main thread's), then
// serves matmul halves on the shared memory until the engine stops it (src/engine/backends/wasm/threads.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { runWasmHelper } = await import(new URL('../engine/backends/wasm/threads.ts', import.meta.url).href);
await runWasmHelper(workerData, () => parentPort.postMessage('ready'));
