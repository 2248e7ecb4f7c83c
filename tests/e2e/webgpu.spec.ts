// The WebGPU path of the page: with backend=webgpu in the URL the worker requests Chromium's adapter
// (SwiftShader here), the header names it and says whether shader-f16 exists, and the tiny model loads on it.
// The backend "auto" (measured on the model) is auto-backend.spec.ts.
import { expect, test } from '@playwright/test';
import { FAST_HASH, waitForReady, waitForSteps } from './helpers.ts';

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
