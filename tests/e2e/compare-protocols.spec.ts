// Compare protocols in the page on the embedded model: the button runs VRP, VRP_RL, MRP_RL and multi-turn ReMA as
// the ablation's preset axis with 3 seeds, every arm with the page's 2 steps and held-out evaluation; after 2 seeds
// (runs go seed by seed) the overlay, the bands and the table name the arms by the paper's Table 1 rows, with the
// same evaluation size for every arm.
import { expect, test, type Page } from '@playwright/test';
import { waitForReady } from '../helpers/e2e/page.ts';

/** tiny-default cut to 2 steps, 4 held-out problems evaluated at step 2 (VRP evaluates them once, untrained) */
const HASH = '#preset=tiny-default&steps=2&evalEvery=2&evalSize=4&evalBeforeTrain=false';
const NAMES = ['VRP (CoT)', 'VRP_RL', 'MRP_RL', 'ReMA (multi-turn)'];

const statuses = (page: Page) =>
  page.getByTestId('ablation-run-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status')));

test('Compare protocols: 4 arms x 2 seeds x 2 steps, named as Table 1', async ({ page }, info) => {
  test.setTimeout(1_200_000);
  await page.goto(`/${HASH}`);
  await waitForReady(page, 120_000);
  await page.getByTestId('ablation-details').locator('summary').click();
  await page.getByTestId('compare-protocols').click();
  await expect(page.getByTestId('ablation-field1')).toHaveValue('preset');
  await expect(page.getByTestId('ablation-values1')).toHaveValue('vrp, vrp-rl, mrp-rl, tiny-default');
  await expect(page.getByTestId('ablation-seeds')).toHaveValue('0, 1, 2');
  const rows = page.getByTestId('ablation-run-row');
  await expect(rows).toHaveCount(12);
  await expect(rows.first()).toContainText('VRP (CoT) · seed 0');

  // every arm's seeds 0 and 1 come first; stop once they are done
  await expect
    .poll(async () => (await statuses(page)).slice(0, 8).every((s) => s === 'done'), {
      timeout: 1_100_000,
      intervals: [1000],
    })
    .toBe(true);
  await page.getByTestId('ablation-stop').click();
  await expect(page.getByTestId('ablation-results')).toHaveAttribute('data-status', 'paused');

  const table = page.getByTestId('ablation-config-row');
  await expect(table).toHaveCount(4);
  // third seeds (VRP's is one evaluation, the others' two steps of a second or less) may finish before the stop
  // lands: each arm's count is its runs done, at least its first two seeds
  const after = await statuses(page);
  for (let i = 0; i < 4; i++) {
    const cells = table.nth(i).locator('td');
    await expect(cells.nth(0)).toHaveText(NAMES[i]);
    const done = [i, i + 4, i + 8].filter((r) => after[r] === 'done').length;
    expect(done).toBeGreaterThanOrEqual(2);
    await expect(cells.nth(1)).toHaveText(`${done}/3`);
    // the same held-out size for every arm; VRP has no steps, the others the page's 2
    await expect(cells.nth(5)).toHaveText('4');
    await expect(cells.nth(6)).toHaveText(i === 0 ? '0' : '2');
  }
  const chart = page.getByTestId('ablation-chart');
  await expect(chart.locator('g.legend')).toHaveCount(4);
  expect(await chart.locator('g.legend').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-config')))).toEqual(
    NAMES,
  );
  // a min-max band over the 2 seeds for each trained arm on the reward panel
  for (const name of NAMES.slice(1))
    await expect(chart.locator(`g.series[data-config="${name}"] polygon.band`).first()).toBeAttached();
  await page.screenshot({ path: info.outputPath('compare-protocols.png'), fullPage: true });
});
