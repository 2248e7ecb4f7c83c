// bench:gpu — the engine on a real GPU (Dawn in Node), executing every kernel: decode speed, matmul tiles, a GRPO
// step, memory and dispatches per kernel on real hardware, in one run of a few minutes, written to bench/results/gpu-real.json.
//   npm run bench:gpu                       Qwen2.5-0.5B and 1.5B shapes (random weights made in-process)
//   npm run bench:gpu -- --smoke            tiny shapes on any adapter (SwiftShader): checks the script end to end
//   npm run bench:gpu -- --peak-gbs 4800    the device's memory bandwidth (GB/s), for the fraction of the limit
//   npm run bench:gpu -- --only 0.5b        one model shape (0.5b | 1.5b)
//   npm run bench:gpu -- --timestamps       also GPU time per kernel class (timestamp queries; off by default)
// First the GPU self-test (engine/gpu-check, as `rema doctor --backend webgpu`): the shipped golden fixtures on this
// adapter with its default kernels, printed and kept as `self_test` in the result; a failing check makes the exit
// status 2 once everything is written. Then, per model shape (LoRA r16 on all 7 projections, the engine's defaults:
// f16 base on shader-f16 adapters, the LoRA merged into the fused inference copy by the 'auto' rule, device
// sampling at T=1):
//   decode   tokens/s at G = 1, 8, 64 sequences (prompt 64 tokens, 64 new tokens; the time of decode steps 2..N,
//            the prefill excluded), the weight bytes one decode step reads, achieved GB/s = bytes per step x
//            steps/s, and with --peak-gbs the fraction of the bandwidth limit (and the tok/s that limit allows)
//   matmul   the autotune's tile (backends/webgpu/autotune.ts, used for the rest of the run) and each tile (off /
//            32 / 64) timed on the prefill shapes
//   kernels for real GPUs  the flash-attention forward, rmsnorm with workgroup reductions and the padded vec4
//            tiled matmul, each timed against the kernel it replaces on a 2,048-token prefill (bench/gpu-kernels.ts)
//   grpo     (0.5B only) one GRPO step as the trainer runs it: 8 prompts x G 8 of 128 tokens, 256 new tokens;
//            generate, reference score, policy score, gradient (all 64 rows), AdamW, each stage synced and timed
//   memory   the allocation ledger's peak per part
//   kernels  dispatches per WGSL program per part; with --timestamps, GPU ms per kernel class of a decode at G = 8
//            and a gradient pass (each dispatch in its own pass, so these runs are for the breakdown only)
// Nothing here is a test; tests/bench/gpu-real.test.ts runs --smoke.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { requestDawnDevice } from '../src/cli/webgpu-device.ts';
import { WebGpuBackend } from '../src/engine/backends/webgpu.ts';
import type { ModelConfig } from '../src/engine/model/config.ts';
import { EnginePolicy } from '../src/engine/policy/engine-policy.ts';
import { mergedBytesOf } from '../src/engine/model/lora-merge.ts';
import { loraFloats, parameterCount } from '../src/engine/plan/memory.ts';
import { autotuneTiles } from '../src/engine/backends/webgpu/autotune.ts';
import { runDoctor } from '../src/cli/doctor.ts';
import { QWEN25_05B, QWEN25_15B, randomWeights } from './gpu-shapes.ts';
import { timeNewKernels, type KernelPair } from './gpu-kernels.ts';

interface Options {
  smoke: boolean;
  peakGbs: number | null;
  only: string | null;
  out: string;
  timestamps: boolean;
}

function parseArgs(argv: readonly string[]): Options {
  const o: Options = { smoke: false, peakGbs: null, only: null, out: 'bench/results/gpu-real.json', timestamps: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--smoke') o.smoke = true;
    else if (a === '--timestamps') o.timestamps = true;
    else if (a === '--peak-gbs') {
      o.peakGbs = Number(argv[++i]);
      if (!(o.peakGbs > 0)) throw new Error(`--peak-gbs: a positive number of GB/s, got '${argv[i]}'`);
    } else if (a === '--only') {
      o.only = argv[++i];
      if (o.only !== '0.5b' && o.only !== '1.5b') throw new Error(`--only: 0.5b or 1.5b, got '${o.only}'`);
    } else if (a === '--out') o.out = argv[++i];
    else throw new Error(`bench:gpu: unknown argument '${a}'`);
  }
  return o;
}

