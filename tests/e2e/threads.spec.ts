// The page is served cross-origin isolated (COOP/COEP in vite.config.ts), so the CPU backend splits large matmuls
// over a nested helper Web Worker on a shared WebAssembly memory, says "2 threads" in the header, and trains.
import { expect, test } from '@playwright/test';
import { FAST_HASH, waitForReady, waitForSteps } from '../helpers/e2e/page.ts';

test('cross-origin isolated page: the CPU backend runs 2 threads and trains a step', async ({ page }) => {
  await page.goto(`/${FAST_HASH}&backend=wasm`);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  expect(await page.evaluate(() => typeof SharedArrayBuffer)).toBe('function');
  await waitForReady(page);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  await expect(page.getByTestId('backend')).toContainText(
    cores >= 2 ? /WebAssembly .*SIMD kernels, 2 threads/ : /1 thread/,
  );
  await page.getByTestId('train').click();
  await waitForSteps(page, 1);
});

/** The held-out greedy rollouts the page shows on opening, as text (one entry per sample card). */
async function firstRollouts(page: import('@playwright/test').Page): Promise<string[]> {
  // backend=cpu: a link written before the WebAssembly backend was called wasm still opens on it
  await page.goto('/#preset=tiny-default&evalSize=8&view=rollouts&backend=cpu');
  await expect(page.getByTestId('inspector-source')).toContainText('held-out evaluation after 0 updates', {
    timeout: 60_000,
  });
  await waitForReady(page);
  return page.getByTestId('sample').allTextContents();
}

test('2 threads and 1 thread (page served without COOP/COEP) write the same greedy rollouts', async ({ browser }) => {
  const isolated = await browser.newPage();
  const twoThreads = await firstRollouts(isolated);
  const cores = await isolated.evaluate(() => navigator.hardwareConcurrency);
  await expect(isolated.getByTestId('backend')).toContainText(cores >= 2 ? /2 threads/ : /1 thread/);
  await isolated.close();

  // the same server, its isolation headers stripped and no service worker to add them back (public/site-sw.js):
  // no SharedArrayBuffer, so the single-thread path, and the header line says why
  const plain = await browser.newContext({ serviceWorkers: 'block' });
  await plain.route('**/*', async (route) => {
    const response = await route.fetch();
    const headers = { ...response.headers() };
    delete headers['cross-origin-opener-policy'];
    delete headers['cross-origin-embedder-policy'];
    await route.fulfill({ response, headers });
  });
  const page = await plain.newPage();
  const oneThread = await firstRollouts(page);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
  await expect(page.getByTestId('backend')).toContainText('1 thread: no SharedArrayBuffer');
  await plain.close();

  expect(twoThreads.length).toBeGreaterThan(0);
  expect(oneThread).toEqual(twoThreads);
});
