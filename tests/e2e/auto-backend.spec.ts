// The backend "auto" in Debian's Chromium: on load the worker measures the backends it has on the model (WebGPU on
// SwiftShader here, and the WebAssembly CPU backend; without WebGPU the line says why it was not measured), the line
// under the backend menu says what it measured and which won, the header shows the winner, and after a reload the
// kept measurement is reused (the line says "cached") until Re-measure measures again.
import { expect, test } from '@playwright/test';
import { FAST_HASH, waitForReady } from './helpers.ts';

const LINE = /^auto -> (wasm|webgpu): [0-9.]+ ms\/token, [0-9.]+ m?s\/step \(.*measured [0-9.]+ m?s\)$/;

test('auto measures the backends on the model, says what it measured, and reuses it after a reload', async ({
  page,
}, info) => {
  await page.goto(`/${FAST_HASH}`);
  await waitForReady(page, 120_000);
  const line = page.getByTestId('auto-backend');
  await expect(line).toHaveText(LINE);
  const text = (await line.textContent()) ?? '';
  info.annotations.push({ type: 'auto backend', description: text });
  const winner = LINE.exec(text)![1];
  // the other backend was measured too, or the line says why WebGPU was not
  expect(text).toMatch(winner === 'wasm' ? /\((webgpu [0-9.]+ ms\/token|webgpu not measured: )/ : /\(wasm [0-9.]+ ms/);
  const header = page.getByTestId('backend');
  if (winner === 'wasm') {
    await expect(header).toContainText('CPU backend');
    await expect(page.getByTestId('cpu-notice')).toContainText(text);
  } else {
    await expect(header).toContainText('WebGPU');
  }
  const kept = await page.evaluate(() => localStorage.getItem('rema:auto-backend-rates'));
  expect(JSON.parse(kept ?? '[]')).toHaveLength(1);
  await page.screenshot({ path: info.outputPath('auto-backend-1440x900.png') });

  // a reload: the kept measurement chooses, nothing is measured again
  await page.reload();
  await waitForReady(page, 120_000);
  await expect(line).toHaveText(text.replace(/\)$/, ', cached)'));

  // Re-measure: the model loads again and the backends are measured again
  await page.getByTestId('remeasure-backend').click();
  await waitForReady(page, 120_000);
  await expect(line).toHaveText(LINE);
  await expect(line).not.toContainText('cached');
});