/** The workload sizes: real ones, or tiny ones for --smoke. */
interface Sizes {
  groups: number[];
  prompt: number;
  newTokens: number;
  grpo: { prompts: number; group: number; prompt: number; newTokens: number };
  tiles: number[][];
}
const REAL: Sizes = {
  groups: [1, 8, 64],
  prompt: 64,
  newTokens: 64,
  grpo: { prompts: 8, group: 8, prompt: 128, newTokens: 256 },
  tiles: [
    [2048, 4864, 896],
    [2048, 896, 4864],
  ],
};
const SMOKE: Sizes = {
  groups: [1, 4],
  prompt: 8,
  newTokens: 4,
  grpo: { prompts: 2, group: 2, prompt: 8, newTokens: 4 },
  tiles: [[32, 48, 32]],
};

function tinyShape(base: ModelConfig): ModelConfig {
  return {
    ...base,
    hiddenSize: 64,
    intermediateSize: 128,
    numLayers: 2,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 16,
    vocabSize: 512,
  };
}

const TARGETS = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] as const;
const sampling = { temperature: 1, topP: 1, topK: 0, seed: 5 };

function programCounts(be: WebGpuBackend, before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, n] of Object.entries(be.dispatchesByProgram())) {
    const d = n - (before[k] ?? 0);
    if (d > 0) out[k] = d;
  }
  return out;
}

/** Bytes of weights one decode step reads: the layers (the merged inference copy when made, f16 over an f16 base,
 *  else the base at its storage plus the f32 LoRA pairs), the final norm and the LM head. */
function decodeWeightBytes(cfg: ModelConfig, baseBytesPerElement: number, merged: boolean, rank: number): number {
  const { hiddenSize: D, vocabSize: V } = cfg;
  const layerParams = parameterCount(cfg) - V * D * (cfg.tieWordEmbeddings ? 1 : 2) - D;
  const head = V * D * baseBytesPerElement + D * baseBytesPerElement;
  if (merged)
    return (
      mergedBytesOf(cfg, [...TARGETS], baseBytesPerElement === 2 ? 'f16' : 'f32') +
      2 * D * cfg.numLayers * baseBytesPerElement +
      head
    );
  return layerParams * baseBytesPerElement + (rank > 0 ? 4 * loraFloats(cfg, rank, [...TARGETS]) : 0) + head;
}

interface ModelResult {
  name: string;
  layers: number;
  parameters: number;
  base_dtype: string;
  merged: boolean;
  load_s: number;
  decode: Array<{
    G: number;
    tok_s: number;
    steps_s: number;
    ms_per_step: number;
    bytes_per_step: number;
    achieved_gbs: number;
    fraction_of_peak?: number;
    limit_tok_s_g1?: number;
    peak_bytes: number;
  }>;
  /** the autotune's choice of tile (autotune.ts), used for the rest of the run */
  autotune: { best: number; timings: Array<{ tiled: number; ms: number }> };
  matmul_tiles: Array<{
    M: number;
    N: number;
    K: number;
    results: Array<{ tiled: number; ms: number; gflops: number }>;
    best: number;
  }>;
  /** the kernels for real GPUs against the ones they replace (bench/gpu-kernels.ts) */
  new_kernels: KernelPair[];
  grpo?: {
    stages_ms: Record<string, number>;
    total_s: number;
    rollouts: number;
    new_tokens: number;
    peak_bytes: number;
  };
  kernels: Record<string, Record<string, number>>;
  /** with --timestamps: GPU ms and dispatches per kernel class (null: the adapter has no timestamp-query) */
  kernel_ms?: Record<string, Record<string, { dispatches: number; ms: number }>> | null;
  peak_bytes: number;
}

