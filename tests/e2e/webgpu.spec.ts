// The WebGPU path of the page: with backend=webgpu in the URL the worker requests Chromium's adapter
// (SwiftShader here), the header names it and says whether shader-f16 exists, and the tiny model loads on it.
// The backend "auto" (measured on the model) is auto-backend.spec.ts. The "weights" menu (auto / f32) is in the link
// and the header names the storage the trainer uses.
import { expect, test } from '@playwright/test';
import { FAST_HASH, waitForReady, waitForSteps } from '../helpers/e2e/page.ts';

test('backend=webgpu uses the WebGPU adapter, says so, and trains a step on it', async ({ page }, info) => {
  await page.goto(`/${FAST_HASH}&backend=webgpu`);
  await waitForReady(page, 120_000);
  const header = page.getByTestId('backend');
  await expect(header).toContainText('WebGPU');
  await expect(header).toContainText(/f16|f32/);
  await expect(page.getByTestId('cpu-notice')).toHaveCount(0);
  // one RL update on the WebGPU backend (SwiftShader emulates the GPU on the CPU here: slow but real)
  const t0 = Date.now();
  await page.getByTestId('step').click();
  await waitForSteps(page, 1, 150_000);
  info.annotations.push({ type: 'webgpu step (ms)', description: String(Date.now() - t0) });
  await page.getByTestId('tab-rollouts').click();
  await expect(page.getByTestId('sample').first()).toBeVisible();
  await page.screenshot({ path: info.outputPath('08-webgpu-rollouts-1440x900.png') });
});

test('the weights menu forces f32 base weights: in the link, sent to the worker, named in the header', async ({
  page,
}) => {
  await page.goto(`/${FAST_HASH}&backend=webgpu&weights=f32`);
  await waitForReady(page, 120_000);
  await expect(page.getByTestId('weights-pref')).toHaveValue('f32');
  await expect(page.getByTestId('backend')).toContainText('f32 base, f32 KV cache');
  // back to auto: the link drops the key and the model reloads; SwiftShader has no shader-f16, so auto is f32 here
  await page.getByTestId('weights-pref').selectOption('auto');
  await expect.poll(() => page.evaluate(() => location.hash)).not.toContain('weights=');
  await waitForReady(page, 120_000);
  await expect(page.getByTestId('backend')).toContainText(
    /f32 base, f32 KV cache \(no shader-f16\)|f16 base, f16 KV cache/,
  );
});
