// Bad input never gives a blank page: an invalid link, an invalid repo id, a folder that is not a model, and
// a local folder that is a model (the committed tiny Qwen2.5 fixture) loading from disk.
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { FAST_HASH, waitForReady } from './helpers.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/hf/${name}`, import.meta.url));

test('an invalid URL names the field and falls back to the preset', async ({ page }) => {
  await page.goto('/#preset=tiny-default&groupSize=0&view=curves');
  await expect(page.getByTestId('error-banner')).toContainText('groupSize');
  await expect(page.locator('#knob-groupSize')).toHaveValue('8');
});

test('an invalid Hugging Face repo id is explained', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('hf-repo').fill('not a repo');
  await page.getByTestId('hf-load').click();
  await expect(page.getByRole('alert').filter({ hasText: 'not a Hugging Face repository id' })).toBeVisible();
});

test('a local folder without a model gives a clear message; a real one loads', async ({ page }, info) => {
  await page.goto(`/${FAST_HASH}`);
  await waitForReady(page);
  await page.getByTestId('folder-input').setInputFiles(fileURLToPath(new URL('.', import.meta.url)));
  await expect(page.getByTestId('error-banner')).toContainText('could not load the model', { timeout: 30_000 });
  await page.screenshot({ path: info.outputPath('07-bad-folder.png') });
  await page.getByTestId('folder-input').setInputFiles(fixture('tiny-qwen2.5-instruct'));
  await waitForReady(page);
  await expect(page.getByTestId('model')).toContainText('local: tiny-qwen2.5-instruct');
  await expect(page.getByTestId('model')).toContainText('qwen2');
});
