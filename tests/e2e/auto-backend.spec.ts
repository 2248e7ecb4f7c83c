// The backend "auto" in Debian's Chromium: on a first visit the model is ready at once on the WebAssembly backend
// (the line says "for now") and the worker measures the backends it has on the model after the first rollout
// (WebGPU on SwiftShader here, and the WebAssembly CPU backend; without WebGPU the line says why it was not measured);
// then the line under the backend menu says what it measured and which won, the header shows the winner, and after
// a reload the kept measurement is reused (the line says "cached") until Re-measure measures again.
import { expect, test, type Page } from '@playwright/test';
import { FAST_HASH, waitForReady } from '../helpers/e2e/page.ts';

const LINE = /^auto -> (wasm|webgpu): [0-9.]+ ms\/token, [0-9.]+ m?s\/step \(.*measured [0-9.]+ m?s\)$/;

const marks = (page: Page) =>
  page.evaluate(() =>
    Object.fromEntries(
      performance
        .getEntriesByType('mark')
        .filter((m) => m.name.startsWith('rema:'))
        .map((m) => [m.name.slice(5), Math.round(m.startTime)]),
    ),
  );

test('auto measures the backends on the model, says what it measured, and reuses it after a reload', async ({
  page,
}, info) => {
  await page.goto(`/${FAST_HASH}`);
  await waitForReady(page, 120_000);
  const line = page.getByTestId('auto-backend');
  // the measurement comes after the model is ready and its first rollout is on screen
  await expect(line).toHaveText(LINE, { timeout: 60_000 });
  const at = await marks(page);
  info.annotations.push({ type: 'start-up (ms)', description: JSON.stringify(at) });
  expect(at['ready']).toBeLessThan(at['auto-measured']);
  expect(at['first-rollout']).toBeLessThan(at['auto-measured']);
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

  // a reload: the kept measurement chooses at once (no switch), nothing is measured again
  await page.reload();
  await waitForReady(page, 120_000);
  await expect(line).toHaveText(text.replace('; switched from wasm', '').replace(/\)$/, ', cached)'));
  expect((await marks(page))['auto-measured']).toBeUndefined();

  // Re-measure: the model loads again and the backends are measured again
  await page.getByTestId('remeasure-backend').click();
  await waitForReady(page, 120_000);
  await expect(line).toHaveText(LINE, { timeout: 60_000 });
  await expect(line).not.toContainText('cached');
});
