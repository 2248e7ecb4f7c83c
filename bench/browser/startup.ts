// Start-up time of the playground page as `npm start` serves it (the page built by `vite build`, served by
// `vite preview`; with --dev, `npm run dev`'s vite dev server), warmed by one load, then N fresh page loads in
// Debian's Chromium (a new browser context each: empty IndexedDB and HTTP cache, as a newcomer), each waiting until
// Train is enabled and a rollout is on screen. Reads the page's start-up marks (src/app/util/startup-marks.ts, ms
// since navigation start) and prints each load, the median of each mark, and the machine's load average. Under the
// default backend "auto" a fresh context has no kept rates, so each load is a first visit: the model is ready on
// the CPU backend and the backends are measured after the first rollout (mark auto-measured, waited for too).
//   node --import tsx bench/browser/startup.ts [--loads 7] [--hash '#preset=tiny-default'] [--dev | --dist DIR]
//     [--cached]
// The built page is built into a temporary folder first; --dist DIR serves a page already built there (to compare
// two builds under the same machine load); --cached gives every fresh context the rates the warm-up load measured
// (localStorage), as on a later visit.
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { chromium } from '@playwright/test';
import { createServer } from 'vite';
import { serveBuiltPage } from './serve-built.ts';

const root = resolve(import.meta.dirname, '../..');
const argv = process.argv.slice(2);
const arg = (flag: string, fallback: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : fallback);
const loads = Number(arg('--loads', '7'));
const hash = arg('--hash', '');
const dist = argv.includes('--dist') ? resolve(arg('--dist', '')) : null;
const built = !argv.includes('--dev') || dist !== null;
const cached = argv.includes('--cached');
const MARKS = ['script', 'paint', 'backend', 'ready', 'first-rollout', 'first-eval', 'auto-measured'] as const;
const RATES_KEY = 'rema:auto-backend-rates';

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = xs.toSorted((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

const configFile = resolve(root, 'vite.config.ts');

/** The dev server, or the built page (--dist, else built into a fresh temporary folder) under vite preview. */
async function serve(): Promise<{ url: string; close: () => Promise<void> }> {
  if (!built) {
    const server = await createServer({
      root,
      configFile,
      server: { host: '127.0.0.1', port: 0, strictPort: false },
      logLevel: 'error',
    });
    await server.listen();
    const address = server.httpServer?.address();
    if (!address || typeof address === 'string') throw new Error('the dev server has no port');
    return { url: `http://127.0.0.1:${address.port}/${hash}`, close: () => server.close() };
  }
  const page = await serveBuiltPage(dist, 'rema-startup-');
  return { url: `${page.url}${hash}`, close: page.close };
}

const server = await serve();
const url = server.url;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--enable-unsafe-webgpu', '--disable-background-networking', '--disable-component-update'],
});

/** The "auto" backend's kept rates (localStorage) to start each context with; null: none (a first visit). */
let keptRates: string | null = null;

/** One load in a fresh context: every start-up mark, ms since navigation start (first-eval may still be missing). */
async function load(): Promise<Record<string, number>> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  if (keptRates !== null)
    await context.addInitScript(([key, value]) => localStorage.setItem(key, value), [RATES_KEY, keptRates] as const);
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(
    () =>
      performance.getEntriesByName('rema:ready').length > 0 &&
      performance.getEntriesByName('rema:first-rollout').length > 0,
    null,
    { timeout: 120_000 },
  );
  await page.getByTestId('train').waitFor({ state: 'visible' });
  // a first visit: the measurement after the first rollout, so the next load does not compete with it
  if (keptRates === null)
    await page.waitForFunction(
      () =>
        performance.getEntriesByName('rema:auto-measured').length > 0 ||
        !document.querySelector('[data-testid=auto-backend]')?.textContent?.includes('for now'),
      null,
      { timeout: 120_000 },
    );
  const marks = await page.evaluate(() =>
    Object.fromEntries(
      performance
        .getEntriesByType('mark')
        .filter((m) => m.name.startsWith('rema:'))
        .map((m) => [m.name.slice(5), Math.round(m.startTime)]),
    ),
  );
  if (cached && keptRates === null) keptRates = await page.evaluate((key) => localStorage.getItem(key), RATES_KEY);
  await context.close();
  return marks;
}

try {
  console.log(
    `load average at the start (1, 5, 15 min): ${loadavg()
      .map((x) => x.toFixed(2))
      .join(', ')}`,
  );
  console.log(`warming the ${built ? 'preview' : 'dev'} server (${url}) ...`);
  await load();
  if (cached) console.log(`kept rates for every load: ${keptRates}`);
  const rows: Record<string, number>[] = [];
  for (let i = 0; i < loads; i++) {
    const marks = await load();
    rows.push(marks);
    console.log(`load ${i + 1}: ${MARKS.map((m) => `${m} ${marks[m] ?? '-'} ms`).join(', ')}`);
  }
  const summary = Object.fromEntries(
    MARKS.map((m) => [m, median(rows.map((r) => r[m]).filter((x) => x !== undefined))]),
  );
  console.log(
    `median of ${loads} loads (ms since navigation start): ${MARKS.map((m) => `${m} ${summary[m] ?? '-'}`).join(', ')}`,
  );
  console.log(
    `load average at the end (1, 5, 15 min): ${loadavg()
      .map((x) => x.toFixed(2))
      .join(', ')}`,
  );
  console.log(JSON.stringify({ loads, url, built, cached, median: summary, loadavg: loadavg(), rows }));
} finally {
  await browser.close();
  await server.close();
}
