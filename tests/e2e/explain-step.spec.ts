// "Explain this step" in a real browser: train a few steps on the tiny preset with two mini-batches, open the
// explain view on an earlier step from its step list, walk forward through every screen and check that the numbers
// on screen (rewards, mean, std, advantages, gradient norms per optimiser step and layer, log-prob changes) are the
// trainer's record for that step (the dialog's data-record, sent by the worker with the step); back, Escape, the
// `e` key (also in presenter mode) and a click on a curve; screenshots at 1920x1080, 1440x900 and 1280x720.
import { expect, test, type Page } from '@playwright/test';
import type { ExplainRecord, ExplainRollout } from '../../src/rl/train/explain.ts';
import { fmt } from '../../src/app/components/explain/format.ts';
import { waitForReady, waitForSteps } from '../helpers/e2e/page.ts';

const HASH =
  '#preset=tiny-default&problemsPerStep=3&groupSize=4&miniBatches=2&steps=1000&evalEvery=0&evalBeforeTrain=false';
const SIZES = [
  { width: 1920, height: 1080 },
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
] as const;

const texts = (page: Page, id: string) => page.getByTestId(id).allTextContents();
const headline = (r: ExplainRollout) => r.rows.find((x) => x.role === 'reasoning') ?? r.rows[0];

/** the dialog never reaches past the viewport, and its title, formula and buttons are inside it */
async function checkFits(page: Page): Promise<void> {
  const size = page.viewportSize()!;
  const box = (await page.getByTestId('explain').boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(size.width);
  expect(box.y + box.height).toBeLessThanOrEqual(size.height);
  for (const id of ['explain-title', 'explain-formula', 'explain-next', 'explain-back']) {
    const b = (await page.getByTestId(id).boundingBox())!;
    expect(b.y + b.height, id).toBeLessThanOrEqual(box.y + box.height);
    expect(b.x + b.width, id).toBeLessThanOrEqual(box.x + box.width);
  }
}

async function shoot(page: Page, name: string, path: (file: string) => string): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.waitForTimeout(150);
    await checkFits(page);
    await page.screenshot({ path: path(`explain-${name}-${size.width}x${size.height}.png`) });
  }
  await page.setViewportSize(SIZES[1]);
}

