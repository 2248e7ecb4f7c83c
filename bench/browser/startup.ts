// Start-up time of the playground page (issue 17 item 4): `npm start`'s vite dev server, warmed by one load, then
// N fresh page loads in Debian's Chromium (a new browser context each: empty IndexedDB and HTTP cache, as a
// newcomer), each waiting until Train is enabled and a rollout is on screen. Reads the page's start-up marks
// (src/app/util/startup-marks.ts, ms since navigation start) and prints each load and the median of each mark.
//   node --import tsx bench/browser/startup.ts [--loads 7] [--hash '#preset=tiny-default']
import { resolve } from 'node:path';
import { chromium } from '@playwright/test';
import { createServer } from 'vite';

const root = resolve(import.meta.dirname, '../..');
const argv = process.argv.slice(2);
const arg = (flag: string, fallback: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : fallback);
const loads = Number(arg('--loads', '7'));
const hash = arg('--hash', '');
const MARKS = ['script', 'paint', 'backend', 'ready', 'first-rollout', 'first-eval'] as const;

function median(xs: number[]): number {
  const s = xs.toSorted((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

const server = await createServer({ root, configFile: resolve(root, 'vite.config.ts'), server: { host: '127.0.0.1', port: 0, strictPort: false }, logLevel: 'error' });
await server.listen();
const address = server.httpServer?.address();
if (!address || typeof address === 'string') throw new Error('the dev server has no port');
const url = `http://127.0.0.1:${address.port}/${hash}`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--enable-unsafe-webgpu', '--disable-background-networking', '--disable-component-update'],
});

/** One load in a fresh context: every start-up mark, ms since navigation start (first-eval may still be missing). */
async function load(): Promise<Record<string, number>> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName('rema:ready').length > 0 && performance.getEntriesByName('rema:first-rollout').length > 0, null, { timeout: 120_000 });
  await page.getByTestId('train').waitFor({ state: 'visible' });
  const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('rema:')).map((m) => [m.name.slice(5), Math.round(m.startTime)])));
  await context.close();
  return marks;
}

try {
  console.log(`warming the dev server (${url}) ...`);
  await load();
  const rows: Record<string, number>[] = [];
  for (let i = 0; i < loads; i++) {
    const marks = await load();
    rows.push(marks);
    console.log(`load ${i + 1}: ${MARKS.map((m) => `${m} ${marks[m] ?? '-'} ms`).join(', ')}`);
  }
  const summary = Object.fromEntries(MARKS.map((m) => [m, median(rows.map((r) => r[m]).filter((x) => x !== undefined))]));
  console.log(`median of ${loads} loads (ms since navigation start): ${MARKS.map((m) => `${m} ${summary[m]}`).join(', ')}`);
  console.log(JSON.stringify({ loads, url, median: summary, rows }));
} finally {
  await browser.close();
  await server.close();
}