async function timeMatmulTiles(
  be: WebGpuBackend,
  shapes: number[][],
  reps: number,
): Promise<ModelResult['matmul_tiles']> {
  const out: ModelResult['matmul_tiles'] = [];
  const saved = be.tuning.tiled;
  for (const [M, N, K] of shapes) {
    const a = be.alloc([M, K], 'f32', 'bench.a');
    const b = be.alloc([N, K], 'f32', 'bench.b');
    const c = be.alloc([M, N], 'f32', 'bench.c');
    be.upload(a, new Float32Array(M * K).fill(0.01));
    be.upload(b, new Float32Array(N * K).fill(0.02));
    const results: Array<{ tiled: number; ms: number; gflops: number }> = [];
    for (const tiled of [0, 2, 4] as const) {
      be.tuning.tiled = tiled;
      const run = () => be.run('matmul', { t: { a, b, c }, p: { M, N, K, transA: 0, transB: 1, alpha: 1, beta: 0 } });
      run();
      await be.sync(); // warm-up (pipeline compile)
      const t0 = performance.now();
      for (let i = 0; i < reps; i++) run();
      await be.sync();
      const ms = (performance.now() - t0) / reps;
      results.push({ tiled, ms: +ms.toFixed(3), gflops: Number(((2 * M * N * K) / (ms * 1e6)).toPrecision(3)) });
    }
    for (const t of [a, b, c]) be.free(t);
    const best = results.toSorted((x, y) => x.ms - y.ms)[0].tiled;
    out.push({ M, N, K, results, best });
  }
  be.tuning.tiled = saved;
  return out;
}

