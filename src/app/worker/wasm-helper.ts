// Starts the WebAssembly backend's helper thread in the page: a nested Web Worker (wasm-helper.worker.ts) that
// gets the shared memory by postMessage and answers 'ready' once its kernels are instantiated. Handed to
// WasmBackend.create({ spawnHelper }); absent where this scope has no Worker (the backend then runs 1 thread).
import type { SpawnWasmHelper } from '../../engine/kernels/wasm/threads.ts';

export const spawnWebWasmHelper: SpawnWasmHelper | undefined = typeof Worker === 'undefined' ? undefined : (init) =>
  new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./wasm-helper.worker.ts', import.meta.url), { type: 'module', name: 'rema-wasm-helper' });
    worker.addEventListener('error', (e) => {
      worker.terminate();
      reject(new Error(`WebAssembly helper thread did not start: ${e.message || 'worker error'}`));
    });
    worker.addEventListener('message', (e: MessageEvent<'ready' | { error: string }>) => {
      if (e.data === 'ready') resolve({ terminate: () => worker.terminate() });
      else {
        worker.terminate();
        reject(new Error(`WebAssembly helper thread did not start: ${e.data.error}`));
      }
    }, { once: true });
    worker.postMessage(init);
  });
