// Shared steps of the browser tests: start the page with a small, fast experiment in the URL, record every
// network request, wait for training steps, and save screenshots at the two widths we check.
import { expect, type Page, type TestInfo } from '@playwright/test';

/**
 * Small steps so the 2-core CI machine finishes several in seconds: 2 problems x group 4, 3 turns of 32 tokens,
 * and enough steps that training never ends on its own during a test.
 */
export const FAST_HASH =
  '#preset=tiny-default&problemsPerStep=2&groupSize=4&maxTurns=3&maxTokensPerTurn=32&steps=1000&evalEvery=0&evalBeforeTrain=false';

export const viewports = { desktop: { width: 1440, height: 900 }, laptop: { width: 1280, height: 720 } } as const;

/** Every request URL of the browser context (the page and its training worker), to assert the run stays on the page's origin. */
export function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  page.context().on('request', (r) => urls.push(r.url()));
  return urls;
}

export function foreignRequests(urls: readonly string[], origin: string): string[] {
  return urls.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:'));
}

export async function waitForReady(page: Page, timeout = 60_000): Promise<void> {
  await expect(page.getByTestId('status')).toHaveAttribute('data-status', 'idle', { timeout });
  await expect(page.getByTestId('train')).toBeEnabled();
}

/** The number of the latest completed step shown in the controls. */
export async function stepsDone(page: Page): Promise<number> {
  const text = (await page.getByTestId('step-count').textContent()) ?? '';
  return Number(/step (\d+)/.exec(text)?.[1] ?? NaN);
}

export async function waitForSteps(page: Page, atLeast: number, timeout = 90_000): Promise<void> {
  await expect.poll(() => stepsDone(page), { timeout, intervals: [500] }).toBeGreaterThanOrEqual(atLeast);
}

/** Screenshot of the current view at both widths (files land in test-results/ as artifacts). */
export async function screenshotBoth(page: Page, info: TestInfo, name: string): Promise<void> {
  for (const [label, size] of Object.entries(viewports)) {
    await page.setViewportSize(size);
    await page.waitForTimeout(150);
    await page.screenshot({ path: info.outputPath(`${name}-${label}-${size.width}x${size.height}.png`) });
  }
  await page.setViewportSize(viewports.desktop);
}
