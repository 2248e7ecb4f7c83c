// The meta-action JSON mode in a real browser: the page starts with the tiny-json-actions preset from the URL,
// trains a few steps, and the action histogram's bars (read from the drawn SVG: each band's height over its stack's)
// equal the action fractions the worker reported (the run exported as JSON), as do the per-difficulty view's bars
// for its window of steps.
import { readFile } from 'node:fs/promises';
import { expect, test, type Locator } from '@playwright/test';
import { screenshotBoth, waitForReady, waitForSteps } from '../helpers/e2e/page.ts';

const ACTIONS = ['DECOMPOSE', 'REWRITE', 'EMPTY'] as const;

interface Metrics {
  step: number;
  action_DECOMPOSE: number;
  action_REWRITE: number;
  action_EMPTY: number;
  action_by_level: Record<string, { DECOMPOSE: number; REWRITE: number; EMPTY: number; n: number }>;
}

/** Per stack (bar position, left to right) the fraction of each action: band height / stack height, as drawn. */
async function drawnFractions(chart: Locator): Promise<Array<Record<string, number>>> {
  const bands = await chart.locator('.recharts-bar').evaluateAll((bars) =>
    bars.map((bar) =>
      [...bar.querySelectorAll('path.recharts-rectangle')].map((p) => ({
        x: Number(p.getAttribute('x')) + Number(p.getAttribute('width')) / 2,
        h: Number(p.getAttribute('height')),
      })),
    ),
  );
  expect(bands).toHaveLength(ACTIONS.length);
  const xs = [...new Set(bands.flat().map((b) => Math.round(b.x * 10) / 10))].toSorted((a, b) => a - b);
  return xs.map((x) => {
    const heights = bands.map((series) => series.filter((b) => Math.abs(b.x - x) < 0.5).reduce((s, b) => s + b.h, 0));
    const total = heights.reduce((a, b) => a + b, 0);
    return Object.fromEntries(ACTIONS.map((a, i) => [a, heights[i] / total]));
  });
}

test('meta-action histogram and per-difficulty view equal the metrics the worker reported', async ({ page }, info) => {
  await page.goto(
    '/#preset=tiny-json-actions&problemsPerStep=3&groupSize=4&steps=1000&evalEvery=0&evalBeforeTrain=false',
  );
  await waitForReady(page);
  // not a JSON-mode run yet: no histogram before the first step
  await expect(page.locator('[data-chart="actions"]')).toHaveCount(0);
  await page.getByTestId('train').click();
  await waitForSteps(page, 3);
  await page.getByTestId('pause').click();
  await waitForReady(page);

  // what the worker reported: the run's metrics as exported
  await page.getByTestId('tab-runs').click();
  const row = page.getByTestId('run-row').first();
  const [download] = await Promise.all([page.waitForEvent('download'), row.getByTestId('export-json').click()]);
  const metrics = (JSON.parse(await readFile((await download.path())!, 'utf8')) as { metrics: Metrics[] }).metrics;
  expect(metrics.length).toBeGreaterThanOrEqual(3);
  for (const m of metrics) expect(m.action_DECOMPOSE + m.action_REWRITE + m.action_EMPTY).toBeCloseTo(1, 9);

  await page.getByTestId('tab-curves').click();
  const histogram = page.locator('[data-chart="actions"]');
  await expect(histogram).toBeVisible();
  await expect.poll(async () => (await drawnFractions(histogram)).length, { timeout: 10_000 }).toBe(metrics.length);
  const drawn = await drawnFractions(histogram);
  drawn.forEach((d, i) => {
    for (const a of ACTIONS) expect(d[a], `step ${metrics[i].step} ${a}`).toBeCloseTo(metrics[i][`action_${a}`], 3);
  });

  // per difficulty over the last 10 steps (the default window): turns-weighted fractions per level
  const levels = page.locator('[data-chart="action-levels"]');
  await expect(levels).toBeVisible();
  const sums = new Map<string, { n: number } & Record<string, number>>();
  for (const m of metrics.slice(-10)) {
    for (const [level, f] of Object.entries(m.action_by_level)) {
      const s = sums.get(level) ?? { n: 0, DECOMPOSE: 0, REWRITE: 0, EMPTY: 0 };
      s.n += f.n;
      for (const a of ACTIONS) s[a] += f[a] * f.n;
      sums.set(level, s);
    }
  }
  const expected = [...sums.entries()]
    .toSorted(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
    .map(([, s]) => s);
  const drawnLevels = await drawnFractions(levels);
  expect(drawnLevels).toHaveLength(expected.length);
  drawnLevels.forEach((d, i) => {
    for (const a of ACTIONS) expect(d[a], `level ${i} ${a}`).toBeCloseTo(expected[i][a] / expected[i].n, 3);
  });
  await screenshotBoth(page, info, 'json-actions');
});
