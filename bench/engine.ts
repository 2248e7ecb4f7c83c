// Engine benchmark: the whole decoder, not single kernels (bench/kernels.ts does those). For each backend that
// exists here (TypeScript CPU, WebAssembly SIMD, WebGPU through Dawn) and each model preset (random weights):
//   prefill tokens/s (B = 1 and B = 8), KV-cache decode tokens/s for a single stream vs a GRPO group of G = 8,
//   a training step split into forward / backward / optimiser (LoRA r=8 on all projections, and full fine-tuning;
//   the device is synced between the stages), with the policy's default activation budget (64 MiB),
//   and peak bytes from the backend's allocation ledger;
// plus forward tokens/s of the engine vs onnxruntime-node on every golden model that has a model.onnx.
//   npx tsx bench/engine.ts [--quick] [--webgpu]      (WebGPU on a fallback adapter such as SwiftShader only
//                                                      runs with --webgpu, and then only the tiny preset)
// Writes bench/results/engine.json. Each number is the median of 3 timed runs after one warm-up run.
import { mkdirSync, readFileSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { Backend } from '../src/engine/backend.ts';
import { CpuBackend } from '../src/engine/backends/cpu.ts';
import type { ModelConfig } from '../src/engine/model/config.ts';
import { packSequences } from '../src/engine/model/batch.ts';
import { computeLogits, runSequences } from '../src/engine/model/decoder.ts';
import { decodeBatch } from '../src/engine/model/generate.ts';
import { createLoraAdapter, namedLoraParameters, zerosLikeAdapter } from '../src/engine/model/lora.ts';
import { namedParameters, uploadParams, zerosLikeParams } from '../src/engine/model/params.ts';
import { AdamW, type ParamSlot } from '../src/engine/optim/adamw.ts';
import { loadHfCheckpoint } from '../src/engine/io/hf-model.ts';
import { memoryFileSource } from '../src/engine/io/memory-source.ts';
import { randomWeights, tinyConfig } from '../tests/helpers/engine/model-random.ts';

const args = new Set(process.argv.slice(2));
const quick = args.has('--quick');
/** the policy's default: keep all layer activations when they fit in 64 MiB (else recompute per layer) */
const budget = 64 * 1024 * 1024;
const root = resolve(import.meta.dirname, '..');

const presets: Record<string, ModelConfig> = {
  /** the shape of the playground's tiny default model */
  tiny: tinyConfig({
    hiddenSize: 96,
    intermediateSize: 264,
    numLayers: 3,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 24,
    vocabSize: 512,
    maxPositionEmbeddings: 1024,
  }),
  /** a wider model where matmuls dominate */
  small: tinyConfig({
    hiddenSize: 256,
    intermediateSize: 704,
    numLayers: 4,
    numHeads: 8,
    numKvHeads: 2,
    headDim: 32,
    vocabSize: 4096,
    maxPositionEmbeddings: 1024,
  }),
};

interface BackendEntry {
  name: string;
  make: () => Promise<Backend>;
  presets: string[];
}

async function availableBackends(): Promise<BackendEntry[]> {
  const out: BackendEntry[] = [{ name: 'cpu-ts', make: async () => new CpuBackend(), presets: ['tiny'] }];
  if (existsSync(join(root, 'src/engine/backends/wasm.ts'))) {
    const { WasmBackend } = (await import('../src/engine/backends/wasm.ts')) as {
      WasmBackend: { create(): Promise<Backend> };
    };
    out.push({ name: 'wasm-simd', make: () => WasmBackend.create(), presets: quick ? ['tiny'] : ['tiny', 'small'] });
  }
  if (existsSync(join(root, 'src/engine/backends/webgpu.ts'))) {
    const { tryRequestDawnDevice } = await import('../src/cli/webgpu-device.ts');
    const found = await tryRequestDawnDevice();
    const fallback = found ? /fallback|swiftshader/i.test(found.description) : true;
    if (found && (!fallback || args.has('--webgpu'))) {
      const { WebGpuBackend } = (await import('../src/engine/backends/webgpu.ts')) as {
        WebGpuBackend: { create(d: GPUDevice, o?: object): Backend };
      };
      out.push({
        name: `webgpu (${found.description})`,
        make: async () => WebGpuBackend.create(found.device, { gpuInfo: found.gpuInfo }),
        presets: fallback ? ['tiny'] : ['tiny', 'small'],
      });
    } else if (found) console.log(`webgpu: skipped on ${found.description} (pass --webgpu to run it anyway)`);
  }
  return out;
}

async function median(run: () => Promise<number>, repeats = 3): Promise<number> {
  await run();
  const xs: number[] = [];
  for (let i = 0; i < repeats; i++) xs.push(await run());
  return xs.toSorted((a, b) => a - b)[Math.floor(repeats / 2)];
}

async function timed(fn: () => Promise<unknown>, be: Backend): Promise<number> {
  const t = performance.now();
  await fn();
  await be.sync();
  return (performance.now() - t) / 1000;
}

const tokens = (n: number, seed: number, V: number) =>
  Array.from({ length: n }, (_, i) => (i * 131 + seed * 17 + 3) % V);

async function benchModel(entry: BackendEntry, presetName: string) {
  const cfg = presets[presetName];
  const weights = randomWeights(cfg, 1);
  const row: Record<string, number | string> = { backend: entry.name, preset: presetName };
  {
    const be = await entry.make();
    const w = { params: uploadParams(be, cfg, weights), lora: null };
    const T = quick ? 64 : 128;
    for (const B of [1, 8]) {
      const batch = packSequences(
        Array.from({ length: B }, (_, b) => ({ tokens: tokens(T, b, cfg.vocabSize), positions: [T - 1] })),
        cfg.vocabSize,
      );
      const s = await median(() => timed(() => runSequences(be, cfg, w, batch, null), be));
      row[`prefill_tok_s_B${B}`] = Math.round((B * T) / s);
    }
    const maxNew = quick ? 16 : 32;
    for (const G of [1, 8]) {
      const s = await median(async () => {
        let start = 0;
        let end = 0;
        await decodeBatch(
          be,
          cfg,
          w,
          Array.from({ length: G }, () => tokens(16, 0, cfg.vocabSize)),
          (_b, logits) => {
            let best = 0;
            for (let v = 1; v < logits.length; v++) if (logits[v] > logits[best]) best = v;
            return best;
          },
          {
            maxNewTokens: maxNew,
            onStep: () => {
              const now = performance.now();
              if (start === 0) start = now;
              end = now;
            },
          },
        );
        return (end - start) / 1000;
      });
      row[`decode_tok_s_G${G}`] = Math.round((G * (maxNew - 1)) / s);
    }
    row.inference_peak_bytes = be.ledger().peakBytes;
    be.destroy();
  }
  for (const mode of ['lora', 'full'] as const) {
    const be = await entry.make();
    const params = uploadParams(be, cfg, weights);
    const P = 32;
    const Tr = quick ? 32 : 64;
    const batch = packSequences(
      Array.from({ length: 8 }, (_, b) => ({
        tokens: tokens(P + Tr, b, cfg.vocabSize),
        positions: Array.from({ length: Tr }, (_i, i) => P + i),
      })),
      cfg.vocabSize,
    );
    const coef = new Float32Array(8 * Tr).fill(1 / (8 * Tr));
    let slots: ParamSlot[];
    let run: (timings: { forwardS: number; backwardS: number }) => Promise<unknown>;
    if (mode === 'lora') {
      const lora = createLoraAdapter(be, cfg, {
        name: 'a',
        rank: 8,
        alpha: 16,
        targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'],
        seed: 1,
      });
      const grads = zerosLikeAdapter(be, cfg, lora, 'grad');
      const g = new Map(namedLoraParameters(grads));
      slots = namedLoraParameters(lora).map(([name, param]) => ({ name, param, grad: g.get(name)!, decay: true }));
      run = (timings) =>
        runSequences(
          be,
          cfg,
          { params, lora },
          batch,
          { coef, entropyCoef: null, sinks: { full: null, lora: grads } },
          { timings, activationBudgetBytes: budget },
        );
    } else {
      const grads = zerosLikeParams(be, cfg, 'grad');
      const g = new Map(namedParameters(grads));
      slots = namedParameters(params).map(([name, param]) => ({
        name,
        param,
        grad: g.get(name)!,
        decay: param.shape.length > 1,
      }));
      run = (timings) =>
        runSequences(
          be,
          cfg,
          { params, lora: null },
          batch,
          { coef, entropyCoef: null, sinks: { full: grads, lora: null } },
          { timings, activationBudgetBytes: budget },
        );
    }
    const optimizer = new AdamW(
      be,
      { lr: 1e-4, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, gradClip: 1, schedule: { kind: 'constant' } },
      slots,
    );
    const samples: Array<{ forwardS: number; backwardS: number; optimizerS: number }> = [];
    for (let i = 0; i < 4; i++) {
      const timings = { forwardS: 0, backwardS: 0 };
      await run(timings);
      const optimizerS = await timed(() => optimizer.step(), be);
      if (i > 0) samples.push({ ...timings, optimizerS }); // the first run warms up
    }
    const med = (key: 'forwardS' | 'backwardS' | 'optimizerS') =>
      samples.map((x) => x[key]).toSorted((a, b) => a - b)[1];
    row[`${mode}_train_tokens`] = 8 * (P + Tr);
    row[`${mode}_forward_s`] = +med('forwardS').toFixed(4);
    row[`${mode}_backward_s`] = +med('backwardS').toFixed(4);
    row[`${mode}_optimizer_s`] = +med('optimizerS').toFixed(4);
    row[`${mode}_peak_bytes`] = be.ledger().peakBytes;
    be.destroy();
  }
  return row;
}

/** Forward tokens/s of the engine (logits of every position) vs onnxruntime-node on the golden ONNX exports. */
async function benchOnnx(backends: BackendEntry[]) {
  let ort: typeof import('onnxruntime-node');
  try {
    ort = await import('onnxruntime-node');
  } catch {
    console.log('onnxruntime-node is not installed: skipping the ONNX comparison');
    return [];
  }
  const dir = join(root, 'tests/fixtures/golden');
  const rows: Array<Record<string, number | string>> = [];
  for (const name of existsSync(dir) ? readdirSync(dir).toSorted() : []) {
    const onnxPath = join(dir, name, 'model.onnx');
    if (!existsSync(onnxPath)) continue;
    const read = (f: string) => new Uint8Array(readFileSync(join(dir, name, f))); // a copy: Buffer.slice would share memory
    const files = { 'config.json': read('config.json'), 'model.safetensors': read('model.safetensors') };
    const { config: cfg, weights } = await loadHfCheckpoint(memoryFileSource(name, files));
    const B = 8;
    const T = 64;
    const ids = Array.from({ length: B }, (_, b) => tokens(T, b, cfg.vocabSize));
    const session = await ort.InferenceSession.create(onnxPath, { intraOpNumThreads: 1, interOpNumThreads: 1 });
    const feed = {
      input_ids: new ort.Tensor(
        'int64',
        BigInt64Array.from(ids.flat(), (x) => BigInt(x)),
        [B, T],
      ),
    };
    const ortS = await median(async () => {
      const t = performance.now();
      await session.run(feed);
      return (performance.now() - t) / 1000;
    });
    const row: Record<string, number | string> = { model: name, B, T, onnxruntime_tok_s: Math.round((B * T) / ortS) };
    for (const entry of backends.filter((e) => !e.name.startsWith('webgpu'))) {
      const be = await entry.make();
      const w = { params: uploadParams(be, cfg, weights), lora: null };
      const batch = packSequences(
        ids.map((t) => ({ tokens: t, positions: [] })),
        cfg.vocabSize,
      );
      const s = await median(() => timed(() => computeLogits(be, cfg, w, batch), be));
      row[`${entry.name}_tok_s`] = Math.round((B * T) / s);
      row[`${entry.name}_vs_ort`] = +(ortS / s).toFixed(3);
      be.destroy();
    }
    await session.release();
    rows.push(row);
  }
  return rows;
}

const loadBefore = loadavg()[0];
const backends = await availableBackends();
const models = [];
for (const entry of backends) {
  for (const preset of entry.presets) {
    const row = await benchModel(entry, preset);
    console.log(JSON.stringify(row));
    models.push(row);
  }
}
const onnx = await benchOnnx(backends);
for (const row of onnx) console.log(JSON.stringify(row));
const result = {
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  /** 1-minute load average before and after the run: numbers from a loaded machine are noisy */
  loadavg: [+loadBefore.toFixed(2), +loadavg()[0].toFixed(2)],
  quick,
  presets,
  models,
  onnx,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/engine.json'), JSON.stringify(result, null, 2) + '\n');
console.log('wrote bench/results/engine.json');
