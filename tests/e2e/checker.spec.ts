// The page's answer checker in Chromium: the real pre-emptible checker (src/app/worker/checker-web.ts) with its
// Web Worker (checker.worker.ts, bundled by vite), loaded from vite's dev server. A check whose evaluation is one
// long engine call is cut at the hard limit (worker terminated, verdict `timeout`), the worker is restarted and
// the next check works; expensive inputs that the guards catch answer within the limit too.
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { expect, test } from '@playwright/test';
import { waitForReady } from '../helpers/e2e/page.ts';

const root = resolve(import.meta.dirname, '../..');
const port = 5181;
let server: ChildProcess | undefined;

test.afterEach(() => {
  if (server?.pid) process.kill(-server.pid, 'SIGTERM');
  server = undefined;
});

test('the page checker cuts an overrunning check at its limit and keeps answering', async ({ page }) => {
  let output = '';
  server = spawn('npx', ['vite', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  server.stdout?.on('data', (d: Buffer) => (output += stripVTControlCharacters(d.toString())));
  server.stderr?.on('data', (d: Buffer) => (output += stripVTControlCharacters(d.toString())));
  await expect.poll(() => output, { timeout: 60_000 }).toContain(`http://127.0.0.1:${port}/`);
  await page.goto(`http://127.0.0.1:${port}/`);
  // the page fully loaded first: a dev server that pre-bundles a dependency on first use reloads the page, which
  // would destroy the evaluation below mid-way
  await waitForReady(page, 120_000);

  const r = await page.evaluate(async () => {
    const m = await import('/src/app/worker/checker-web.ts' as string);
    const restarts: string[] = [];
    const checker = m.webAnswerChecker({ limitMs: 150, onRestart: (w: string) => restarts.push(w) });
    // eslint-disable-next-line unicorn/consistent-function-scoping -- this body runs in the page, it can not use outer functions
    const grid = (name: string) =>
      `\\begin{pmatrix}${Array.from({ length: 5 }, (_r, i) => Array.from({ length: 5 }, (_c, j) => `${name}_{${i}${j}}`).join('&')).join('\\\\')}\\end{pmatrix}`;
    const slow = `\\boxed{${grid('x')}${grid('y')}${grid('z')}}`;
    const timed = async (gold: string, pred: string) => {
      const t0 = performance.now();
      const v = await checker.check(gold, pred);
      return { ...v, ms: performance.now() - t0 };
    };
    const out = {
      warm: await timed('\\frac{1}{2}', 'so \\boxed{0.5}'),
      slow: await timed('5', slow),
      after: await timed('7', 'the answer is \\boxed{7}'),
      sum: await timed('5', '\\boxed{\\sum_{k=1}^{10^{9}} k}'),
      factorial: await timed('1000000!', '\\boxed{1000000!}'),
      restarts,
    };
    checker.close();
    return out;
  });
  expect(r.warm).toMatchObject({ correct: true, reason: 'equal' });
  expect(r.slow).toMatchObject({ correct: false, reason: 'timeout' });
  expect(r.slow.ms).toBeLessThan(150 + 600);
  expect(r.restarts).toEqual(['check ran past its 150 ms limit']);
  expect(r.after).toMatchObject({ correct: true, reason: 'equal' });
  for (const v of [r.sum, r.factorial]) {
    expect(v.correct).toBe(false);
    expect(v.ms).toBeLessThan(150 + 600);
  }
});
