// The built page on a plain static host: `npm run build`'s folder served from a sub-path by a file server that
// sends no COOP/COEP headers (as GitHub Pages and the like). The page must load from the sub-path, become
// cross-origin isolated through its service worker (so the CPU backend gets its two threads), train, and open
// again with the network gone.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { FAST_HASH, waitForReady, waitForSteps } from '../helpers/e2e/page.ts';

const dist = resolve(import.meta.dirname, '../../dist');
const SUB = '/courses/rema/';
const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.woff2': 'font/woff2',
};

/** Files of `dist` under SUB, with a content type and nothing else: no isolation headers, no caching rules. */
function staticServer(): Server {
  return createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (!path.startsWith(SUB)) return void res.writeHead(404).end();
    let file = normalize(join(dist, path.slice(SUB.length)));
    if (!file.startsWith(dist)) return void res.writeHead(403).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
}

let server: Server;
let origin = '';

test.beforeAll(async () => {
  // the suite's web server (playwright.config.ts) builds dist before any test runs
  expect(existsSync(join(dist, 'index.html')), 'dist/ is built').toBe(true);
  server = staticServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  origin = `http://127.0.0.1:${address.port}`;
});

test.afterAll(() => new Promise<void>((done) => server.close(() => done())));

test('a sub-path on a host without isolation headers: two threads, trains, opens offline', async ({
  page,
  context,
}) => {
  const responses: { url: string; coep: string | null }[] = [];
  page.on('response', (r) =>
    responses.push({ url: r.url(), coep: r.headers()['cross-origin-embedder-policy'] ?? null }),
  );
  await page.goto(`${origin}${SUB}${FAST_HASH}`);
  await waitForReady(page, 120_000);
  // the host sent no headers; the page reloaded once through the service worker, which added them
  expect(responses.some((r) => r.url.startsWith(`${origin}${SUB}`) && r.coep === null)).toBe(true);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  expect(page.url()).toContain(SUB);
  await expect(page.getByTestId('backend')).toContainText('2 threads');

  await page.getByTestId('train').click();
  await waitForSteps(page, 2);
  await page.getByTestId('pause').click();
  await waitForReady(page);

  // offline: the page, its scripts and the embedded model come from the service worker's cache
  await context.setOffline(true);
  await page.reload();
  await waitForReady(page, 120_000);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  await context.setOffline(false);
});
