// Start-up time, logged from the page's own performance marks (src/app/util/startup-marks.ts):
// when Train is enabled and when the first rollout is on screen, in ms since navigation. Asserted only loosely
// (the 2-core test machine runs other work); bench/browser/startup.ts measures the median (the built page as
// `npm start` serves it; --dev: the dev server).
import { expect, test } from '@playwright/test';

test('the page is ready to train with a rollout on screen soon after opening', async ({ page }, info) => {
  await page.goto('/');
  await expect(page.getByTestId('followed-card')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('train')).toBeEnabled();
  const marks = await page.evaluate(() =>
    Object.fromEntries(
      performance
        .getEntriesByType('mark')
        .filter((m) => m.name.startsWith('rema:'))
        .map((m) => [m.name.slice(5), Math.round(m.startTime)]),
    ),
  );
  const line = ['script', 'paint', 'backend', 'ready', 'first-rollout'].map((m) => `${m} ${marks[m]} ms`).join(', ');
  info.annotations.push({ type: 'start-up (ms since navigation)', description: line });
  console.log(`start-up: ${line}`);
  // the followed problem's rollout comes before the start-up evaluation's
  expect(marks['first-rollout']).toBeLessThan(marks['first-eval'] ?? Number.POSITIVE_INFINITY);
  expect(marks['ready']).toBeLessThan(10_000);
  expect(marks['first-rollout']).toBeLessThan(10_000);
});
