// A newcomer's first screen: `npm start` (the README's first command: the page built and served by vite preview)
// and a contributor's `npm run dev` (vite's dev server) print no warning or error, and the page each serves opens in
// Chromium ready to train without the server complaining afterwards (for the dev server: dependency scan,
// pre-bundling that reloads the page, unresolved imports).
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { expect, test } from '@playwright/test';
import { waitForReady } from '../helpers/e2e/page.ts';

const root = resolve(import.meta.dirname, '../..');
const port = 5179;

let server: ChildProcess | undefined;
let output = '';

// npm starts vite as its child: the server runs in its own process group, stopped as a whole.
test.afterEach(() => {
  if (server?.pid) process.kill(-server.pid, 'SIGTERM');
  server = undefined;
});

/** Runs `npm run <script> -- --port <port> --strictPort` in its own process group, collecting its output. */
function start(script: string): void {
  output = '';
  server = spawn('npm', ['run', script, '--', '--port', String(port), '--strictPort'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  server.stdout?.on('data', (d: Buffer) => (output += stripVTControlCharacters(d.toString())));
  server.stderr?.on('data', (d: Buffer) => (output += stripVTControlCharacters(d.toString())));
}

/** The output's lines that match none of the expected ones. */
function unexpectedLines(expected: RegExp[]): string[] {
  return output
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .filter((l) => !expected.some((re) => re.test(l)));
}

test('npm start builds and serves the page with a clean console', async ({ page }) => {
  start('start');
  await expect.poll(() => output, { timeout: 120_000 }).toContain(`http://127.0.0.1:${port}/`);
  await page.goto(`http://127.0.0.1:${port}/`);
  await waitForReady(page, 120_000);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  // npm's command lines and vite preview's address; the build itself prints only warnings, and there are none
  expect(unexpectedLines([/^> /, /^➜ +(Local|Network):/]), `npm start printed:\n${output}`).toEqual([]);
});

test('npm run dev serves the page with a clean console', async ({ page }) => {
  start('dev');
  await expect.poll(() => output, { timeout: 60_000 }).toContain(`http://127.0.0.1:${port}/`);

  await page.goto(`http://127.0.0.1:${port}/`);
  await waitForReady(page, 120_000);
  // The scan and any pre-bundling happen while the page loads; give the server a moment to report them.
  await page.waitForTimeout(1500);

  // vite's own start lines, and on a first start (no .vite cache) its one-time pre-bundling notices; a later
  // "dependencies optimized ... reloading" would mean the scan missed imports and the page reloaded under the user.
  const expected = [
    /^> /,
    /^VITE v\S+ +ready in/,
    /^➜ +Local:/,
    /\[optimizer\] (scanning|bundling) dependencies\.\.\.$/,
  ];
  expect(unexpectedLines(expected), `npm run dev printed:\n${output}`).toEqual([]);
});
