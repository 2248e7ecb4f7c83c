// A crash of the training worker in a real browser: an uncaught error thrown inside the worker during training
// becomes a fatal banner naming it, the run is kept in IndexedDB as "crashed" with every step it had finished
// (still there after a reload), and "Restart the worker" brings the page back to a state that trains again.
import { expect, test } from '@playwright/test';
import { FAST_HASH, stepsDone, waitForReady, waitForSteps } from '../helpers/e2e/page.ts';

test('a worker crash loses no finished step, and the worker can be restarted', async ({ page }) => {
  await page.goto(`/${FAST_HASH}`);
  await waitForReady(page);
  await page.getByTestId('train').click();
  await waitForSteps(page, 2);

  // throw from inside the training worker, as a bug in the engine would
  const worker = page.workers().find((w) => w.url().includes('trainer.worker'));
  expect(
    worker,
    `workers: ${page
      .workers()
      .map((w) => w.url())
      .join(', ')}`,
  ).toBeDefined();
  await worker!.evaluate(() => {
    setTimeout(() => {
      throw new Error('injected crash for the test');
    }, 0);
  });
  const banner = page.getByTestId('error-banner');
  await expect(banner).toContainText('training worker crashed');
  await expect(banner).toContainText('injected crash for the test');
  await expect(page.getByTestId('status')).toHaveAttribute('data-status', 'failed');
  const finished = await stepsDone(page);
  expect(finished).toBeGreaterThanOrEqual(2);

  // the run is saved as crashed with its finished steps, and survives a reload
  await page.getByTestId('tab-runs').click();
  const row = page.getByTestId('run-row').first();
  await expect(row.locator('td').nth(3)).toHaveText('crashed');
  await page.reload();
  await page.getByTestId('tab-runs').click();
  const saved = page.locator('[data-testid="run-row"]', { hasText: 'crashed' });
  await expect(saved).toHaveCount(1);
  const savedSteps = Number(await saved.locator('td').nth(4).textContent());
  expect(savedSteps).toBeGreaterThanOrEqual(finished);

  // a fresh page trains again; so does "Restart the worker" after another crash
  await waitForReady(page);
  await page.getByTestId('train').click();
  await waitForSteps(page, 1);
  await page.getByTestId('pause').click();
  await waitForReady(page);
  const again = page.workers().find((w) => w.url().includes('trainer.worker'))!;
  await again.evaluate(() => {
    setTimeout(() => {
      throw new Error('second injected crash');
    }, 0);
  });
  await expect(page.getByTestId('error-banner')).toContainText('second injected crash');
  await page.getByTestId('restart-worker').click();
  await waitForReady(page);
  await page.getByTestId('step').click();
  await expect(page.getByTestId('status')).toHaveAttribute('data-status', 'idle', { timeout: 60_000 });
  await expect(page.getByTestId('error-banner')).toHaveCount(0);
});
