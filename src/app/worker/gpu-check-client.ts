// The page's side of the GPU self-test worker (gpu-check.worker.ts): starts one, relays its steps and resolves with
// its report, or rejects with why it could not run (a worker that cannot start included); the worker is ended
// either way.
import type { GpuCheckReport } from '../../engine/gpu-check/report.ts';

export type GpuCheckEvent =
  { type: 'progress'; step: string } | { type: 'done'; report: GpuCheckReport } | { type: 'failed'; message: string };

export function runGpuCheckInWorker(onProgress: (step: string) => void): Promise<GpuCheckReport> {
  return new Promise<GpuCheckReport>((resolve, reject) => {
    // (thrown here, a worker that cannot be created rejects the promise)
    const worker = new Worker(new URL('./gpu-check.worker.ts', import.meta.url), {
      type: 'module',
      name: 'rema-gpu-check',
    });
    worker.addEventListener('message', (e: MessageEvent<GpuCheckEvent>) => {
      const event = e.data;
      if (event.type === 'progress') return onProgress(event.step);
      worker.terminate();
      if (event.type === 'done') resolve(event.report);
      else reject(new Error(event.message));
    });
    worker.addEventListener('error', (e) => {
      e.preventDefault();
      worker.terminate();
      reject(new Error(e.message || 'the GPU self-test worker failed to load or threw'));
    });
    worker.postMessage('check');
  });
}
