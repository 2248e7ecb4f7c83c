// Bad input never gives a blank page: an invalid link, a link to a dataset file (falls back, the page trains), a
// link with thousands of unknown keys (one short line), an invalid repo id, a folder that is not a model, and
// a local folder that is a model (the committed tiny Qwen2.5 fixture) loading from disk.
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { FAST_HASH, waitForReady } from '../helpers/e2e/page.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/hf/${name}`, import.meta.url));

test('an invalid URL names the field and falls back to the preset', async ({ page }) => {
  await page.goto('/#preset=tiny-default&groupSize=0&view=curves');
  await expect(page.getByTestId('error-banner')).toContainText('groupSize');
  await expect(page.locator('#knob-groupSize')).toHaveValue('8');
});

test('a link with trainSet=file loads the default train set with a notice to pick the file again', async ({ page }) => {
  await page.goto(`/${FAST_HASH}&trainSet=file&trainFile=/home/me/train.jsonl`);
  await waitForReady(page);
  const banner = page.getByTestId('error-banner');
  await expect(banner).toContainText('the file must be picked again');
  await expect(banner).toContainText('using the train set "tiny-arith" instead');
  await expect(page.getByTestId('dataset')).toContainText('tiny-arith');
  await expect(page.locator('#knob-groupSize')).toHaveValue('4');
});

test('thousands of unknown link keys make a one-line notice, not a banner pages tall', async ({ page }) => {
  const junk = Array.from({ length: 3000 }, (_, i) => `unknownKey${i}=1`).join('&');
  await page.goto(`/${FAST_HASH}&${junk}`);
  const banner = page.getByTestId('error-banner');
  await expect(banner).toContainText(
    '3000 unknown keys ignored: "unknownKey0", "unknownKey1", "unknownKey2" and 2997 more',
  );
  const box = await banner.boundingBox();
  expect(box?.height).toBeLessThan(150);
  await waitForReady(page);
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
