// The sidebar's controls stay inside the sidebar: nothing in it (the known-model select with its long option
// labels, the source picker, the backend menu, the config knobs, the open Planner) is wider than the sidebar,
// which would clip it or add a horizontal scrollbar. Checked at the laptop and projector sizes, with screenshots.
import { expect, test, type Page } from '@playwright/test';

const sizes = [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
] as const;

/** Elements of the sidebar whose right edge lies past the sidebar's content box, and the sidebar's overflow. */
function overflow(page: Page) {
  return page.evaluate(() => {
    const bar = document.querySelector('.sidebar') as HTMLElement;
    const box = bar.getBoundingClientRect();
    const right = box.left + bar.clientLeft + bar.clientWidth - parseFloat(getComputedStyle(bar).paddingRight) + 0.5;
    const past = [...bar.querySelectorAll<HTMLElement>('*')]
      .filter((el) => el.getClientRects().length > 0 && el.getBoundingClientRect().right > right)
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.dataset.testid ? `[${el.dataset.testid}]` : ''}: right ${Math.round(el.getBoundingClientRect().right)} > ${Math.round(right)}`,
      );
    return { past, scrollWidth: bar.scrollWidth, clientWidth: bar.clientWidth };
  });
}

for (const size of sizes) {
  test(`the sidebar's controls fit at ${size.width}x${size.height}`, async ({ page }, info) => {
    await page.setViewportSize(size);
    await page.goto('/');
    await expect(page.getByTestId('catalog-model')).toBeVisible({ timeout: 60_000 });
    // the longest option chosen, and every folded section of the sidebar open
    const longest = await page
      .getByTestId('catalog-model')
      .evaluate(
        (s: HTMLSelectElement) => [...s.options].reduce((a, b) => (b.text.length > a.text.length ? b : a)).value,
      );
    await page.getByTestId('catalog-model').selectOption(longest);
    await page
      .locator('.sidebar details')
      .evaluateAll((ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = true)));
    await page.screenshot({ path: info.outputPath(`sidebar-${size.width}x${size.height}.png`) });
    const o = await overflow(page);
    expect(o.past).toEqual([]);
    expect(o.scrollWidth).toBeLessThanOrEqual(o.clientWidth);
  });
}
