// The page is served cross-origin isolated (COOP/COEP in vite.config.ts), so the CPU backend splits large matmuls
// over a nested helper Web Worker on a shared WebAssembly memory, says "2 threads" in the header, and trains.
import { expect, test } from '@playwright/test';
import { FAST_HASH, waitForReady, waitForSteps } from './helpers.ts';

test('cross-origin isolated page: the CPU backend runs 2 threads and trains a step', async ({ page }) => {
  await page.goto(`/${FAST_HASH}&backend=cpu`);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  expect(await page.evaluate(() => typeof SharedArrayBuffer)).toBe('function');
  await waitForReady(page);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  await expect(page.getByTestId('backend')).toContainText(cores >= 2 ? /WebAssembly .*SIMD kernels, 2 threads/ : /1 thread/);
  await page.getByTestId('train').click();
  await waitForSteps(page, 1);
});
