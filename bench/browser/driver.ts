// Part of `npm run bench` (or alone: node --import tsx bench/browser/driver.ts [--quick] [--model small]):
// in Debian's Chromium (Playwright, no browser download, --enable-unsafe-webgpu), our engine on its WebGPU and
// WASM backends vs onnxruntime-web on its WebGPU and WASM execution providers, same model, same page, same GPU
// adapter (SwiftShader on a machine without a GPU: there the WebGPU figures only prove the path works).
// Each runtime runs in a fresh page so one's memory is gone before the next. Writes bench/results/browser.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from '@playwright/test';
import type { RuntimeSpeeds, SpeedPlan } from './measure.ts';
import { speedRatios } from './measure.ts';
import { benchModel } from './models.ts';
import type { BrowserRuntime } from './page.ts';
import { buildPage, servePage } from './serve.ts';

const root = resolve(import.meta.dirname, '../..');
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const modelName = argv.includes('--model') ? argv[argv.indexOf('--model') + 1] : 'small';

benchModel(modelName.startsWith('qwen2.5-0.5b-L') ? 'qwen2.5-0.5b' : 'small', Number(modelName.split('-L')[1] ?? 0)); // made once

const plan: SpeedPlan = quick
  ? { forwardB: 2, forwardT: 32, promptLength: 16, maxNew: 5, G: 8, repeats: 1 }
  : { forwardB: 4, forwardT: 32, promptLength: 32, maxNew: 9, G: 8, repeats: 3 };
// the WebGPU pair gets less work: on SwiftShader onnxruntime's WebGPU EP takes seconds per decode step
const webgpuPlan: SpeedPlan = { forwardB: 1, forwardT: 16, promptLength: 8, maxNew: 3, G: 8, repeats: 1 };
const all: BrowserRuntime[] = ['engine-wasm', 'ort-wasm', 'engine-webgpu', 'ort-webgpu'];
const runtimes = argv.includes('--runtimes') ? (argv[argv.indexOf('--runtimes') + 1].split(',') as BrowserRuntime[]) : all;

await buildPage();
const { url, server } = await servePage();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--enable-unsafe-webgpu', '--disable-background-networking', '--disable-component-update'],
});
const results: Array<RuntimeSpeeds & { backend: string }> = [];
const errors: Record<string, string> = {};
let adapter: string | null = null;
try {
  for (const runtime of runtimes) {
    const page = await browser.newPage();
    page.setDefaultTimeout(0);
    try {
      await page.goto(url);
      await page.waitForFunction(() => window.rema?.ready === true);
      adapter ??= await page.evaluate(() => window.rema.adapter());
      const t0 = performance.now();
      const r = await page.evaluate(([m, rt, p]) => window.rema.bench(m, rt, p), [`/models/${modelName}/`, runtime, runtime.endsWith('webgpu') ? webgpuPlan : plan] as const);
      console.log(JSON.stringify({ ...r, wall_s: +((performance.now() - t0) / 1000).toFixed(1) }));
      results.push(r);
    } catch (e) {
      errors[runtime] = (e as Error).message.split('\n')[0];
      console.log(`${runtime}: FAILED ${errors[runtime]}`);
    } finally {
      await page.close();
    }
  }
} finally {
  const chromiumVersion = browser.version();
  await browser.close();
  server.close();
  const by = (rt: string) => results.find((r) => r.runtime === rt);
  const ratios: Record<string, Record<string, number>> = {};
  for (const [ours, peer] of [['engine-wasm', 'ort-wasm'], ['engine-webgpu', 'ort-webgpu']]) {
    const [a, b] = [by(ours), by(peer)];
    if (a && b) ratios[`${ours} / ${peer}`] = speedRatios(a, b);
  }
  const out = {
    date: new Date().toISOString(), chromium: chromiumVersion, adapter,
    note: /swiftshader|fallback/i.test(adapter ?? '') ? 'WebGPU adapter is SwiftShader (CPU emulation): WebGPU figures show correctness of the path only' : undefined,
    quick, plan, webgpuPlan, models: [{ model: modelName, runtimes: results, ratios }], errors,
  };
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  writeFileSync(join(root, 'bench/results/browser.json'), JSON.stringify(out, null, 2) + '\n');
  console.log('wrote bench/results/browser.json');
  if (Object.keys(errors).length) process.exitCode = 1;
}
