// Part of `npm run bench` (bench/run.ts): our CPU backends against onnxruntime-node on the same model, and one
// real GRPO step of the tiny default.
//   node --experimental-wasm-relaxed-simd --import tsx bench/peer.ts [--quick]   -> bench/results/peer.json
//   node --experimental-wasm-relaxed-simd --import tsx bench/peer.ts --grpo [--grpo-model DIR] [--full]
//                                                          -> bench/results/grpo.json (bench/grpo-step.ts)
// Partial runs (bench/results/peer-partial.json; peer.json keeps the last full run):
//   --models tiny,small,qwen   which models (default: all three; --quick: tiny and small)
//   --forward-only        only the forward figure (no prefill/decode, no forward+backward), every runtime's
//                         forwards taken in turn so that all see the same machine state (bench/peer-forward.ts)
//   --skip-ts             leave out the plain TypeScript backend
// Peer models are random-weight models made by scripts/golden/make_golden.py --bench (config.json,
// model.safetensors, model.onnx, model_kv.onnx) under bench/results/tmp/models/ (git-ignored, made on first use,
// needs /usr/bin/python3 with python3-torch): "tiny-rema" (the shipped embedded model's own weights, exported the
// same way), "small" (Qwen2 layout, D 256, 4 layers, V 8192) and, without
// --quick, "qwen2.5-0.5b-L2" (Qwen2.5-0.5B-Instruct's exact configuration, 2 of its 24 layers: the LM head over
// 151,936 tokens dominates, as in the real model's decode).
// onnxruntime-node runs with intraOpNumThreads = 1, like our single-threaded engine. What is timed is defined in
// bench/browser/measure.ts (the same code times the browser runtimes). The clock here is this process's CPU time
// (user + system, all threads): this machine is shared, and a single-threaded run's CPU time is what its wall
// time would be on an idle machine. The GRPO step is timed by wall clock (the trainer's own stage timer).
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { directoryFileSource } from '../src/cli/fs-source.ts';
import type { Backend } from '../src/engine/backend.ts';
import { CpuBackend } from '../src/engine/backends/cpu.ts';
import { WasmBackend } from '../src/engine/backends/wasm.ts';
import { loraBenchPolicy } from './lora-bench-policy.ts';
import { loadHfCheckpoint } from '../src/engine/io/hf-model.ts';
import { uploadParams } from '../src/engine/model/params.ts';
import {
  benchTokens,
  engineForward,
  engineGeneration,
  measureSpeeds,
  ortForward,
  ortGeneration,
  speedRatios,
  useClock,
  type RuntimeSpeeds,
  type SpeedPlan,
} from './browser/measure.ts';
import { benchModel } from './browser/models.ts';
import { forwardFlopsPerToken, wasmKernelCeiling } from './ceiling.ts';
import { runGrpoStep } from './grpo-step.ts';
import { FORWARD_ONLY_REPEATS, type ForwardRuntime, interleavedForward } from './peer-forward.ts';

const root = resolve(import.meta.dirname, '..');
const args = new Set(process.argv.slice(2));
const quick = args.has('--quick');
const forwardOnly = args.has('--forward-only');
const skipTs = args.has('--skip-ts');
const modelsArg = process.argv.includes('--models')
  ? process.argv[process.argv.indexOf('--models') + 1].split(',')
  : null;
const partial = forwardOnly || skipTs || modelsArg !== null;
const resultsDir = join(root, 'bench/results');

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

const ortTensor = (type: 'int64' | 'float32', data: BigInt64Array | Float32Array, dims: number[]) =>
  new ort.Tensor(type, data, dims);