async function benchModel(
  name: string,
  cfg: ModelConfig,
  sizes: Sizes,
  opts: Options,
  withGrpo: boolean,
): Promise<ModelResult> {
  const dawn = await requestDawnDevice();
  const be = WebGpuBackend.create(dawn.device, { gpuInfo: dawn.gpuInfo });
  const rank = 16;
  const t0 = performance.now();
  const policy = new EnginePolicy({
    backend: be,
    config: cfg,
    weights: randomWeights(cfg, 7),
    decoder: { decode: () => '' },
    training: { mode: 'lora', adapters: ['a'], rank, alpha: 32, targets: [...TARGETS] },
    optimizer: {
      lr: 1e-5,
      beta1: 0.9,
      beta2: 0.999,
      eps: 1e-8,
      weightDecay: 0.01,
      gradClip: 1,
      schedule: { kind: 'constant' },
    },
    seed: 1,
  });
  await be.sync();
  const load_s = (performance.now() - t0) / 1000;
  // the tiled matmul's tile for this adapter (kept in the backend's tuning for the rest of the run)
  const tune = await autotuneTiles(
    be,
    opts.smoke ? { M: 32, N: 32, K: 32 } : { M: 2048, N: Math.min(4864, cfg.intermediateSize), K: cfg.hiddenSize },
    opts.smoke ? 1 : 5,
  );
  console.log(
    `${name} autotune: tile ${tune.best} (${tune.timings.map((t) => `${t.tiled}: ${t.ms.toFixed(3)} ms`).join(', ')})`,
  );
  const baseDtype = be.prefersF16 ? 'f16' : 'f32';
  const kernels: ModelResult['kernels'] = {};
  const prompt = (n: number, salt: number) =>
    Array.from({ length: n }, (_, i) => 100 + ((i * 37 + salt * 101) % (cfg.vocabSize - 200)));
  const decode: ModelResult['decode'] = [];
  let merged = false;
  for (const G of sizes.groups) {
    const requests = Array.from({ length: G }, (_, g) => ({
      prompt: prompt(sizes.prompt, g),
      adapter: 'a',
      maxNewTokens: sizes.newTokens,
      stopStrings: [],
      stopTokenIds: [],
    }));
    await policy.generate(
      requests.slice(0, 1).map((r) => ({ ...r, maxNewTokens: 2 })),
      sampling,
    ); // warm-up
    const before = be.dispatchesByProgram();
    const stamps: number[] = [];
    await policy.generate(requests, sampling, () => stamps.push(performance.now()));
    // stamps[0]: after the prefill's first token; stamps[i]: after decode step i
    const steps = stamps.length - 2;
    const ms = (stamps[stamps.length - 1] - stamps[1]) / Math.max(steps, 1);
    merged = Object.keys(be.dispatchesByProgram()).some((k) => k.startsWith('qkvRope')); // the fused layer ran
    const bytes = decodeWeightBytes(cfg, baseDtype === 'f16' ? 2 : 4, merged, rank);
    const row: ModelResult['decode'][number] = {
      G,
      tok_s: +((G * 1000) / ms).toFixed(1),
      steps_s: +(1000 / ms).toFixed(1),
      ms_per_step: +ms.toFixed(3),
      bytes_per_step: bytes,
      achieved_gbs: Number((bytes / (ms * 1e6)).toPrecision(3)),
      peak_bytes: be.ledger().peakBytes,
    };
    if (opts.peakGbs) {
      row.fraction_of_peak = Number((row.achieved_gbs / opts.peakGbs).toPrecision(3));
      // the f16 limit: every weight read once per step at 2 bytes
      row.limit_tok_s_g1 = +((opts.peakGbs * 1e9) / decodeWeightBytes(cfg, 2, false, 0)).toFixed(0);
    }
    decode.push(row);
    kernels[`decode_g${G}`] = programCounts(be, before);
    console.log(
      `${name} decode G=${G}: ${row.tok_s} tok/s (${row.ms_per_step} ms/step, ${row.achieved_gbs} GB/s${row.fraction_of_peak !== undefined ? `, ${(100 * row.fraction_of_peak).toFixed(1)} % of peak` : ''})`,
    );
  }
  const matmul_tiles = await timeMatmulTiles(
    be,
    sizes.tiles.map(([M, N, K]) => [M, opts.smoke ? N : Math.min(N, cfg.intermediateSize), opts.smoke ? K : K]),
    opts.smoke ? 2 : 10,
  );
  for (const t of matmul_tiles)
    console.log(
      `${name} matmul ${t.M}x${t.N}x${t.K}: ${t.results.map((r) => `tiled ${r.tiled}: ${r.gflops} GFLOP/s`).join(', ')}`,
    );
  const new_kernels = await timeNewKernels(be, cfg, opts.smoke ? 20 : 2048, opts.smoke ? 1 : 10);
  for (const k of new_kernels)
    console.log(`${name} ${k.kernel} ${k.shape}: ${k.old_ms} ms -> ${k.new_ms} ms (x${k.speedup})`);
  const result: ModelResult = {
    name,
    layers: cfg.numLayers,
    parameters: parameterCount(cfg),
    base_dtype: baseDtype,
    merged,
    load_s: +load_s.toFixed(1),
    autotune: { best: tune.best, timings: tune.timings.map((t) => ({ tiled: t.tiled, ms: +t.ms.toFixed(3) })) },
    decode,
    matmul_tiles,
    new_kernels,
    kernels,
    peak_bytes: 0,
  };
  if (withGrpo) {
    const g = sizes.grpo;
    const stages: Record<string, number> = {};
    const timed = async (stage: string, run: () => Promise<unknown>) => {
      const before = be.dispatchesByProgram();
      const s = performance.now();
      await run();
      await be.sync();
      stages[stage] = +(performance.now() - s).toFixed(1);
      kernels[`grpo_${stage}`] = programCounts(be, before);
    };
    const requests = Array.from({ length: g.prompts * g.group }, (_, i) => ({
      prompt: prompt(g.prompt, Math.floor(i / g.group)),
      adapter: 'a',
      maxNewTokens: g.newTokens,
      stopStrings: [],
      stopTokenIds: [],
    }));
    let rollouts: Array<{ tokens: number[]; positions: number[] }> = [];
    const start = performance.now();
    await timed('generate', async () => {
      const gens = await policy.generate(requests, sampling);
      rollouts = gens.map((gen, i) => ({
        tokens: [...requests[i].prompt, ...gen.tokens],
        positions: gen.tokens.map((_t, j) => requests[i].prompt.length + j),
      }));
    });
    const newTokens = rollouts.reduce((s, r) => s + r.positions.length, 0);
    await timed('score_reference', () =>
      policy.score(
        rollouts.map((r) => ({ ...r, adapter: 'a' })),
        { reference: true },
      ),
    );
    await timed('score_old_policy', () => policy.score(rollouts.map((r) => ({ ...r, adapter: 'a' }))));
    policy.zeroGrad('a');
    await timed('gradient', () =>
      policy.accumulateGradients(
        rollouts.map((r) => ({ ...r, adapter: 'a', coef: new Float32Array(r.positions.length).fill(1 / newTokens) })),
      ),
    );
    await timed('adamw', async () => {
      await policy.optimizerStep('a');
      await policy.readOptimizerStats('a'); // the trainer's one read of the update stage
    });
    result.grpo = {
      stages_ms: stages,
      total_s: +((performance.now() - start) / 1000).toFixed(2),
      rollouts: rollouts.length,
      new_tokens: newTokens,
      peak_bytes: be.ledger().peakBytes,
    };
    console.log(
      `${name} GRPO step (${g.prompts} x ${g.group}, ${g.prompt}-token prompts, ${g.newTokens} new): ${result.grpo.total_s} s ${JSON.stringify(stages)}`,
    );
  }
  if (opts.timestamps) {
    if (!be.device.features.has('timestamp-query')) result.kernel_ms = null;
    else {
      // last, since every dispatch then runs in its own pass: a decode at G = 8 and one gradient pass, timed per kernel class
      be.profileKernels();
      const G = Math.min(8, Math.max(...sizes.groups));
      const requests = Array.from({ length: G }, (_, g) => ({
        prompt: prompt(sizes.prompt, g),
        adapter: 'a',
        maxNewTokens: sizes.newTokens,
        stopStrings: [],
        stopTokenIds: [],
      }));
      await policy.generate(requests, sampling);
      const decodeTimes = await be.kernelTimes();
      const rows = requests.map((r) => ({
        tokens: [...r.prompt, ...r.prompt],
        positions: r.prompt.map((_t, j) => r.prompt.length + j),
        adapter: 'a',
        coef: new Float32Array(r.prompt.length).fill(1e-3),
      }));
      policy.zeroGrad('a');
      await policy.accumulateGradients(rows);
      const all = (await be.kernelTimes())!;
      const gradient = Object.fromEntries(
        Object.entries(all)
          .map(([k, t]) => [
            k,
            {
              dispatches: t.dispatches - (decodeTimes?.[k]?.dispatches ?? 0),
              ms: +(t.ms - (decodeTimes?.[k]?.ms ?? 0)).toFixed(3),
            },
          ])
          .filter(([, t]) => (t as { dispatches: number }).dispatches > 0),
      );
      result.kernel_ms = { [`decode_g${G}`]: decodeTimes ?? {}, gradient };
      console.log(`${name} kernel ms (decode G=${G}): ${JSON.stringify(decodeTimes)}`);
    }
  }
  result.peak_bytes = be.ledger().peakBytes;
  policy.dispose();
  be.destroy();
  dawn.device.destroy();
  return result;
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  // a real GPU is found by the Vulkan loader on its own; SwiftShader only for the smoke run
  if (opts.smoke) process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
  const probe = await requestDawnDevice();
  const adapter = probe.description;
  const features = [...probe.device.features].toSorted();
  const limits = {
    maxBufferSize: probe.device.limits.maxBufferSize,
    maxStorageBufferBindingSize: probe.device.limits.maxStorageBufferBindingSize,
  };
  probe.device.destroy();
  console.log(`adapter ${adapter}; features ${features.join(', ')}`);
  console.log('GPU self-test (rema doctor --backend webgpu):');
  const selfTest = await runDoctor({ quiet: true });
  if (!opts.smoke && /swiftshader|fallback|llvmpipe|lavapipe/i.test(adapter)) {
    console.log('warning: a software adapter; the real shapes take very long here (use --smoke)');
  }
  const sizes = opts.smoke ? SMOKE : REAL;
  const shapes: Array<[string, ModelConfig, boolean]> = [
    ['Qwen2.5-0.5B', QWEN25_05B, true],
    ['Qwen2.5-1.5B', QWEN25_15B, false],
  ];
  const models: ModelResult[] = [];
  for (const [name, cfg, grpo] of shapes) {
    if (opts.only && !name.toLowerCase().endsWith(opts.only)) continue;
    models.push(await benchModel(name, opts.smoke ? tinyShape(cfg) : cfg, sizes, opts, grpo));
  }
  const result = {
    adapter,
    features,
    limits,
    self_test: selfTest,
    smoke: opts.smoke,
    peak_gbs: opts.peakGbs,
    workload: sizes,
    lora: { rank: 16, targets: TARGETS },
    date: new Date().toISOString(),
    node: process.version,
    models,
  };
  mkdirSync(dirname(opts.out), { recursive: true });
  writeFileSync(opts.out, JSON.stringify(result, null, 2) + '\n');
  console.log(`wrote ${opts.out}`);
  if (!selfTest.ok) {
    console.log('the GPU self-test FAILED on this adapter (self_test in the result)');
    process.exitCode = 2;
  }
}

await main();
