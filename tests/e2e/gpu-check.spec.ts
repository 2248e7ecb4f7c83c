// "Check this GPU" in Chromium (its software WebGPU adapter on a machine without a GPU): the self-test runs in its own
// worker from the page's own files (no request leaves the origin), shows the adapter, a pass line per kernel class
// and the speed probe, the limits, features and subgroup sizes, and its JSON, which "Copy JSON" puts on the
// clipboard as shown.
import { expect, test } from '@playwright/test';
import { foreignRequests, recordRequests } from '../helpers/e2e/page.ts';

test('Check this GPU runs the golden fixtures on the adapter and offers the report as JSON', async ({
  page,
  context,
  baseURL,
}, info) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const urls = recordRequests(page);
  await page.goto('/');
  const run = page.getByTestId('gpu-check-run');
  await expect(run).toHaveText('Check this GPU');
  await run.click();
  await expect(page.getByTestId('gpu-check-step')).toBeVisible();
  await expect(page.getByTestId('gpu-check-result')).toBeVisible({ timeout: 150_000 });
  await expect(page.getByTestId('gpu-check-verdict')).toHaveText('every kernel class matches the golden references');
  const lines = page.getByTestId('gpu-check-lines');
  await expect(lines).toContainText(/^adapter: \S/m);
  for (const name of ['forward/f32', 'logprobs/f32', 'decode/f32', 'lora-gradients/f32', 'gradients/f32'])
    await expect(lines).toContainText(new RegExp(`pass +${name} +worst`));
  await expect(lines).toContainText(/speed: matmul 128x1024x512 [\d.]+ GFLOP\/s; decode [\d.]+ tok\/s/);
  const details = page.getByTestId('gpu-check-details');
  await expect(details).toContainText(/limits: maxBufferSize \d+ MiB/);
  await expect(details).toContainText(/^features: \S/m);
  await expect(details).toContainText(/^subgroup sizes: /m);
  const report = JSON.parse((await page.getByTestId('gpu-check-json').textContent()) ?? '');
  expect(report.ok).toBe(true);
  expect(report.adapter.vendor).not.toBe('');
  expect(report.limits.maxStorageBufferBindingSize).toBeGreaterThan(0);
  expect(report.checks.every((c: { ok: boolean }) => c.ok)).toBe(true);
  expect(report.speed.decode.tok_s).toBeGreaterThan(0);
  info.annotations.push({ type: 'gpu self-test (s)', description: String(report.seconds) });
  await page.getByTestId('gpu-check-copy').click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(JSON.stringify(report, null, 2));
  await page.screenshot({ path: info.outputPath('gpu-check-1440x900.png') });
  expect(foreignRequests(urls, baseURL!)).toEqual([]);
});
