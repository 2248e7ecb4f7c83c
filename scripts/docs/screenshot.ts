// The README's figure, docs/figures/playground.png: the page as `npm start` serves it (built, under vite preview),
// opened in Debian's Chromium on the embedded model, trained for a few steps, then photographed at 1280x720.
//   npx tsx scripts/docs/screenshot.ts [--steps 6] [--out docs/figures/playground.png]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import { build, preview } from 'vite';

const root = resolve(import.meta.dirname, '../..');
const { values: args } = parseArgs({
  options: {
    steps: { type: 'string', default: '6' },
    out: { type: 'string', default: join(root, 'docs/figures/playground.png') },
  },
});
const steps = Number(args.steps);
// the README's preset with a smaller step so the figure is made in a minute; training never ends by itself
const hash = '#preset=tiny-default&problemsPerStep=4&groupSize=4&steps=1000&evalEvery=3';

const outDir = mkdtempSync(join(tmpdir(), 'rema-screenshot-'));
await build({
  root,
  configFile: join(root, 'vite.config.ts'),
  build: { outDir, emptyOutDir: true },
  logLevel: 'error',
});
const server = await preview({
  root,
  configFile: join(root, 'vite.config.ts'),
  build: { outDir },
  preview: { host: '127.0.0.1', port: 0 },
  logLevel: 'error',
});
const address = server.httpServer.address();
if (!address || typeof address === 'string') throw new Error('the preview server has no port');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(`http://127.0.0.1:${address.port}/${hash}`);
  await page.getByTestId('train').waitFor({ state: 'visible', timeout: 120_000 });
  await page.waitForFunction(() => !document.querySelector('[data-testid=train]')?.hasAttribute('disabled'), null, {
    timeout: 120_000,
  });
  await page.getByTestId('train').click();
  await page.waitForFunction(
    (n) => Number(/step (\d+)/.exec(document.querySelector('[data-testid=step-count]')?.textContent ?? '')?.[1]) >= n,
    steps,
    { timeout: 600_000, polling: 500 },
  );
  await page.getByTestId('pause').click();
  await page.waitForTimeout(1000);
  await page.screenshot({ path: resolve(args.out!) });
  console.log(`wrote ${resolve(args.out!)} after ${steps} steps`);
} finally {
  await browser.close();
  await server.close();
}
