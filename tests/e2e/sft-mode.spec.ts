// The page's SFT mode in a real browser: choose SFT on the tiny task's meta-thinking dialogues, run a few steps in
// the training worker, check that the loss curve draws exactly the losses the worker sent (its messages are
// recorded by wrapping the page's Worker), then "Start RL from this model": the worker reports that the new RL run's
// policy was built from the SFT'd weights (their checksum, which differs from the loaded model's), the followed
// problem's greedy rollout is the SFT'd model's (it differs from the loaded model's), and one RL step runs from them.
import { expect, test, type Page } from '@playwright/test';
import type { FollowedRollout, WorkerEvent } from '../../src/app/worker/protocol.ts';
import { FAST_HASH, waitForReady, waitForSteps } from '../helpers/e2e/page.ts';

declare global {
  interface Window {
    recordedWorkerEvents: WorkerEvent[];
  }
}

const events = (page: Page) =>
  page.evaluate(() => window.recordedWorkerEvents.filter((e) => e.type.startsWith('sft') || e.type === 'followed'));
const chat = (q: string, a: string) =>
  JSON.stringify({
    messages: [
      { role: 'user', content: q },
      { role: 'assistant', content: a },
    ],
  });
const graded = (es: WorkerEvent[]): FollowedRollout[] =>
  es.flatMap((e) => (e.type === 'followed' && e.rollout.correct !== null ? [e.rollout] : []));

test('SFT on the meta-thinking dialogues, its live loss curve, then RL from the SFT model', async ({ page }, info) => {
  await page.addInitScript(() => {
    window.recordedWorkerEvents = [];
    const Original = window.Worker;
    window.Worker = class extends Original {
      constructor(url: string | URL, options?: WorkerOptions) {
        super(url, options);
        this.addEventListener('message', (e: MessageEvent<WorkerEvent>) => {
          if (e.data && typeof e.data.type === 'string' && e.data.type !== 'activity' && e.data.type !== 'step')
            window.recordedWorkerEvents.push(e.data);
        });
      }
    };
  });
  await page.goto(`/${FAST_HASH}`);
  await waitForReady(page);
  await expect.poll(async () => graded(await events(page)).length, { timeout: 60_000 }).toBeGreaterThanOrEqual(1);

  await page.getByTestId('sft-details').locator('summary').click();
  await page.getByTestId('sft-data-tiny-meta').check();
  await page.getByTestId('sft-steps').fill('4');
  await page.getByTestId('sft-lr').fill('0.02');
  await page.getByTestId('sft-run').click();
  await expect(page.getByTestId('sft-done')).toBeVisible({ timeout: 90_000 });

  const sent = await events(page);
  const steps = sent.flatMap((e) => (e.type === 'sftStep' ? [e] : []));
  expect(steps.map((e) => e.step)).toEqual([1, 2, 3, 4]);
  const chart = page.getByTestId('sft-loss-chart');
  expect(JSON.parse((await chart.getAttribute('data-losses'))!)).toEqual(
    steps.map((e) => ({ step: e.step, loss: e.loss })),
  );
  // the polyline's points are the reported losses on the chart's scale (height 120, padding 6, top = the largest)
  const points = ((await page.getByTestId('sft-loss-line').getAttribute('points')) ?? '')
    .split(' ')
    .map((p) => p.split(',').map(Number));
  const top = Math.max(...steps.map((e) => e.loss));
  expect(points.length).toBe(4);
  points.forEach(([x, y], i) => {
    expect(y).toBeCloseTo(120 - 6 - (steps[i].loss / top) * 108, 1);
    if (i > 0) expect(x).toBeGreaterThan(points[i - 1][0]);
  });
  await expect(page.getByTestId('sft-progress')).toContainText(`step 4/4: loss ${steps[3].loss.toFixed(4)}`);

  const done = sent.find((e) => e.type === 'sftDone');
  if (done?.type !== 'sftDone') throw new Error('no sftDone event');
  expect(done.checksum).not.toBe(done.baseChecksum);
  await expect(page.getByTestId('sft-done')).toHaveAttribute('data-checksum', done.checksum);
  await page.screenshot({ path: info.outputPath('sft-done-1440x900.png') });

  await page.getByTestId('sft-adopt').click();
  await expect(page.getByTestId('sft-adopted')).toHaveAttribute('data-checksum', done.checksum, { timeout: 60_000 });
  const adopted = (await events(page)).find((e) => e.type === 'sftAdopted');
  expect(adopted?.type === 'sftAdopted' && adopted.checksum).toBe(done.checksum);
  // the new run's first greedy rollout of the followed problem comes from the SFT'd weights
  await expect.poll(async () => graded(await events(page)).length, { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
  const [before, after] = graded(await events(page));
  expect(after.step).toBe(0);
  expect(after.turns).not.toEqual(before.turns);

  await waitForReady(page);
  await page.getByTestId('step').click();
  await waitForSteps(page, 1);
  await page.screenshot({ path: info.outputPath('sft-rl-step-1440x900.png') });

  // a chat JSONL file the user picks: a bad line is named, a good file trains
  await waitForReady(page);
  await page.getByTestId('sft-data-file').check();
  await page.getByTestId('sft-file').setInputFiles({
    name: 'bad.jsonl',
    mimeType: 'application/jsonl',
    buffer: Buffer.from(`${chat('1+1?', '2')}\n{"messages": 3}\n`),
  });
  await page.getByTestId('sft-steps').fill('1');
  await page.getByTestId('sft-run').click();
  await expect(page.getByTestId('sft-error')).toContainText('bad.jsonl:2', { timeout: 30_000 });
  await waitForReady(page);
  await page.getByTestId('sft-file').setInputFiles({
    name: 'alpaca.jsonl',
    mimeType: 'application/jsonl',
    buffer: Buffer.from(`${JSON.stringify({ instruction: '2+2?', output: '4' })}\n${chat('3+3?', '6')}\n`),
  });
  await page.getByTestId('sft-run').click();
  await expect(page.getByTestId('sft-done')).toContainText('1 steps on 2 chats', { timeout: 30_000 });
});
