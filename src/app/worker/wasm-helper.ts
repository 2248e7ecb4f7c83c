// Starts the WebAssembly backend's helper thread in the page: a nested Web Worker (wasm-helper.worker.ts) that
// gets the shared memory by postMessage and answers 'ready' once its kernels are instantiated. Handed to
// WasmBackend.create({ spawnHelper }); absent where this scope has no Worker (the backend then runs 1 thread).
import type { SpawnWasmHelper } from '../../engine/backends/wasm/threads.ts';

/** A helper that has not answered by then (a Worker that never loads) is given up: the backend runs 1 thread. */
const START_TIMEOUT_MS = 15_000;

export const spawnWebWasmHelper: SpawnWasmHelper | undefined =
  typeof Worker === 'undefined'
    ? undefined
    : (init) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(new URL('./wasm-helper.worker.ts', import.meta.url), {
            type: 'module',
            name: 'rema-wasm-helper',
          });
          const fail = (why: string) => {
            clearTimeout(timer);
            worker.terminate();
            reject(new Error(`WebAssembly helper thread did not start: ${why}`));
          };
          const timer = setTimeout(() => fail(`no answer in ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
          worker.addEventListener('error', (e) => fail(e.message || 'worker error'));
          worker.addEventListener(
            'message',
            (e: MessageEvent<'ready' | { error: string }>) => {
              if (e.data !== 'ready') return fail(e.data.error);
              clearTimeout(timer);
              resolve({ terminate: () => worker.terminate() });
            },
            { once: true },
          );
          worker.postMessage(init);
        });
