// Starts the WebAssembly backend's helper thread in Node: a worker_threads Worker (wasm-helper-thread.mjs) that
// instantiates the same kernels on the shared memory. Passed to WasmBackend.create({ spawnHelper }) so the engine
// itself imports no node:*. The worker is unref'd: a process whose work is done exits without stopping it.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { SpawnWasmHelper } from '../engine/kernels/wasm/threads.ts';

export const spawnNodeWasmHelper: SpawnWasmHelper = (init) =>
  new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./wasm-helper-thread.mjs', import.meta.url), { workerData: init, name: 'rema-wasm-helper' });
    const failed = (e: Error) => reject(new Error(`WebAssembly helper thread did not start: ${e.message}`));
    worker.once('error', failed);
    worker.once('exit', (code) => failed(new Error(`exited with code ${code}`)));
    worker.once('message', () => {
      worker.unref();
      resolve({ terminate: () => void worker.terminate() });
    });
  });

/** Logical cores of this machine (the backend's default thread count needs at least 2). */
export function nodeCores(): number {
  return availableParallelism();
}
