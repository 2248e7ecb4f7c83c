// The page answers quickly: with the Curves view open and the smallest steps streaming in (dozens a second on the
// 2-core machine), Pause is clickable and takes effect within two seconds; and Train opens as soon as the model
// is loaded, while the start-up baseline evaluation still runs (the steps queue after it).
import { expect, test } from '@playwright/test';
import { stepsDone, waitForReady, waitForSteps } from '../helpers/e2e/page.ts';

/** The smallest steps the config allows: 1 problem x 2 samples, one turn of 4 tokens, no evaluation. */
const TINY_STEPS =
  '#preset=tiny-default&problemsPerStep=1&groupSize=2&miniBatches=1&maxTurns=1&maxTokensPerTurn=4&steps=100000&evalEvery=0&evalBeforeTrain=false&view=curves';

test('Pause responds within 2 s while fast steps stream into the Curves view', async ({ page }, info) => {
  await page.goto(`/${TINY_STEPS}`);
  await waitForReady(page);
  await page.getByTestId('train').click();
  // let steps pile up on the open charts (the page is not asked anything meanwhile)
  await page.waitForTimeout(8_000);

  const t0 = Date.now();
  await page.getByTestId('pause').click({ timeout: 2_000 });
  await expect(page.getByTestId('train')).toBeVisible({ timeout: 2_000 });
  await expect(page.getByTestId('status')).toHaveAttribute('data-status', 'idle', { timeout: 2_000 });
  const tookMs = Date.now() - t0;
  const steps = await stepsDone(page);
  info.annotations.push({ type: 'pause', description: `${tookMs} ms after ${steps} steps` });
  expect(tookMs).toBeLessThan(2_000);
  // the steps were fast (this is the load the test is about) and they stopped
  expect(steps).toBeGreaterThanOrEqual(50);
  await page.waitForTimeout(1_000);
  expect(await stepsDone(page)).toBe(steps);
  // the charts drew the run
  await expect(page.locator('[data-chart="reward"]')).toHaveAttribute('data-points', String(steps));
  await expect(page.locator('[data-chart="reward"] .recharts-line')).not.toHaveCount(0);
});

test('Train opens while the start-up evaluation runs, and the steps follow it', async ({ page }, info) => {
  const t0 = Date.now();
  // the preset's baseline evaluation (64 held-out problems) runs after the model loads; steps at the preset's own
  // size (8 problems x 8, seconds each), so the evaluation's rollouts stay on screen long enough to be seen before
  // the first step replaces them (tiny steps replaced them between two polls)
  await page.goto('/#preset=tiny-default&evalEvery=0&view=rollouts');
  await expect(page.getByTestId('train')).toBeEnabled({ timeout: 60_000 });
  const readyMs = Date.now() - t0;
  const statusThen = await page.getByTestId('status').getAttribute('data-status');
  info.annotations.push({ type: 'Train enabled after (ms)', description: `${readyMs} (status ${statusThen})` });
  // Train opens as soon as the model is loaded: before the followed problem's first rollout (idle) or during the evaluation
  expect(['idle', 'evaluating']).toContain(statusThen);
  // and stays open once the start-up evaluation runs
  await expect(page.getByTestId('status')).toHaveAttribute('data-status', 'evaluating', { timeout: 30_000 });
  await expect(page.getByTestId('train')).toBeEnabled();
  await page.getByTestId('train').click();
  await expect(page.getByTestId('status')).toContainText('training starts after it');
  // the evaluation's rollouts come first, then the steps
  await expect(page.getByTestId('inspector-source')).toContainText('held-out evaluation after 0 updates', {
    timeout: 60_000,
  });
  await waitForSteps(page, 1);
  await page.getByTestId('pause').click();
  await waitForReady(page);
  expect(await stepsDone(page)).toBeGreaterThanOrEqual(1);
});
