// Presenter mode from a link (present=1&autoReset=N): it trains by itself, space pauses and resumes, r starts a new
// run that trains by itself, a run past N steps is replaced by a new one, the caption is built from the run, and
// the state is in the link. Screenshots at the projector's 1920x1080 and at 1440x900 and 1280x720.
import { expect, test, type Page } from '@playwright/test';
import { FAST_HASH } from '../helpers/e2e/page.ts';

const step = async (page: Page) => Number(await page.getByTestId('presenter').getAttribute('data-step'));

test('presenter mode: auto-train, space pauses and resumes, r resets, auto-reset after N steps, state in the link', async ({
  page,
}, info) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto(`/${FAST_HASH}&present=1&autoReset=8&followEvery=2`);
  const presenter = page.getByTestId('presenter');
  await expect(presenter).toBeVisible();
  // the followed problem and training both start without a click
  await expect(page.getByTestId('presenter-plan')).not.toBeEmpty({ timeout: 60_000 });
  await expect(presenter).toHaveAttribute('data-training', 'true', { timeout: 60_000 });
  // a few steps, well before the new run at step 8 (polled often: the steps are fast)
  await expect.poll(() => step(page), { timeout: 90_000, intervals: [100] }).toBeGreaterThanOrEqual(3);
  expect(page.url()).toContain('present=1');
  expect(page.url()).toContain('autoReset=8');
  expect(page.url()).toContain('followEvery=2');

  // space pauses: the steps stop
  await page.keyboard.press(' ');
  await expect(presenter).toHaveAttribute('data-training', 'false');
  await expect(page.getByTestId('presenter-state')).toContainText('paused');
  await page.waitForTimeout(2_000);
  const paused = await step(page);
  await page.waitForTimeout(2_000);
  expect(await step(page)).toBe(paused);
  await expect(page.getByTestId('presenter-caption')).toContainText(new RegExp(`^Step ${paused}: `));
  // the followed problem was refreshed while training: earlier plans are listed under the live one
  await expect(page.getByTestId('presenter-history').locator('li')).not.toHaveCount(0);
  await page.screenshot({ path: info.outputPath('presenter-1920x1080.png') });
  for (const size of [
    { width: 1440, height: 900 },
    { width: 1280, height: 720 },
  ]) {
    await page.setViewportSize(size);
    await page.waitForTimeout(300);
    await page.screenshot({ path: info.outputPath(`presenter-${size.width}x${size.height}.png`) });
  }
  await page.setViewportSize({ width: 1920, height: 1080 });

  // r: a new run (step 0), still paused because the presenter paused it
  await page.keyboard.press('r');
  await expect.poll(() => step(page), { timeout: 30_000 }).toBe(0);
  await page.waitForTimeout(1_500);
  expect(await step(page)).toBe(0);
  await expect(presenter).toHaveAttribute('data-training', 'false');

  // space resumes; after autoReset=8 steps a new run starts by itself and trains again. The reset follows step 8's
  // event at once, so the screen may go from step 7 straight to the new run: every value of data-step is recorded in
  // the page, and the new run shows as a drop after step 7 or 8 (the presenter pressed nothing).
  await presenter.evaluate((el) => {
    const seen: number[] = [];
    (window as Window & { presenterSteps?: number[] }).presenterSteps = seen;
    new MutationObserver(() => seen.push(Number(el.getAttribute('data-step')))).observe(el, {
      attributes: true,
      attributeFilter: ['data-step'],
    });
  });
  await page.keyboard.press(' ');
  await expect(presenter).toHaveAttribute('data-training', 'true');
  await expect
    .poll(
      () =>
        page.evaluate(() => {
          const seen = (window as Window & { presenterSteps?: number[] }).presenterSteps ?? [];
          return seen.some((s, i) => i > 0 && s < seen[i - 1] && seen[i - 1] >= 7);
        }),
      { timeout: 120_000, intervals: [200] },
    )
    .toBe(true);
  const seen = await page.evaluate(() => (window as Window & { presenterSteps?: number[] }).presenterSteps ?? []);
  expect(Math.max(...seen)).toBeLessThanOrEqual(8);
  await expect.poll(() => step(page), { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
  await expect(presenter).toHaveAttribute('data-training', 'true');

  // Escape leaves presenter mode, and the link says so
  await page.keyboard.press('Escape');
  await expect(presenter).toBeHidden();
  await expect(page.getByTestId('train').or(page.getByTestId('pause'))).toBeVisible();
  expect(page.url()).not.toContain('present=1');
  expect(page.url()).toContain('autoReset=8');
});
