// Part of `npm run bench` (or alone: node --import tsx bench/browser/driver.ts [--quick] [--models small,qwen2.5-0.5b-L2]
// [--runtimes engine-wasm,transformers-wasm]): in Debian's Chromium (Playwright, no browser download,
// --enable-unsafe-webgpu), our engine on its WebGPU and WASM backends vs onnxruntime-web on its WebGPU and WASM
// execution providers and vs transformers.js (@huggingface/transformers, its own onnxruntime-web) on its webgpu and
// wasm devices: same model, same page, same GPU adapter (SwiftShader on a machine without a GPU: there the WebGPU
// figures only prove the path works). Each runtime runs in a fresh page so one's memory is gone before the next.
// Models: `small` always; without --quick also the Qwen2.5-0.5B-config model (QWEN_IN_BROWSER layers) on the
// CPU runtimes only (WASM), with a lighter plan. --quick leaves transformers.js's WebGPU device out.
// Writes bench/results/browser.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from '@playwright/test';
import type { RuntimeSpeeds, SpeedPlan } from './measure.ts';
import { speedRatios } from './measure.ts';
import { rendererCpuClock } from './cpu-clock.ts';
import { benchModel } from './models.ts';
import type { BrowserRuntime } from './page.ts';
import { buildPage, servePage } from './serve.ts';

const root = resolve(import.meta.dirname, '../..');
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const listArg = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1].split(',') : null);
/** Layers of the Qwen2.5-0.5B-config model in Chromium (see bench/README.md for why not more). */
const QWEN_IN_BROWSER = 'qwen2.5-0.5b-L2';
const models = listArg('--models') ?? listArg('--model') ?? (quick ? ['small'] : ['small', QWEN_IN_BROWSER]);
for (const name of models)
  benchModel(name.startsWith('qwen2.5-0.5b-L') ? 'qwen2.5-0.5b' : 'small', Number(name.split('-L')[1] ?? 0)); // made once

const plan: SpeedPlan = quick
  ? { forwardB: 2, forwardT: 32, promptLength: 16, maxNew: 5, G: 8, repeats: 1 }
  : { forwardB: 4, forwardT: 32, promptLength: 32, maxNew: 9, G: 8, repeats: 3 };
// the WebGPU runtimes get less work: on SwiftShader onnxruntime's WebGPU EP takes seconds per decode step
const webgpuPlan: SpeedPlan = { forwardB: 1, forwardT: 16, promptLength: 8, maxNew: 3, G: 8, repeats: 1 };
// the Qwen-config model: its LM head over 151,936 tokens is 0.27 GFLOP per token
const qwenPlan: SpeedPlan = { forwardB: 2, forwardT: 16, promptLength: 16, maxNew: 5, G: 8, repeats: 1 };
const all: BrowserRuntime[] = [
  'engine-wasm',
  'ort-wasm',
  'transformers-wasm',
  'engine-webgpu',
  'ort-webgpu',
  'transformers-webgpu',
];
const runtimesArg = listArg('--runtimes') as BrowserRuntime[] | null;
// --quick leaves out transformers.js on WebGPU (about 70 s on SwiftShader); the Qwen-config model runs on the WASM runtimes
const runtimesFor = (model: string): BrowserRuntime[] =>
  runtimesArg ??
  all.filter((r) => (model.startsWith('qwen') ? r.endsWith('wasm') : !(quick && r === 'transformers-webgpu')));
const planFor = (model: string, runtime: BrowserRuntime): SpeedPlan =>
  runtime.endsWith('webgpu') ? webgpuPlan : model.startsWith('qwen') ? qwenPlan : plan;
/** ours / peer, per figure, for the pairs that ran */
const PAIRS: Array<[BrowserRuntime, BrowserRuntime]> = [
  ['engine-wasm', 'ort-wasm'],
  ['engine-wasm', 'transformers-wasm'],
  ['engine-webgpu', 'ort-webgpu'],
  ['engine-webgpu', 'transformers-webgpu'],
];

await buildPage();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--enable-unsafe-webgpu', '--disable-background-networking', '--disable-component-update'],
});
// WASM runtimes are timed with the renderer's CPU time (bench/browser/cpu-clock.ts), WebGPU ones with wall time;
// --wall times everything with wall time
const cpuClock = await rendererCpuClock(browser);
const { url, server } = await servePage(0, { '/__cpu-seconds': async () => String(cpuClock.seconds()) });
const clockFor = (runtime: BrowserRuntime) =>
  runtime.endsWith('wasm') && !argv.includes('--wall') ? '/__cpu-seconds' : undefined;
type Speeds = RuntimeSpeeds & { backend: string; clock: string; plan: SpeedPlan; wall_s: number };
const results: Array<{ model: string; runtimes: Speeds[]; ratios: Record<string, Record<string, number>> }> = [];
const errors: Record<string, string> = {};
let adapter: string | null = null;
try {
  for (const model of models) {
    const speeds: Speeds[] = [];
    results.push({ model, runtimes: speeds, ratios: {} });
    for (const runtime of runtimesFor(model)) {
      const page = await browser.newPage();
      page.setDefaultTimeout(0);
      try {
        await page.goto(url);
        await page.waitForFunction(() => window.rema?.ready === true);
        await cpuClock.refresh();
        adapter ??= await page.evaluate(() => window.rema.adapter());
        const t0 = performance.now();
        const p = planFor(model, runtime);
        const r = await page.evaluate(([m, rt, pl, c]) => window.rema.bench(m, rt, pl, c), [
          `/models/${model}/`,
          runtime,
          p,
          clockFor(runtime),
        ] as const);
        speeds.push({ ...r, plan: p, wall_s: +((performance.now() - t0) / 1000).toFixed(1) });
        console.log(JSON.stringify({ model, ...speeds.at(-1) }));
      } catch (e) {
        errors[`${model} ${runtime}`] = (e as Error).message.split('\n')[0];
        console.log(`${model} ${runtime}: FAILED ${errors[`${model} ${runtime}`]}`);
      } finally {
        await page.close();
      }
    }
    const by = (rt: string) => speeds.find((r) => r.runtime === rt);
    for (const [ours, peer] of PAIRS) {
      const [a, b] = [by(ours), by(peer)];
      if (a && b) results.at(-1)!.ratios[`${ours} / ${peer}`] = speedRatios(a, b);
    }
  }
} finally {
  const chromiumVersion = browser.version();
  await browser.close();
  server.close();
  const out = {
    date: new Date().toISOString(),
    chromium: chromiumVersion,
    adapter,
    load_average: loadavg().map((x) => +x.toFixed(2)),
    note: /swiftshader|fallback/i.test(adapter ?? '')
      ? 'WebGPU adapter is SwiftShader (CPU emulation): WebGPU figures show correctness of the path only'
      : undefined,
    quick,
    models: results,
    errors,
  };
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  writeFileSync(join(root, 'bench/results/browser.json'), JSON.stringify(out, null, 2) + '\n');
  console.log('wrote bench/results/browser.json');
  if (Object.keys(errors).length) process.exitCode = 1;
}
