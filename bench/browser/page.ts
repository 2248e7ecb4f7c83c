// The Chromium side of the browser benchmark and of the ONNX cross-check (tests/e2e/onnx-crosscheck.spec.ts).
// The page does nothing by itself; the driver (bench/browser/driver.ts) or the test calls, through Playwright:
//   window.rema.bench(modelUrl, runtime, plan, clockUrl?) -> RuntimeSpeeds   runtime: engine-webgpu | engine-wasm |
//                                                 ort-webgpu | ort-wasm | transformers-webgpu | transformers-wasm;
//                                                 clockUrl: time with the seconds that URL returns (the renderer's CPU
//                                                 time, bench/browser/cpu-clock.ts) instead of performance.now()
//   window.rema.crosscheck(goldenUrl, runtimes) -> max |logit differences| between the runtimes (our engine on WASM /
//                                                 WebGPU, onnxruntime-web on its WASM / WebGPU EPs) and the f64 golden
//   window.rema.transformersAgreement(modelUrl, chats, maxNew) -> the chat-templated prompt ids from our tokenizer and
//                                                 transformers.js's, and each runtime's greedy tokens (tests compare)
//   window.rema.adapter()                      -> "vendor / architecture (fallback)" or null
// Models are fetched from the static server (bench/browser/serve.ts): config.json + model.safetensors for our
// engine, model.onnx (full logits) and model_kv.onnx (Optimum KV-cache layout) for onnxruntime-web, and the Hugging
// Face ONNX folder layout (config.json, generation_config.json, onnx/model.onnx = model_kv.onnx) for transformers.js.
import ortForTransformersMjs from 'ort-for-transformers/ort-wasm-simd-threaded.asyncify.mjs?url';
import ortForTransformersWasm from 'ort-for-transformers/ort-wasm-simd-threaded.asyncify.wasm?url';
import { loadHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import type { ChatMessage } from '../../src/data/tokenizer.ts';
import type { Backend } from '../../src/engine/backend.ts';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { WebGpuBackend } from '../../src/engine/backends/webgpu.ts';
import { parseHfConfig } from '../../src/engine/io/hf-config.ts';
import { loadHfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { memoryFileSource } from '../../src/engine/io/memory-source.ts';
import { parseSafetensors } from '../../src/engine/io/safetensors.ts';
import { packSequences } from '../../src/engine/model/batch.ts';
import { computeLogits } from '../../src/engine/model/decoder.ts';
import { uploadParams } from '../../src/engine/model/params.ts';
import {
  engineForward,
  engineGeneration,
  measureSpeeds,
  ortForward,
  ortGeneration,
  transformersForward,
  transformersGeneration,
  useClock,
  type OrtTensorFactory,
  type RuntimeSpeeds,
  type SpeedPlan,
  type TransformersTensorClass,
} from './measure.ts';

export type BrowserRuntime =
  'engine-webgpu' | 'engine-wasm' | 'ort-webgpu' | 'ort-wasm' | 'transformers-webgpu' | 'transformers-wasm';

type Transformers = typeof import('@huggingface/transformers');
let transformersJs: Promise<Transformers> | null = null;

/** transformers.js, loaded on first use, offline: its onnxruntime-web's wasm files from this page's own server (it
 *  would fetch them from a CDN), local model folders only, no Cache API copies of 1 GB models, 1 WASM thread. */
function transformers(): Promise<Transformers> {
  transformersJs ??= import('@huggingface/transformers').then((tf) => {
    tf.env.allowLocalModels = true;
    tf.env.allowRemoteModels = false;
    tf.env.useBrowserCache = false;
    tf.env.useWasmCache = false;
    const wasm = tf.env.backends.onnx.wasm!;
    wasm.wasmPaths = {
      mjs: new URL(ortForTransformersMjs, location.href).href,
      wasm: new URL(ortForTransformersWasm, location.href).href,
    };
    wasm.numThreads = 1;
    return tf;
  });
  return transformersJs;
}

/** A transformers.js causal LM from a served Hugging Face ONNX folder (URL ending in /), fp32, on `device`. */
async function transformersModel(folderUrl: string, device: 'wasm' | 'webgpu') {
  const tf = await transformers();
  const m = /^(.*\/)([^/]+)\/$/.exec(folderUrl);
  if (!m) throw new Error(`transformers.js: model URL ${folderUrl} must end in /NAME/`);
  tf.env.localModelPath = m[1];
  const model = await tf.AutoModelForCausalLM.from_pretrained(m[2], { device, dtype: 'fp32' });
  return { tf, model, Tensor: tf.Tensor as unknown as TransformersTensorClass };
}

type Ort = typeof import('onnxruntime-web');

/** onnxruntime-web's build for an execution provider: the plain SIMD build for WASM, the native WebGPU EP build
 *  (what `onnxruntime-web/webgpu` gives, as transformers.js uses it) for WebGPU. Loaded on first use. */
const ortBuilds: Partial<Record<'wasm' | 'webgpu', Promise<Ort>>> = {};
function ortFor(ep: 'wasm' | 'webgpu'): Promise<Ort> {
  ortBuilds[ep] ??= (ep === 'wasm' ? import('onnxruntime-web/wasm') : import('onnxruntime-web/webgpu')).then((ort) => {
    ort.env.wasm.numThreads = 1; // our engine is single-threaded; so is onnxruntime-web without cross-origin isolation
    return ort;
  });
  return ortBuilds[ep];
}

async function fetchBytes(url: string): Promise<Uint8Array> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

async function loadModel(modelUrl: string) {
  const files = {
    'config.json': await fetchBytes(`${modelUrl}config.json`),
    'model.safetensors': await fetchBytes(`${modelUrl}model.safetensors`),
  };
  return loadHfCheckpoint(memoryFileSource(modelUrl, files));
}

let gpuDevice: Promise<{ device: GPUDevice; description: string } | null> | null = null;

/** One device for the whole page, with the adapter's buffer limits (the defaults are 128 / 256 MiB). */
function requestDevice() {
  gpuDevice ??= (async () => {
    const adapter = await navigator.gpu?.requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter) return null;
    const requiredLimits: Record<string, number> = {};
    for (const name of [
      'maxBufferSize',
      'maxStorageBufferBindingSize',
      'maxComputeWorkgroupStorageSize',
      'maxStorageBuffersPerShaderStage',
    ] as const) {
      requiredLimits[name] = adapter.limits[name];
    }
    const requiredFeatures: GPUFeatureName[] = adapter.features.has('shader-f16') ? ['shader-f16'] : [];
    const device = await adapter.requestDevice({ requiredLimits, requiredFeatures });
    const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
    const fallback =
      info.isFallbackAdapter ?? (adapter as GPUAdapter & { isFallbackAdapter?: boolean }).isFallbackAdapter ?? false;
    const description = `${info.vendor || 'unknown'} / ${info.architecture || info.device || 'unknown'}${fallback ? ' (fallback)' : ''}`;
    return { device, description };
  })();
  return gpuDevice;
}

async function engineBackend(kind: 'webgpu' | 'wasm'): Promise<Backend> {
  if (kind === 'wasm') return WasmBackend.create();
  const gpu = await requestDevice();
  if (!gpu) throw new Error('no WebGPU adapter in this browser (Chromium needs --enable-unsafe-webgpu without a GPU)');
  return WebGpuBackend.create(gpu.device, { gpuInfo: gpu.description });
}

/** A session; `gpuOutputs` names outputs that stay on the GPU (the KV cache) on the WebGPU EP. */
async function ortSession(url: string, ep: 'webgpu' | 'wasm', gpuOutputs: string[] = []) {
  const ort = await ortFor(ep);
  const preferredOutputLocation =
    ep === 'webgpu' && gpuOutputs.length
      ? Object.fromEntries(gpuOutputs.map((n) => [n, 'gpu-buffer' as const]))
      : undefined;
  return ort.InferenceSession.create(await fetchBytes(url), {
    executionProviders: [ep],
    graphOptimizationLevel: 'all',
    preferredOutputLocation,
  });
}

/** A synchronous clock read from `url` (a blocking XMLHttpRequest: measure.ts's clock is synchronous). */
function remoteClock(url: string): () => number {
  return () => {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', url, false);
    xhr.send();
    if (xhr.status !== 200) throw new Error(`clock ${url}: HTTP ${xhr.status} ${xhr.responseText}`);
    return Number(xhr.responseText);
  };
}

async function bench(
  modelUrl: string,
  runtime: BrowserRuntime,
  plan: SpeedPlan,
  clockUrl?: string,
): Promise<RuntimeSpeeds & { backend: string; clock: string }> {
  const clock = clockUrl ? remoteClock(clockUrl) : () => performance.now() / 1000;
  useClock(clock);
  const speeds = await benchRuntime(modelUrl, runtime, plan);
  // what one reading of the clock costs on itself (the CPU clock's request is part of the time it measures)
  const t0 = clock();
  for (let i = 0; i < 20; i++) clock();
  const clockName = `${clockUrl ? 'renderer main-thread CPU time' : 'wall time'}, ${(((clock() - t0) / 21) * 1e3).toFixed(3)} ms per reading`;
  return { ...speeds, clock: clockName };
}

async function benchRuntime(
  modelUrl: string,
  runtime: BrowserRuntime,
  plan: SpeedPlan,
): Promise<RuntimeSpeeds & { backend: string }> {
  if (runtime.startsWith('engine-')) {
    const { config: cfg, weights } = await loadModel(modelUrl);
    const be = await engineBackend(runtime === 'engine-webgpu' ? 'webgpu' : 'wasm');
    try {
      const w = { params: uploadParams(be, cfg, weights), lora: null };
      const speeds = await measureSpeeds(
        runtime,
        {
          forward: (seqs) => engineForward(be, cfg, w, seqs),
          generate: (prompts, n) => engineGeneration(be, cfg, w, prompts, n),
        },
        cfg.vocabSize,
        plan,
      );
      return { ...speeds, backend: be.description };
    } finally {
      be.destroy();
    }
  }
  // the peers need only the shape (the weights are in their ONNX files)
  const cfg = parseHfConfig(JSON.parse(new TextDecoder().decode(await fetchBytes(`${modelUrl}config.json`))));
  if (runtime.startsWith('transformers-')) {
    const device = runtime === 'transformers-webgpu' ? 'webgpu' : 'wasm';
    const { tf, model, Tensor } = await transformersModel(modelUrl, device);
    try {
      const speeds = await measureSpeeds(
        runtime,
        {
          forward: (seqs) => transformersForward(model, Tensor, seqs),
          generate: (prompts, n) => transformersGeneration(model, Tensor, prompts, n),
        },
        cfg.vocabSize,
        plan,
      );
      return {
        ...speeds,
        backend: `transformers.js ${tf.env.version} (onnxruntime-web ${tf.env.backends.onnx.versions?.web ?? '?'}) ${device}`,
      };
    } finally {
      await model.dispose();
    }
  }
  const ep = runtime === 'ort-webgpu' ? 'webgpu' : 'wasm';
  const ort = await ortFor(ep);
  const ortTensor: OrtTensorFactory = (type, data, dims) => new ort.Tensor(type, data, dims);
  const present = Array.from({ length: cfg.numLayers }, (_, l) => [`present.${l}.key`, `present.${l}.value`]).flat();
  // one session at a time (measureSpeeds runs every forward before any generation): the Qwen-config model's two
  // exports are 1.2 GB each, and both at once do not fit the 4 GB of a wasm32 heap (std::bad_alloc)
  type Session = Awaited<ReturnType<typeof ortSession>>;
  let full: Session | null = null;
  let cached: Session | null = null;
  try {
    const speeds = await measureSpeeds(
      runtime,
      {
        forward: async (seqs) => ortForward((full ??= await ortSession(`${modelUrl}model.onnx`, ep)), ortTensor, seqs),
        generate: async (prompts, n) => {
          if (full) await full.release();
          full = null;
          return ortGeneration(
            (cached ??= await ortSession(`${modelUrl}model_kv.onnx`, ep, present)),
            ortTensor,
            cfg,
            prompts,
            n,
          );
        },
      },
      cfg.vocabSize,
      plan,
    );
    return { ...speeds, backend: `onnxruntime-web ${ort.env.versions.web} ${ep} EP` };
  } finally {
    await (full as Session | null)?.release();
    await (cached as Session | null)?.release();
  }
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** Logits of the golden batch from each of `runtimes`, each compared with the float64 golden logits, and every
 *  engine runtime compared with every onnxruntime one. Also the seconds each runtime took (load + first run). */
async function crosscheck(goldenUrl: string, runtimes: BrowserRuntime[]) {
  const { config: cfg, weights } = await loadModel(goldenUrl);
  const golden = parseSafetensors(await fetchBytes(`${goldenUrl}golden.safetensors`), 'golden.safetensors').tensors;
  const idsTensor = golden.get('input_ids')!;
  const [B, T] = idsTensor.shape;
  const ids = Array.from(idsTensor.data as ArrayLike<number | bigint>, Number);
  const goldLogits = golden.get('logits')!.data as Float64Array;
  const logits: Record<string, Float32Array> = {};
  const seconds: Record<string, number> = {};
  for (const runtime of runtimes) {
    const t0 = performance.now();
    const kind = runtime.endsWith('webgpu') ? 'webgpu' : 'wasm';
    if (runtime.startsWith('engine-')) {
      const be = await engineBackend(kind);
      try {
        const w = { params: uploadParams(be, cfg, weights), lora: null };
        const batch = packSequences(
          Array.from({ length: B }, (_, b) => ({ tokens: ids.slice(b * T, (b + 1) * T), positions: [] })),
          cfg.vocabSize,
        );
        logits[runtime] = await computeLogits(be, cfg, w, batch);
      } finally {
        be.destroy();
      }
    } else {
      const ort = await ortFor(kind);
      const session = await ortSession(`${goldenUrl}model.onnx`, kind);
      const out = await session.run({ input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [B, T]) });
      logits[runtime] = out.logits.data as Float32Array;
      await session.release();
    }
    seconds[runtime] = +((performance.now() - t0) / 1000).toFixed(2);
  }
  const vsGolden = Object.fromEntries(Object.entries(logits).map(([k, v]) => [k, maxAbsDiff(v, goldLogits)]));
  const pairs: Record<string, number> = {};
  for (const ours of runtimes.filter((r) => r.startsWith('engine-'))) {
    for (const peer of runtimes.filter((r) => r.startsWith('ort-')))
      pairs[`${ours} vs ${peer}`] = maxAbsDiff(logits[ours], logits[peer]);
  }
  let maxAbsGolden = 0;
  for (const x of goldLogits) maxAbsGolden = Math.max(maxAbsGolden, Math.abs(x));
  return { B, T, V: cfg.vocabSize, maxAbsGolden, vsGolden, pairs, seconds };
}

/** For each chat: the prompt ids through our tokenizer (loadHfTokenizer) and through transformers.js's AutoTokenizer
 *  (both apply the folder's chat template with the generation prompt), then `maxNew` greedy tokens from our engine
 *  (WASM, model.safetensors) and from transformers.js (wasm device, onnx/model.onnx), one chat at a time. */
async function transformersAgreement(folderUrl: string, chats: ChatMessage[][], maxNew: number) {
  useClock(() => performance.now() / 1000);
  const t0 = performance.now();
  const names = [
    'config.json',
    'generation_config.json',
    'tokenizer.json',
    'tokenizer_config.json',
    'model.safetensors',
  ];
  const files = Object.fromEntries(
    await Promise.all(names.map(async (n) => [n, await fetchBytes(`${folderUrl}${n}`)] as const)),
  );
  const source = memoryFileSource(folderUrl, files);
  const { config: cfg, weights } = await loadHfCheckpoint(source);
  const ours = await loadHfTokenizer(source);
  const { tf, model, Tensor } = await transformersModel(folderUrl, 'wasm');
  const theirs = await tf.AutoTokenizer.from_pretrained(/([^/]+)\/$/.exec(folderUrl)![1]);
  const be = await engineBackend('wasm');
  try {
    const w = { params: uploadParams(be, cfg, weights), lora: null };
    const results = [];
    for (const chat of chats) {
      const ourIds = ours.encode(ours.applyChatTemplate(chat, { addGenerationPrompt: true }));
      const text = theirs.apply_chat_template(chat, { tokenize: false, add_generation_prompt: true }) as string;
      const theirIds = theirs.encode(text, { add_special_tokens: false });
      const engineTokens = (await engineGeneration(be, cfg, w, [ourIds], maxNew)).tokens[0];
      const transformersTokens = (await transformersGeneration(model, Tensor, [theirIds], maxNew)).tokens[0];
      results.push({ ourIds, theirIds, engineTokens, transformersTokens, text: ours.decode(engineTokens) });
    }
    return {
      results,
      stopTokenIds: [...ours.stopTokenIds],
      version: tf.env.version,
      seconds: +((performance.now() - t0) / 1000).toFixed(2),
    };
  } finally {
    be.destroy();
    await model.dispose();
  }
}

async function gpuDescription(): Promise<string | null> {
  return (await requestDevice())?.description ?? null;
}

declare global {
  interface Window {
    rema: {
      bench: typeof bench;
      crosscheck: typeof crosscheck;
      transformersAgreement: typeof transformersAgreement;
      adapter: typeof gpuDescription;
      ready: boolean;
    };
  }
}
window.rema = { bench, crosscheck, transformersAgreement, adapter: gpuDescription, ready: true };
document.body.dataset.ready = 'true';
