// Starts the WebAssembly backend's helper thread in Node: a worker_threads Worker (wasm-helper-thread.mjs) that
// instantiates the same kernels on the shared memory. Passed to WasmBackend.create({ spawnHelper }) so the engine
// itself imports no node:*. The worker is unref'd: a process whose work is done exits without stopping it.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { SpawnWasmHelper } from '../engine/backends/wasm/threads.ts';

/** A helper that has not answered by then is given up (the backend then runs 1 thread). */
const START_TIMEOUT_MS = 30_000;

export const spawnNodeWasmHelper: SpawnWasmHelper = (init) =>
  new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./wasm-helper-thread.mjs', import.meta.url), {
      workerData: init,
      name: 'rema-wasm-helper',
    });
    const failed = (e: Error) => {
      clearTimeout(timer);
      void worker.terminate();
      reject(new Error(`WebAssembly helper thread did not start: ${e.message}`));
    };
    const timer = setTimeout(() => failed(new Error(`no answer in ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    worker.once('error', failed);
    worker.once('exit', (code) => failed(new Error(`exited with code ${code}`)));
    worker.once('message', () => {
      clearTimeout(timer);
      worker.unref();
      resolve({ terminate: () => void worker.terminate() });
    });
  });

/** Logical cores of this machine (the backend's default thread count needs at least 2). */
export function nodeCores(): number {
  return availableParallelism();
}
