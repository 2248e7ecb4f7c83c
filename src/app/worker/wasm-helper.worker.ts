// The helper thread of the two-thread WebAssembly backend in the page: a Web Worker started from the training
// worker (wasm-helper.ts) that instantiates the same kernels on the shared memory and serves matmul halves until
// the engine stops it (src/engine/backends/wasm/threads.ts). Runs only when the page is cross-origin isolated.
import { runWasmHelper, type WasmHelperInit } from '../../engine/backends/wasm/threads.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
scope.addEventListener(
  'message',
  (e: MessageEvent<WasmHelperInit>) => {
    runWasmHelper(e.data, () => scope.postMessage('ready')).catch((err: unknown) => {
      scope.postMessage({ error: (err as Error)?.message ?? String(err) });
    });
  },
  { once: true },
);
