// The page's one entry script (index.html): starts the training worker (worker/early-worker.ts), then imports the
// page itself (main.tsx: React, the charts, the store) as a chunk of its own. A built page bundles every script
// of index.html into one file, so with main.tsx beside this script the worker waited for the whole page bundle
// (1.2 MB) to download and run; this way its module graph, backend and model load while the page's does.
// A built page on a host without COOP/COEP headers first reloads once through the site's service worker
// (util/site-isolation.ts), which adds them.
import { isolateThroughServiceWorker } from './util/site-isolation.ts';
import { startWorkerEarly } from './worker/early-worker.ts';

if (!(import.meta.env.PROD && (await isolateThroughServiceWorker()))) {
  startWorkerEarly();
  void import('./main.tsx');
}