test('explain a step: every screen shows the trainer’s record of that step', async ({ page }, info) => {
  await page.goto(`/${HASH}`);
  await waitForReady(page);
  // before any step the view says what to do
  await page.getByTestId('explain-open').click();
  await expect(page.getByTestId('explain')).toContainText('Train a step first');
  await page.screenshot({ path: info.outputPath('explain-0-waiting-1440x900.png') });
  await page.getByTestId('explain-close').click();
  await expect(page.getByTestId('explain')).toHaveCount(0);

  await page.getByTestId('train').click();
  await waitForSteps(page, 3);
  await page.getByTestId('pause').click();
  await waitForReady(page);

  await page.getByTestId('explain-open').click();
  const dialog = page.getByTestId('explain');
  await expect(dialog).toBeVisible();
  // the latest step first; then step 2 from the step list
  const latest = Number(await dialog.getAttribute('data-step'));
  expect(latest).toBeGreaterThanOrEqual(3);
  await page.getByTestId('explain-step-select').selectOption('2');
  await expect(dialog).toHaveAttribute('data-step', '2');
  const record = JSON.parse((await dialog.getAttribute('data-record'))!) as ExplainRecord;
  expect(record.step).toBe(2);
  expect(record.settings.miniBatches).toBe(2);
  info.annotations.push({
    type: 'explain: after-update scoring of the group (s)',
    description: record.rescoreSeconds.toFixed(3),
  });
  const group = record.groups[0];
  expect(group.rollouts).toHaveLength(4);

  const order = ['group', 'stats', 'advantage', 'ratio', 'coef', 'grad', 'update', 'after'];
  for (const [i, id] of order.entries()) {
    await expect(dialog).toHaveAttribute('data-screen', id);
    await expect(page.getByTestId('explain-position')).toHaveText(`${i + 1} / ${order.length}`);
    // a caption of two lines and a typeset formula on every screen
    expect((await page.getByTestId('explain-caption').innerText()).split('\n').filter((l) => l.trim())).toHaveLength(2);
    await expect(page.getByTestId('explain-formula').locator('.katex').first()).toBeVisible();
    switch (id) {
      case 'group':
        expect(await texts(page, 'explain-reward')).toEqual(group.rollouts.map((r) => fmt(headline(r)!.reward)));
        await expect(page.getByTestId('explain-try').first().locator('[data-role="meta"]')).toBeVisible();
        await shoot(page, '1-group', (f) => info.outputPath(f));
        break;
      case 'stats':
        expect(await texts(page, 'explain-mean')).toEqual(group.stats.map((s) => fmt(s.mean)));
        expect(await texts(page, 'explain-std')).toEqual(group.stats.map((s) => fmt(s.std ?? Number.NaN)));
        break;
      case 'advantage':
        expect(await texts(page, 'explain-adv')).toEqual(
          group.rollouts.flatMap((r) =>
            group.stats.flatMap((s) => r.rows.filter((x) => x.role === s.role).map((x) => fmt(x.advantage))),
          ),
        );
        break;
      case 'ratio':
        await expect(page.locator('.explain-body [data-testid="token"]').first()).toBeVisible();
        expect(await page.locator('.explain-body [data-testid="token"]').first().getAttribute('title')).toMatch(
          /ratio \d/,
        );
        await shoot(page, '4-ratio', (f) => info.outputPath(f));
        break;
      case 'coef':
        expect(await page.locator('.explain-body [data-testid="token"]').first().getAttribute('title')).toMatch(
          /coefficient -?\d/,
        );
        break;
      case 'grad':
        expect(await texts(page, 'explain-gradnorm')).toEqual(record.optimizerSteps.map((s) => fmt(s.gradNorm)));
        expect(await texts(page, 'explain-layer-norm')).toEqual(
          record.optimizerSteps.flatMap((s) => s.layers.map((l) => fmt(l.norm))),
        );
        expect(await page.getByTestId('explain-step-gradnorm').textContent()).toBe(fmt(record.gradNorm));
        // two mini-batches: two optimiser steps, each the root-sum-square of its layers
        expect(record.optimizerSteps).toHaveLength(2);
        for (const s of record.optimizerSteps)
          expect(Math.hypot(...s.layers.map((l) => l.norm))).toBeCloseTo(s.gradNorm, 4);
        await shoot(page, '6-grad', (f) => info.outputPath(f));
        break;
      case 'after':
        expect(await texts(page, 'explain-delta')).toEqual(
          group.rollouts.flatMap((r) => r.rows.filter((x) => x.tokens > 0).map((x) => fmt(x.logpAfter - x.logpBefore))),
        );
        await expect(page.getByTestId('explain-next')).toBeDisabled();
        await shoot(page, '8-after', (f) => info.outputPath(f));
        break;
    }
    if (i < order.length - 1) await page.getByTestId('explain-next').click();
  }

  // back one screen, then Escape closes; `e` opens it again on the latest step
  await page.getByTestId('explain-back').click();
  await expect(dialog).toHaveAttribute('data-screen', 'update');
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await page.keyboard.press('e');
  await expect(page.getByTestId('explain')).toHaveAttribute('data-step', String(latest));
  await expect(page.getByTestId('explain')).toHaveAttribute('data-screen', 'group');
  await page.keyboard.press('Escape');

  // a click on a curve opens the step under the pointer
  const chart = page.locator('[data-chart="reward"] .recharts-wrapper').first();
  await chart.scrollIntoViewIfNeeded();
  const box = (await chart.boundingBox())!;
  await chart.hover({ position: { x: box.width * 0.5, y: box.height * 0.5 } });
  await chart.click({ position: { x: box.width * 0.5, y: box.height * 0.5 } });
  await expect(page.getByTestId('explain')).toBeVisible();
  const clicked = Number(await page.getByTestId('explain').getAttribute('data-step'));
  expect(clicked).toBeGreaterThanOrEqual(1);
  expect(clicked).toBeLessThanOrEqual(latest);
  await page.keyboard.press('Escape');

  // presenter mode: e opens it over the booth view, Escape closes it and leaves presenter mode on
  await page.getByTestId('presenter-open').click();
  await expect(page.getByTestId('presenter')).toBeVisible();
  await page.keyboard.press('e');
  await expect(page.getByTestId('explain')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('explain')).toHaveCount(0);
  await expect(page.getByTestId('presenter')).toBeVisible();
});
