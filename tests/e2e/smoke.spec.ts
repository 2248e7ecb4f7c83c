// The built page opens in Chromium and finds a WebGPU adapter (SwiftShader on GPU-less machines).
import { expect, test } from '@playwright/test';

test('page opens and reports the WebGPU backend', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'ReMA Playground' })).toBeVisible();
  await expect(page.getByTestId('backend')).toContainText('webgpu', { timeout: 30_000 });
});
