// A frozen agent on ONNX in the page: the shipped tiny-rema exported to ONNX
// (public/models/tiny-rema/onnx/model.onnx) plays the reasoning agent on onnxruntime-web while the meta-thinking
// agent trains on the engine; the inspector marks the frozen agent's turns and colours only the trained ones;
// the header names the execution provider; the same ONNX model alone gives a VRP baseline accuracy; a folder
// that is not an ONNX model is explained, naming the file. Nothing leaves the page's origin (onnxruntime-web's
// .wasm is served by the page itself).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Locator, type Page } from '@playwright/test';
import {
  FAST_HASH,
  foreignRequests,
  recordRequests,
  screenshotBoth,
  waitForReady,
  waitForSteps,
} from '../helpers/e2e/page.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/hf/${name}`, import.meta.url));
const tinyRema = fileURLToPath(new URL('../../public/models/tiny-rema', import.meta.url));
/**
 * Clicks through the inspector's groups until `turns` shows up (an episode whose plan hit the token cap ends before
 * the reasoning agent speaks); false when no group has it.
 */
async function showGroupWith(page: Page, turns: Locator): Promise<boolean> {
  for (const row of await page.getByTestId('group-row').all()) {
    await row.click();
    if ((await turns.count()) > 0) return true;
  }
  return false;
}

/** the fast experiment, a frozen reasoning agent, and a small held-out set for the evaluations */
const FROZEN_HASH = `${FAST_HASH}&frozenAgent=reasoning&evalSize=8`;

test('a frozen reasoning agent on the shipped ONNX model: a training step, marked turns, EP in the header, VRP baseline', async ({
  page,
  baseURL,
}, info) => {
  const requests = recordRequests(page);
  await page.goto(`/${FROZEN_HASH}`);
  await waitForReady(page);

  // the header names the frozen agent, its model and onnxruntime-web's execution provider (the page's backend is
  // the CPU one on SwiftShader, so the WASM EP)
  const badge = page.getByTestId('frozen-badge');
  await expect(badge).toContainText('frozen reasoning agent');
  await expect(badge).toContainText('tiny-rema (ONNX)');
  await expect(badge).toContainText(/onnxruntime-web \d+\.\d+\.\d+ WASM EP/);
  await expect(page.getByTestId('frozen-role')).toHaveValue('reasoning');
  expect(requests.some((u) => u.endsWith('/models/tiny-rema/onnx/model.onnx'))).toBe(true);
  expect(requests.some((u) => /ort-wasm-simd-threaded.*\.wasm$/.test(u))).toBe(true);

  // one training step
  await page.getByTestId('step').click();
  await waitForSteps(page, 1);
  await waitForReady(page);

  // the inspector: reasoning turns are marked frozen, meta turns are trained (and only they get token colours)
  await page.getByTestId('tab-rollouts').click();
  await expect(page.getByTestId('inspector-source')).toContainText('training step 1');
  const samples = page.getByTestId('sample');
  await expect(samples.first()).toBeVisible();
  const frozenReasoning = page.locator('[data-testid="sample"] [data-role="reasoning"][data-frozen="true"]');
  const trainedMeta = page.locator('[data-testid="sample"] [data-role="meta"][data-frozen="false"]');
  expect(await showGroupWith(page, frozenReasoning)).toBe(true);
  await expect(trainedMeta.first()).toBeVisible();
  expect(await page.locator('[data-testid="sample"] [data-role="reasoning"][data-frozen="false"]').count()).toBe(0);
  expect(await page.locator('[data-testid="sample"] [data-role="meta"][data-frozen="true"]').count()).toBe(0);
  await expect(frozenReasoning.first()).toContainText('frozen (ONNX, not trained)');
  await page.getByTestId('colouring').selectOption('token-advantage');
  await expect(trainedMeta.locator('[data-testid="token"]').first()).toBeVisible();
  expect(await frozenReasoning.locator('[data-testid="token"]').count()).toBe(0);
  await screenshotBoth(page, info, '10-frozen-reasoning-tokens');
  await page.getByTestId('colouring').selectOption('advantage');

  // Evaluate: the trained meta-thinking agent with the frozen reasoning agent on the held-out set
  await page.getByTestId('evaluate').click();
  await expect(page.getByTestId('inspector-source-select').locator('option[value="eval"]')).toHaveCount(1, {
    timeout: 60_000,
  });
  await waitForReady(page);
  await page.getByTestId('inspector-source-select').selectOption('eval');
  await expect(page.getByTestId('inspector-source')).toContainText('held-out evaluation after 1 updates');
  expect(await showGroupWith(page, frozenReasoning)).toBe(true);

  // the VRP baseline: the ONNX model alone on the held-out set
  await page.getByTestId('evaluate-onnx').click();
  await expect(page.getByTestId('onnx-eval')).toContainText(
    /VRP baseline \(greedy\): \d+\.\d% of 8 held-out problems/,
    { timeout: 60_000 },
  );
  await expect(page.getByTestId('onnx-eval')).toContainText('WASM EP');
  await waitForReady(page);
  await screenshotBoth(page, info, '11-onnx-vrp-baseline');

  // the link keeps the frozen agent
  expect(page.url()).toContain('frozenAgent=reasoning');
  expect(foreignRequests(requests, new URL(baseURL!).origin)).toEqual([]);
});

