// The plan-to-reasoning view on the real embedded model: a problem with a loss and a plan that misreads it as a
// gain (the embedded model's own flaw, planted here by hand) is followed by the real reasoning agent, and the view
// marks the misread plan step and the computation that carries it out; training adds the followed problem's
// greedy plan to the timeline. Screenshots at 1920x1080, 1440x900 and 1280x720.
import { expect, test } from '@playwright/test';
import { FAST_HASH } from '../helpers/e2e/page.ts';

const QUESTION = 'Ann has 7 figs. She buys 5 more. She loses 3. She doubles them. How many figs now?';
const MISREAD_PLAN = 'Start at 7. Add 5. Add 3. Double it.';

test('the aligned view marks a planted misread plan step and the computation that follows it', async ({
  page,
}, info) => {
  await page.goto(`/${FAST_HASH}`);
  // the followed problem's greedy episode is on screen before anything is clicked
  await expect(page.getByTestId('followed-card')).toBeVisible({ timeout: 60_000 });
  await page.getByTestId('followed-open').click();
  await expect(page.getByTestId('plan-view')).toBeVisible();
  await expect(page.getByTestId('aligned-trace')).toBeVisible();

  await page.getByTestId('try-question').fill(QUESTION);
  await page.getByTestId('try-gold').fill('18');
  await page.getByTestId('try-plan-text').fill(MISREAD_PLAN);
  await page.getByTestId('try-plan-run').click();
  const tried = page.getByTestId('aligned-tried');
  await expect(tried).toBeVisible({ timeout: 60_000 });
  await expect(tried).toHaveAttribute('data-flawed', 'true');
  // exactly one plan step is flawed: "Add 3." against "She loses 3."
  const flawed = tried.locator('[data-testid="plan-step"]:not([data-flaw=""])');
  await expect(flawed).toHaveCount(1);
  await expect(flawed).toHaveText('Add 3.');
  await expect(flawed).toHaveAttribute('data-flaw', 'loss-as-gain');
  await expect(tried.locator('[data-testid="aligned-row"][data-flaw="loss-as-gain"] td').first()).toHaveText(
    'She loses 3.',
  );
  // the reasoning agent follows the plan: its computation for that step adds 3, and is marked as gone astray
  const astray = tried.locator('[data-testid="reasoning-step"][data-astray="true"]');
  await expect(astray).toHaveCount(1);
  await expect(astray).toHaveText(/^\d+\s*\+\s*3\s*=\s*\d+$/);
  await expect(tried.getByTestId('aligned-summary')).toContainText('leads the reasoning agent astray');
  info.annotations.push({
    type: 'reasoning agent',
    description: (await tried.locator('[data-testid="reasoning-step"]').allTextContents()).join(' '),
  });

  // training refreshes the followed problem's plan every step here: the timeline grows
  await page.getByTestId('follow-every').selectOption('1');
  await page.getByTestId('train').click();
  await expect.poll(() => page.getByTestId('timeline-entry').count(), { timeout: 90_000 }).toBeGreaterThanOrEqual(3);
  await page.getByTestId('pause').click();
  await expect(page.getByTestId('train')).toBeVisible({ timeout: 30_000 });
  expect(Number(await page.getByTestId('timeline-entry').first().getAttribute('data-step'))).toBe(0);

  for (const size of [
    { width: 1920, height: 1080 },
    { width: 1440, height: 900 },
    { width: 1280, height: 720 },
  ]) {
    await page.setViewportSize(size);
    await page.waitForTimeout(300);
    await page.screenshot({ path: info.outputPath(`plan-view-${size.width}x${size.height}.png`), fullPage: true });
  }
});
