// Node only: the CPU time of the main thread of Chromium's renderers, as the clock of the browser benchmark's WASM
// runtimes. This machine is shared (load average 5-10 while other sessions work): wall time in the page then
// measures the neighbours as much as the code, by a factor of up to 4 between runs. Our engine, onnxruntime-web's
// WASM EP (numThreads 1, no proxy worker) and transformers.js's wasm device all compute on the page's main thread,
// so that thread's CPU time is what their wall time would be on an idle machine, like the peer part's CPU time.
// Only the main thread counts: V8 compiles WebAssembly (Liftoff, then TurboFan tier-up) on background threads, and
// that work would otherwise land in whichever measurement it overlaps. WebGPU runtimes compute in the GPU process
// and keep wall time.
// The page reads this clock with a synchronous XMLHttpRequest to the benchmark's server (bench/browser/serve.ts
// route /__cpu-seconds); the server reads the nanosecond run time of each renderer's main thread
// (/proc/PID/task/PID/schedstat, first field: the main thread's id is the process id). The driver asks the browser for
// its renderer process ids once the page is loaded (CDP SystemInfo.getProcessInfo); spare renderers are idle.
import { existsSync, readFileSync } from 'node:fs';
import type { Browser } from '@playwright/test';

/** A clock over the renderers' main threads: `refresh()` finds them (call it once the page is loaded), `seconds()`
 *  sums their CPU time so far. */
export async function rendererCpuClock(browser: Browser): Promise<{ refresh(): Promise<void>; seconds(): number }> {
  const cdp = await browser.newBrowserCDPSession();
  let mainThreads: string[] = [];
  return {
    async refresh() {
      const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as {
        processInfo: Array<{ type: string; id: number }>;
      };
      mainThreads = processInfo.filter((p) => p.type === 'renderer').flatMap((p) => rendererMainThread(p.id));
      if (mainThreads.length === 0) throw new Error('cpu clock: no renderer process found under /proc');
    },
    seconds: () => mainThreads.reduce((ns, path) => ns + runNanoseconds(path), 0) / 1e9,
  };
}

/** /proc/PID/task/PID/schedstat: the renderer's main thread is the one whose id is the process id. */
function rendererMainThread(pid: number): string[] {
  const path = `/proc/${pid}/task/${pid}/schedstat`;
  return existsSync(path) ? [path] : [];
}

function runNanoseconds(schedstat: string): number {
  try {
    return Number(readFileSync(schedstat, 'utf8').split(' ')[0]);
  } catch {
    return 0; // the renderer has exited
  }
}
