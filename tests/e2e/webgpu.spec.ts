// The WebGPU path of the page: with backend=webgpu in the URL the worker requests Chromium's adapter
// (SwiftShader here), the header names it and says whether shader-f16 exists, and the tiny model loads on it.
import { expect, test } from '@playwright/test';
import { waitForReady } from './helpers.ts';

test('backend=webgpu uses the WebGPU adapter and says so', async ({ page }) => {
  await page.goto('/#preset=tiny-default&backend=webgpu');
  await waitForReady(page, 120_000);
  const header = page.getByTestId('backend');
  await expect(header).toContainText('WebGPU');
  await expect(header).toContainText(/f16|f32/);
  await expect(page.getByTestId('cpu-notice')).toHaveCount(0);
});

test('auto: WebGPU on a hardware adapter, else the CPU backend with a visible notice', async ({ page }) => {
  await page.goto('/');
  await waitForReady(page);
  const text = (await page.getByTestId('backend').textContent()) ?? '';
  if (text.includes('CPU backend')) await expect(page.getByTestId('cpu-notice')).toContainText(/software fallback|no WebGPU/);
  else expect(text).toContain('WebGPU');
});