async function peerModel(dir: string, name: string, plan: SpeedPlan, withPlainTs: boolean, withTraining: boolean) {
  const { config: cfg, weights } = await loadHfCheckpoint(directoryFileSource(dir));
  const runtimes: RuntimeSpeeds[] = [];
  const train: Array<Record<string, number | string>> = [];
  const opts = { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' as const };
  if (forwardOnly) {
    // every runtime alive at once, forwards taken in turn (see peer-forward.ts)
    const full = await ort.InferenceSession.create(join(dir, 'model.onnx'), opts);
    const backends: Array<[string, Backend]> = [];
    if (withPlainTs && !skipTs) backends.push(['cpu-ts', new CpuBackend()]);
    backends.push(['wasm-simd', await WasmBackend.create({ variant: 'simd' })]);
    if (WasmBackend.support()['relaxed-simd'])
      backends.push(['wasm-relaxed-simd', await WasmBackend.create({ variant: 'relaxed-simd' })]);
    const forwards: ForwardRuntime[] = [
      { runtime: 'onnxruntime-node', forward: (seqs) => ortForward(full, ortTensor, seqs) },
    ];
    for (const [rt, be] of backends) {
      const w = { params: uploadParams(be, cfg, weights), lora: null };
      forwards.push({ runtime: rt, forward: (seqs) => engineForward(be, cfg, w, seqs) });
    }
    const seqs = Array.from({ length: plan.forwardB }, (_, b) => benchTokens(plan.forwardT, b, cfg.vocabSize));
    runtimes.push(...(await interleavedForward(forwards, seqs, FORWARD_ONLY_REPEATS)));
    for (const r of runtimes) console.log(JSON.stringify(r));
    await full.release();
    for (const [, be] of backends) be.destroy();
  } else {
    const full = await ort.InferenceSession.create(join(dir, 'model.onnx'), opts);
    const cached = await ort.InferenceSession.create(join(dir, 'model_kv.onnx'), opts);
    runtimes.push(
      await measureSpeeds(
        'onnxruntime-node',
        {
          forward: (seqs) => ortForward(full, ortTensor, seqs),
          generate: (prompts, n) => ortGeneration(cached, ortTensor, cfg, prompts, n),
        },
        cfg.vocabSize,
        plan,
      ),
    );
    console.log(JSON.stringify(runtimes.at(-1)));
    await full.release();
    await cached.release();
  }
  const engines: Array<[string, () => Promise<Backend>]> = forwardOnly
    ? []
    : [
        ['wasm-simd', () => WasmBackend.create({ variant: 'simd' })],
        ['wasm-relaxed-simd', () => WasmBackend.create({ variant: 'relaxed-simd' })],
      ];
  if (withPlainTs && !skipTs && !forwardOnly) engines.unshift(['cpu-ts', async () => new CpuBackend()]);
  if (!WasmBackend.support()['relaxed-simd'] && !forwardOnly) engines.pop();
  for (const [rt, make] of engines) {
    const be = await make();
    const w = { params: uploadParams(be, cfg, weights), lora: null };
    runtimes.push(
      await measureSpeeds(
        rt,
        {
          forward: (seqs) => engineForward(be, cfg, w, seqs),
          generate: (prompts, n) => engineGeneration(be, cfg, w, prompts, n),
        },
        cfg.vocabSize,
        plan,
      ),
    );
    console.log(JSON.stringify(runtimes.at(-1)));
    be.destroy();
    if (!withTraining) continue;
    // forward + backward of a LoRA policy-gradient loss (tokens/s forward and forward+backward)
    const tbe = await make();
    const policy = loraBenchPolicy({ backend: tbe, config: cfg, weights });
    const T = plan.forwardT;
    const reqs = Array.from({ length: plan.forwardB }, (_, b) => ({
      tokens: benchTokens(T, b, cfg.vocabSize),
      positions: Array.from({ length: T - 1 }, (_i, i) => i + 1),
      adapter: 'a',
      coef: new Float32Array(T - 1).fill(1 / (plan.forwardB * T)),
    }));
    await policy.accumulateGradients(reqs);
    const t0 = cpuSeconds();
    await policy.accumulateGradients(reqs);
    await tbe.sync();
    const s = cpuSeconds() - t0;
    train.push({
      runtime: rt,
      tokens: plan.forwardB * T,
      seconds: +s.toFixed(3),
      tok_s: Math.round((plan.forwardB * T) / s),
      peak_bytes: tbe.ledger().peakBytes,
    });
    console.log(JSON.stringify(train.at(-1)));
    policy.dispose();
    tbe.destroy();
  }
  const onnx = runtimes[0];
  const ratios = Object.fromEntries(runtimes.slice(1).map((r) => [r.runtime, speedRatios(r, onnx)]));
  // the forward's FLOPs at each runtime's speed, against the ceiling of our 128-bit kernel on this machine
  const flopsPerToken = forwardFlopsPerToken(cfg, plan.forwardT);
  const forwardGflops = Object.fromEntries(
    runtimes.map((r) => [r.runtime, +((r.forward_tok_s * flopsPerToken) / 1e9).toFixed(1)]),
  );
  const kernelCeiling: Record<string, number> = {};
  for (const variant of ['simd', 'relaxed-simd'] as const) {
    if (WasmBackend.support()[variant])
      kernelCeiling[variant] = +(await wasmKernelCeiling(variant, cpuSeconds)).toFixed(1);
  }
  console.log(
    `${name}: forward ${(flopsPerToken / 1e6).toFixed(2)} MFLOP/token; effective GFLOP/s ${JSON.stringify(forwardGflops)}; ` +
      `WASM 4x8 kernel ceiling (L2-resident, best of 30) ${JSON.stringify(kernelCeiling)} GFLOP/s`,
  );
  return {
    model: name,
    config: cfg,
    plan,
    runtimes,
    ratios,
    train,
    forward_mflop_per_token: +(flopsPerToken / 1e6).toFixed(3),
    forward_gflops: forwardGflops,
    wasm_kernel_ceiling_gflops: kernelCeiling,
  };
}

async function peer() {
  useClock(cpuSeconds);
  const loadBefore = loadavg()[0];
  const models = [];
  const small: SpeedPlan = quick
    ? { forwardB: 4, forwardT: 32, promptLength: 32, maxNew: 9, G: 8, repeats: 1 }
    : { forwardB: 8, forwardT: 64, promptLength: 64, maxNew: 17, G: 8, repeats: 3 };
  const wanted = modelsArg ?? (quick ? ['tiny', 'small'] : ['tiny', 'small', 'qwen']);
  if (wanted.includes('tiny')) {
    // the embedded default itself (the model the page trains): D 64, 3 layers, V 256
    // its forward takes ~10 ms, so more repeats for a stable median
    const tiny: SpeedPlan = { ...small, repeats: quick ? 3 : 15 };
    models.push(
      await peerModel(
        benchModel('tiny-rema', 0),
        'tiny-rema (the embedded default: Llama, D 64, L 3, V 256)',
        tiny,
        true,
        true,
      ),
    );
  }
  if (wanted.includes('small')) {
    models.push(await peerModel(benchModel('small', 0), 'small (Qwen2 layout, D 256, L 4, V 8192)', small, true, true));
  }
  if (wanted.includes('qwen')) {
    const qwen: SpeedPlan = { forwardB: 2, forwardT: 32, promptLength: 32, maxNew: 9, G: 8, repeats: 1 };
    models.push(
      await peerModel(
        benchModel('qwen2.5-0.5b', 2),
        'qwen2.5-0.5b-L2 (Qwen2.5-0.5B-Instruct config, 2 of 24 layers)',
        qwen,
        false,
        false,
      ),
    );
  }
  return {
    date: new Date().toISOString(),
    node: process.version,
    onnxruntime: 'onnxruntime-node, CPU EP, intraOpNumThreads 1',
    clock: 'process CPU time (user + system)',
    load_average_1min: { before: loadBefore, after: loadavg()[0] },
    models,
    ...(partial ? { partial: process.argv.slice(2).join(' ') } : {}),
  };
}

mkdirSync(resultsDir, { recursive: true });
if (args.has('--grpo')) {
  const dir = process.argv.includes('--grpo-model')
    ? resolve(process.argv[process.argv.indexOf('--grpo-model') + 1])
    : join(root, 'public/models/tiny-rema');
  const result = await runGrpoStep(dir, { full: args.has('--full') });
  console.log(JSON.stringify(result));
  writeFileSync(
    join(resultsDir, 'grpo.json'),
    JSON.stringify({ date: new Date().toISOString(), ...result }, null, 2) + '\n',
  );
} else {
  const result = await peer();
  const file = partial ? 'peer-partial.json' : 'peer.json';
  writeFileSync(join(resultsDir, file), JSON.stringify(result, null, 2) + '\n');
  for (const m of result.models) {
    for (const [rt, r] of Object.entries(m.ratios))
      console.log(`${m.model}: ${rt} / onnxruntime-node: ${JSON.stringify(r)}`);
  }
  console.log(
    `load average ${result.load_average_1min.before.toFixed(2)} -> ${result.load_average_1min.after.toFixed(2)}; wrote bench/results/${file}`,
  );
}
