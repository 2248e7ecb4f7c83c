// Plan intervention in a real browser: after one step, edit the meta-thinking agent's plan and watch the
// reasoning agent (current weights) follow it, next to the unedited plan.
import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { unzipSync } from 'fflate';
import { FAST_HASH, screenshotBoth, waitForReady, waitForSteps } from '../helpers/e2e/page.ts';

test('an edited plan gets a new reasoning trace next to the original', async ({ page }, info) => {
  await page.goto(`/${FAST_HASH}`);
  await waitForReady(page);
  await page.getByTestId('step').click();
  await waitForSteps(page, 1);
  await waitForReady(page);
  await page.getByTestId('tab-intervene').click();
  const editor = page.getByTestId('plan-editor');
  await expect(editor).toBeVisible();
  const original = await editor.inputValue();
  const plan = 'First add all the numbers together, then give the total. [FINISH]';
  await editor.fill(plan);
  await page.getByTestId('run-plan').click();
  const edited = page.getByTestId('trace-edited');
  await expect(edited).toBeVisible({ timeout: 60_000 });
  await expect(edited).toContainText('First add all the numbers together');
  await expect(edited.locator('.turn-reasoning')).not.toHaveText('(empty)');
  await expect(page.getByTestId('trace-original')).toContainText(original.slice(0, 20));
  await screenshotBoth(page, info, '06-intervention');

  // the trained adapter in PEFT layout, and the config as verl YAML
  await page.getByTestId('tab-runs').click();
  const [zip] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-adapter').click()]);
  const files = unzipSync(new Uint8Array(await readFile((await zip.path())!)));
  expect(Object.keys(files).toSorted()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
  expect(JSON.parse(new TextDecoder().decode(files['adapter_config.json']))).toMatchObject({ peft_type: 'LORA' });
  const [yaml] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-yaml').click()]);
  const text = await readFile((await yaml.path())!, 'utf8');
  expect(text).toContain('actor_rollout_ref');
  expect(text).toMatch(/n: 4\b/);
});
