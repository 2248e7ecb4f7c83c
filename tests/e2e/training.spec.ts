// The main loop in a real browser: open the page offline on the tiny model, train, watch the curves and the
// rollouts fill, pause and resume, reload and find the run, export it as JSON; no request leaves the origin.
import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import {
  FAST_HASH,
  foreignRequests,
  recordRequests,
  screenshotBoth,
  stepsDone,
  waitForReady,
  waitForSteps,
} from '../helpers/e2e/page.ts';

test('the first rollouts appear after opening, without training', async ({ page, baseURL }, info) => {
  const requests = recordRequests(page);
  const t0 = Date.now();
  await page.goto('/#preset=tiny-default&evalSize=8&view=rollouts');
  await expect(page.getByTestId('sample').first()).toBeVisible({ timeout: 60_000 });
  info.annotations.push({ type: 'first rollout after (ms)', description: String(Date.now() - t0) });
  await expect(page.getByTestId('inspector-source')).toContainText('held-out evaluation after 0 updates');
  await expect(page.getByTestId('sample').first().locator('[data-role="meta"]').first()).toBeVisible();
  await screenshotBoth(page, info, '00-first-rollouts');
  // the recorder sees the worker's requests too (the weights are fetched there)
  expect(requests.some((u) => u.endsWith('/models/tiny-rema/model.safetensors'))).toBe(true);
  expect(foreignRequests(requests, new URL(baseURL!).origin)).toEqual([]);
});

test('train, pause, resume, reload, export: all on the page origin', async ({ page, baseURL }, info) => {
  const requests = recordRequests(page);
  await page.goto(`/${FAST_HASH}`);
  await expect(page.getByRole('heading', { name: 'ReMA Playground' })).toBeVisible();
  await waitForReady(page);
  await expect(page.getByTestId('model')).toContainText('tiny-rema');
  const backendText = await page.getByTestId('backend').textContent();
  info.annotations.push({ type: 'backend', description: backendText ?? '' });
  await screenshotBoth(page, info, '01-start');

  // train until at least two steps are done
  await page.getByTestId('train').click();
  await waitForSteps(page, 2);
  await expect(page.locator('[data-chart="reward"] .recharts-line')).not.toHaveCount(0);
  // mean and std, each a line through at least two steps (the charts redraw at most twice a second, so the second
  // step may lag; by then training may have passed the 30 points up to which a line draws its dots)
  await expect
    .poll(() =>
      page
        .locator('[data-chart="reward"] path.recharts-line-curve')
        .evaluateAll((paths) => paths.filter((p) => /[LC]/.test(p.getAttribute('d') ?? '')).length),
    )
    .toBeGreaterThanOrEqual(2);

  // pause: the step in flight finishes, then nothing more happens
  await page.getByTestId('pause').click();
  await waitForReady(page);
  const paused = await stepsDone(page);
  await page.waitForTimeout(2500);
  expect(await stepsDone(page)).toBe(paused);
  await screenshotBoth(page, info, '02-curves');

  // the inspector shows both agents' turns for the latest step
  await page.getByTestId('tab-rollouts').click();
  const sample = page.getByTestId('sample').first();
  await expect(sample).toBeVisible();
  await expect(sample.locator('[data-role="meta"]').first()).toBeVisible();
  await expect(sample).toContainText(/r=-?\d/);
  // a reasoning turn in some group (an episode whose plan hit the token cap ends before the reasoning agent speaks)
  let reasoningShown = false;
  for (const row of await page.getByTestId('group-row').all()) {
    await row.click();
    if ((await page.locator('[data-testid="sample"] [data-role="reasoning"]').count()) > 0) {
      reasoningShown = true;
      break;
    }
  }
  expect(reasoningShown).toBe(true);
  await screenshotBoth(page, info, '03-rollouts');

  // token colouring: the training step's trained tokens become tinted spans with their values in a tooltip
  await page.getByTestId('colouring').selectOption('token-ratio');
  const tokens = page.locator('[data-testid="sample"] [data-testid="token"]');
  await expect(tokens.first()).toBeVisible();
  expect(await tokens.first().getAttribute('title')).toMatch(/ratio \d/);
  await page.getByTestId('colouring').selectOption('token-advantage');
  await expect(tokens.first()).toBeVisible();
  await screenshotBoth(page, info, '03b-token-colouring');
  await page.getByTestId('colouring').selectOption('advantage');
  await expect(tokens).toHaveCount(0);

  // resume
  await page.getByTestId('train').click();
  await waitForSteps(page, paused + 1);
  await page.getByTestId('pause').click();
  await waitForReady(page);
  const total = await stepsDone(page);

  // reload: the run is still listed with its steps
  await page.reload();
  await page.getByTestId('tab-runs').click();
  const row = page.getByTestId('run-row').first();
  await expect(row).toBeVisible();
  await expect(row.locator('td').nth(4)).toHaveText(String(total));
  await screenshotBoth(page, info, '04-runs');

  // its last rollouts can be opened again
  await row.getByTestId('inspect-run').click();
  await expect(page.getByTestId('inspecting-saved')).toBeVisible();
  await expect(page.getByTestId('sample').first()).toBeVisible();
  await page.getByTestId('tab-runs').click();

  // export JSON and check its content
  const [download] = await Promise.all([page.waitForEvent('download'), row.getByTestId('export-json').click()]);
  const file = JSON.parse(await readFile((await download.path())!, 'utf8'));
  expect(file.format).toBe('rema-playground-run');
  expect(file.metrics).toHaveLength(total);
  expect(file.metrics.map((m: { step: number }) => m.step)).toEqual([...Array(total)].map((_, i) => i + 1));
  expect(file.config).toMatchObject({ problemsPerStep: 2, groupSize: 4, maxTurns: 3 });
  expect(file.rollouts.length).toBe(2 * 4);
  expect(file.model).toBe('tiny-rema');

  // import the exported file back: it is listed and overlaid on the curves
  await page.getByTestId('import-run').setInputFiles((await download.path())!);
  await expect(page.getByTestId('run-row')).toHaveCount(2);
  await page.getByTestId('run-row').nth(1).getByRole('checkbox').check();
  await page.getByTestId('tab-curves').click();
  // two runs x (mean, std) lines, and a legend naming both runs
  await expect(page.locator('[data-chart="reward"] .recharts-line')).toHaveCount(4);
  await expect(page.getByTestId('run-legend')).toContainText('(imported)');
  await screenshotBoth(page, info, '05-overlay');

  expect(foreignRequests(requests, new URL(baseURL!).origin)).toEqual([]);
});
