// The page's first script (index.html): starts the training worker before main.tsx and its imports have loaded
// (worker/early-worker.ts), so the two module graphs load at once.
import { startWorkerEarly } from './worker/early-worker.ts';

startWorkerEarly();
