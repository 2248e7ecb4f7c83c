// Independent cross-check in real Chromium: each golden model's torch.onnx export (model.onnx) runs in
// onnxruntime-web (WASM execution provider, and the WebGPU one on Chromium's adapter, SwiftShader here), and our
// engine runs the same weights (model.safetensors) on its WASM and WebGPU backends, on the golden input ids.
// They must agree with each other and with the float64 golden logits.
// Tolerance: every runtime computes in float32; torch's own float32 forward and onnxruntime's are within 5.5e-6 of
// the float64 oracle on these models (measured when the fixtures were made), so 1e-4 absolute leaves room for a different
// summation order (vec4 / SIMD reductions, GPU workgroup reductions) while catching any wrong op.
// The page (bench/browser/, built by its own Vite config) is served on a free port by bench/browser/serve.ts,
// next to the golden folders; the app's preview server is not used.
// Last, transformers.js (its wasm device, its own onnxruntime-web served by the page) runs the shipped tiny-rema
// model's onnx/model.onnx on chat-templated ReMA prompts and must produce our engine's greedy tokens.
import type { Server } from 'node:http';
import { expect, test, type Page } from '@playwright/test';
import type { BrowserRuntime } from '../../bench/browser/page.ts';
import { buildPage, servePage } from '../../bench/browser/serve.ts';
import { metaChat } from '../../src/data/tiny-task/chats.ts';
import { tinyArithProblems } from '../../src/data/tiny-task/dataset.ts';
import { TINY_META_SYSTEM } from '../../src/data/tiny-task/prompts.ts';
import { GOLDEN_FIXTURES_MIN, goldenFixtures } from '../helpers/golden-fixtures.ts';

const TOL = 1e-4;
const folders = goldenFixtures('model.onnx');
/** onnxruntime-web's WebGPU EP compiles every shader anew per session, 10-20 s on SwiftShader: one model gets it,
 *  the one with the most features (Qwen2 q/k/v biases, tied embeddings, GQA). The other runtimes check all four. */
const ORT_WEBGPU_ON = 'qwen2-tied-gqa2';

let server: Server | undefined;
let page: Page;

// one page for all models: onnxruntime's WASM module and the engine's pipelines are compiled once
test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  await buildPage();
  const served = await servePage();
  server = served.server;
  page = await browser.newPage();
  await page.goto(served.url);
  await page.waitForFunction(() => window.rema?.ready === true);
});
test.afterAll(async () => {
  await page?.close();
  server?.close();
});

test('the golden models have ONNX exports, and Chromium a WebGPU adapter', async () => {
  expect(folders.length).toBeGreaterThanOrEqual(GOLDEN_FIXTURES_MIN);
  expect(folders).toContain(ORT_WEBGPU_ON);
  expect(await page.evaluate(() => window.rema.adapter())).not.toBeNull();
});

for (const folder of folders) {
  const runtimes: BrowserRuntime[] = [
    'engine-wasm',
    'ort-wasm',
    'engine-webgpu',
    ...(folder === ORT_WEBGPU_ON ? ['ort-webgpu' as const] : []),
  ];
  test(`${folder}: ${runtimes.join(', ')} agree with each other and with the float64 golden logits`, async () => {
    const r = await page.evaluate(([u, rts]) => window.rema.crosscheck(u, rts), [
      `/golden/${folder}/`,
      runtimes,
    ] as const);
    console.log(
      `${folder} B=${r.B} T=${r.T} V=${r.V} max|logit|=${r.maxAbsGolden.toFixed(2)} vs f64: ${JSON.stringify(r.vsGolden)} pairs: ${JSON.stringify(r.pairs)} seconds: ${JSON.stringify(r.seconds)}`,
    );
    expect(r.maxAbsGolden).toBeGreaterThan(1); // the logits are far from zero: the comparison is not vacuous
    expect(Object.keys(r.vsGolden).toSorted()).toEqual([...runtimes].toSorted());
    for (const [runtime, err] of Object.entries(r.vsGolden))
      expect(err, `${runtime} vs float64 golden`).toBeLessThan(TOL);
    for (const [pair, err] of Object.entries(r.pairs)) expect(err, pair).toBeLessThan(TOL);
  });
}

test("tiny-rema: transformers.js (wasm) in the page gives our engine's greedy tokens on chat-templated prompts", async () => {
  const chats = tinyArithProblems({ split: 'heldout', count: 2, seed: 5 }).map((p) =>
    metaChat(TINY_META_SYSTEM, p.question, []),
  );
  const r = await page.evaluate(([u, c]) => window.rema.transformersAgreement(u, c, 32), [
    '/public-models/tiny-rema/',
    chats,
  ] as const);
  console.log(
    `transformers.js ${r.version} on tiny-rema, ${r.seconds} s: ${r.results.map((x) => JSON.stringify(x.text)).join(' | ')}`,
  );
  for (const x of r.results) {
    expect(x.theirIds).toEqual(x.ourIds);
    // up to the end of the turn (after it the untrained continuation is compared too, but near-ties may differ)
    const end = x.engineTokens.findIndex((t) => r.stopTokenIds.includes(t));
    expect(end, 'the trained model ends its turn within 32 tokens').toBeGreaterThan(3);
    expect(x.transformersTokens.slice(0, end + 1)).toEqual(x.engineTokens.slice(0, end + 1));
  }
});