test('a folder that is not an ONNX model is explained, naming the file; the shipped model loads again', async ({
  page,
}, info) => {
  await page.goto(`/${FAST_HASH}&evalSize=4`);
  await waitForReady(page);
  // a Hugging Face folder with safetensors weights but no onnx/model.onnx
  await page.getByTestId('onnx-folder-input').setInputFiles(fixture('tiny-qwen2.5-instruct'));
  const banner = page.getByTestId('error-banner');
  await expect(banner).toContainText('could not load the ONNX model "local: tiny-qwen2.5-instruct"', {
    timeout: 30_000,
  });
  await expect(banner).toContainText('onnx/model.onnx');
  await screenshotBoth(page, info, '12-onnx-bad-folder');
  // a folder without even a config.json
  await page.getByTestId('onnx-folder-input').setInputFiles(fileURLToPath(new URL('.', import.meta.url)));
  await expect(banner).toContainText('config.json', { timeout: 30_000 });
  // the session is still usable, and the shipped ONNX model loads
  await page.getByRole('button', { name: 'Dismiss' }).click();
  await page.getByTestId('onnx-shipped').click();
  await expect(page.getByTestId('onnx-loaded')).toContainText('tiny-rema (ONNX)', { timeout: 30_000 });
  await waitForReady(page);
  await expect(page.getByTestId('onnx-source')).toHaveText('tiny-rema');
});

test('an ONNX model from a Hugging Face repo id downloads into the page cache, and a reload finds it there', async ({
  page,
}) => {
  // the hub, answered by this test from the shipped tiny-rema folder (nothing can be downloaded here)
  const served: string[] = [];
  const cors = { 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' };
  await page.context().route('https://huggingface.co/**', async (route) => {
    const m = /^\/onnx-community\/tiny-rema-onnx\/resolve\/main\/(.+)$/.exec(new URL(route.request().url()).pathname);
    const file = m ? join(tinyRema, decodeURIComponent(m[1])) : null;
    if (!m || !file || !existsSync(file) || statSync(file).isDirectory()) {
      await route.fulfill({ status: 404, headers: cors, body: 'Entry not found' });
      return;
    }
    served.push(m[1]);
    await route.fulfill({
      status: 200,
      headers: { ...cors, 'content-type': 'application/octet-stream' },
      body: readFileSync(file),
    });
  });
  await page.goto(`/${FAST_HASH}&evalSize=4`);
  await waitForReady(page);
  await page.getByTestId('onnx-hf-repo').fill('onnx-community/tiny-rema-onnx');
  await page.getByTestId('onnx-hf-load').click();
  await expect(page.getByTestId('onnx-loaded')).toContainText('hf://onnx-community/tiny-rema-onnx (ONNX)', {
    timeout: 30_000,
  });
  expect(served).toEqual(
    expect.arrayContaining(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx']),
  );
  await expect.poll(() => decodeURIComponent(page.url())).toContain('onnxModel=hub:onnx-community/tiny-rema-onnx');

  // the link reopens the same source; its files come from IndexedDB
  served.length = 0;
  await page.reload();
  await waitForReady(page);
  await expect(page.getByTestId('onnx-source')).toHaveText('hf://onnx-community/tiny-rema-onnx');
  await page.getByTestId('evaluate-onnx').click();
  await expect(page.getByTestId('onnx-eval')).toContainText('of 4 held-out problems', { timeout: 60_000 });
  await expect(page.getByTestId('onnx-eval')).toContainText('hf://onnx-community/tiny-rema-onnx (ONNX)');
  expect(served).toEqual([]);
});

test("on a WebGPU page the ONNX model runs on onnxruntime-web's WebGPU execution provider", async ({
  page,
  baseURL,
}, info) => {
  test.setTimeout(120_000);
  const requests = recordRequests(page);
  // WebGPU picked in the backend menu (Chromium's only adapter here is SwiftShader); one short problem
  await page.goto(`/${FAST_HASH}&backend=webgpu&evalSize=1&maxTokensPerTurn=8`);
  await waitForReady(page, 90_000);
  await expect(page.getByTestId('backend')).toContainText('WebGPU');
  await page.getByTestId('evaluate-onnx').click();
  const result = page.getByTestId('onnx-eval');
  await expect(result).toContainText('of 1 held-out problems', { timeout: 90_000 });
  // onnxruntime-web's WebGPU EP opens and runs the model on SwiftShader too (no fallback notice)
  await expect(result).toContainText(/onnxruntime-web \d+\.\d+\.\d+ WebGPU EP/);
  await expect(page.getByTestId('onnx-loaded')).toContainText('WebGPU EP');
  await expect(page.getByTestId('onnx-notice')).toHaveCount(0);
  await screenshotBoth(page, info, '13-onnx-webgpu-ep');
  expect(requests.some((u) => /ort-wasm-simd-threaded\.asyncify.*\.wasm$/.test(u))).toBe(true);
  expect(foreignRequests(requests, new URL(baseURL!).origin)).toEqual([]);
});
