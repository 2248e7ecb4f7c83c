// bench:gpu-plan — what the WebGPU engine asks of the GPU per stage on the Qwen2.5-0.5B-Instruct shape (random
// weights, LoRA r8 on all projections, f32 weights; generation with the LoRA merged into the fused inference copy,
// model/lora-merge.ts, as the engine's 'auto' rule does on WebGPU: 1.4 GB at 24 layers), counted by wrapping the
// WebGPU objects (bench/gpu-counter.ts), not by the engine's bookkeeping. Each stage runs at two layer counts and
// is extrapolated exactly to 24 layers (per-layer + fixed), then printed next to the targets set for it and written
// to bench/results/gpu-plan.json.
//   npm run bench:gpu-plan                 counts only on a software adapter (SwiftShader), kernels run on a GPU
//   npm run bench:gpu-plan -- --execute    run the kernels on any adapter (slow on SwiftShader)
//   npm run bench:gpu-plan -- --no-execute counts only on any adapter
//   npm run bench:gpu-plan -- --layers 2,8 the two layer counts measured (default 2,8: far apart, so noise in host_ms is not magnified much)
//   npm run bench:gpu-plan -- --no-replay  decode steps encoded through the kernels' host code every time (no record/replay)
// host_ms is the CPU time of this process's main thread per step (/proc/self/task/PID/schedstat, where Linux has
// it; wall time elsewhere): the host's own work (encoding, sampling in JS, copies), unaffected by other processes
// on a shared machine. That clock advances in scheduler quanta (a few ms), so host_ms is the mean over the steady
// steps (99 decode steps per stage), not a median of single readings (garbage-collection pauses count; expect
// +-30% between runs). Decode steps after the first replay the first one's recorded dispatches (Backend.repeat)
// unless --no-replay. wall_ms,
// the median wall time of a step, is kept per measured layer count only. Each stage reports steady state after a
// warm-up: counts of the 2nd and later decode steps (bind_groups_first_step: the first decode step of a
// generation), of a repeated grad chunk over the same buffers (bind_groups_first_step: the first chunk), and of
// repeated adamw and zero_grad calls.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { requestDawnDevice } from '../src/cli/webgpu-device.ts';
import { WebGpuBackend } from '../src/engine/backends/webgpu.ts';

import type { ModelConfig } from '../src/engine/model/config.ts';
import { QWEN25_05B, randomWeights } from './gpu-shapes.ts';
import { countGpuCalls, diffCounts, type CountingDevice, type GpuCounts } from './gpu-counter.ts';
import { loraBenchPolicy } from './lora-bench-policy.ts';

process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';

export interface StageFigures {
  dispatches: number;
  submits: number;
  readbacks: number;
  readback_bytes_per_row?: number;
  bind_groups_created: number;
  bind_groups_first_step?: number;
  /** copyBufferToBuffer commands (the multi-tensor AdamW packs with them) */
  copies: number;
  host_upload_bytes: number;
  host_ms: number;
  wall_ms: number;
}

const STAGES = ['decode_g1', 'decode_g8', 'decode_g64', 'grad_chunk', 'adamw', 'zero_grad'] as const;
type Stage = (typeof STAGES)[number];

/** The targets at 24 layers: a single-sequence decode step in <= 250 dispatches and <= 3 ms of host time; every
 *  decode step <= 16 bytes read back per sequence and no bind group created after the first; AdamW in <= 10
 *  dispatches without a readback; zeroGrad without uploads. */
const TARGETS: Partial<Record<Stage, Partial<Record<keyof StageFigures, number>>>> = {
  decode_g1: { dispatches: 250, readback_bytes_per_row: 16, bind_groups_created: 0, host_ms: 3 },
  decode_g8: { readback_bytes_per_row: 16, bind_groups_created: 0 },
  decode_g64: { readback_bytes_per_row: 16, bind_groups_created: 0 },
  adamw: { dispatches: 10, readbacks: 0 },
  zero_grad: { host_upload_bytes: 0 },
};

function args(): { execute: boolean | null; layers: [number, number]; out: string; replay: boolean } {
  const a = process.argv.slice(2);
  let execute: boolean | null = null;
  let replay = true;
  let layers: [number, number] = [2, 8];
  let out = 'bench/results/gpu-plan.json';
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '--execute') execute = true;
    else if (a[i] === '--no-execute') execute = false;
    else if (a[i] === '--no-replay') replay = false;
    else if (a[i] === '--layers') {
      const v = (a[++i] ?? '').split(',').map(Number);
      if (v.length !== 2 || !v.every((x) => Number.isInteger(x) && x > 0) || v[0] === v[1])
        throw new Error(`--layers: two distinct positive integers, got '${a[i]}'`);
      layers = [v[0], v[1]];
    } else if (a[i] === '--out') out = a[++i];
    else throw new Error(`bench:gpu-plan: unknown argument '${a[i]}'`);
  }
  return { execute, layers, out, replay };
}

const schedstat = `/proc/self/task/${process.pid}/schedstat`;
const hasSchedstat = existsSync(schedstat);
/** Milliseconds of main-thread CPU time so far (wall time without /proc). */
function hostClock(): number {
  return hasSchedstat ? Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6 : performance.now();
}

const median = (xs: number[]): number => {
  const s = xs.toSorted((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

interface Sample {
  d: GpuCounts;
  ms: number;
  wall: number;
}

/** Counts of the last sample (steady state), median times. */
function figures(samples: readonly Sample[], rows: number | null): StageFigures {
  const d = samples[samples.length - 1].d;
  const f: StageFigures = {
    dispatches: d.dispatches,
    submits: d.submits,
    readbacks: d.readbacks,
    bind_groups_created: d.bindGroupsCreated,
    copies: d.copies,
    host_upload_bytes: d.hostUploadBytes,
    host_ms: samples.reduce((a, x) => a + x.ms, 0) / samples.length,
    wall_ms: median(samples.map((x) => x.wall)),
  };
  if (rows !== null) f.readback_bytes_per_row = d.readbackBytes / rows;
  return f;
}

/** Figures of every stage at `layers` layers. */
async function measure(
  layers: number,
  execute: boolean,
  replay: boolean,
): Promise<{ stages: Record<Stage, StageFigures>; adapter: string }> {
  const dawn = await requestDawnDevice();
  const counted: CountingDevice = countGpuCalls(dawn.device, { execute });
  const be = WebGpuBackend.create(dawn.device, { gpuInfo: dawn.description, replay });
  const cfg: ModelConfig = { ...QWEN25_05B, numLayers: layers };
  const policy = loraBenchPolicy(
    { backend: be, config: cfg, weights: randomWeights(cfg, 7), decoder: { decode: () => '' }, baseDtype: 'f32' },
    { weightDecay: 0.01 },
  );
  await be.sync();
  const repeat = async (n: number, run: () => Promise<unknown>): Promise<Sample[]> => {
    const out: Sample[] = [];
    for (let i = 0; i < n; i++) {
      const [c0, ms0, wall0] = [counted.snapshot(), hostClock(), performance.now()];
      await run();
      out.push({ d: diffCounts(c0, counted.snapshot()), ms: hostClock() - ms0, wall: performance.now() - wall0 });
    }
    return out;
  };
  const stages = {} as Record<Stage, StageFigures>;
  const prompt = Array.from({ length: 16 }, (_, i) => 100 + i * 37);
  const sampling = { temperature: 1, topP: 1, topK: 0, seed: 5 };
  for (const G of [1, 8, 64]) {
    const steps = 100; // prefill + 99 decode steps; the first decode step is reported apart
    const snaps: Array<{ c: GpuCounts; ms: number; wall: number }> = [];
    const requests = Array.from({ length: G }, () => ({
      prompt,
      adapter: 'a',
      maxNewTokens: steps,
      stopStrings: [],
      stopTokenIds: [],
    }));
    await policy.generate(
      requests.map((r) => ({ ...r, prompt: [7, ...prompt] })),
      sampling,
    ); // warm-up (JIT, pipelines)
    await policy.generate(requests, sampling, () =>
      snaps.push({ c: counted.snapshot(), ms: hostClock(), wall: performance.now() }),
    );
    const perStep: Sample[] = snaps
      .slice(1)
      .map((s, i) => ({ d: diffCounts(snaps[i].c, s.c), ms: s.ms - snaps[i].ms, wall: s.wall - snaps[i].wall }));
    const f = figures(perStep.slice(1), G);
    f.bind_groups_first_step = perStep[0].d.bindGroupsCreated;
    stages[`decode_g${G}` as Stage] = f;
  }
  {
    const T = 64;
    const requests = Array.from({ length: 8 }, (_, b) => ({
      tokens: Array.from({ length: T }, (_i, t) => (1 + b * 131 + t * 17) % cfg.vocabSize),
      positions: Array.from({ length: T - 1 }, (_i, t) => t + 1),
      adapter: 'a',
      coef: new Float32Array(T - 1).fill(1 / (8 * (T - 1))),
    }));
    const samples = await repeat(5, () => policy.accumulateGradients(requests));
    stages.grad_chunk = figures(samples.slice(1), null);
    stages.grad_chunk.bind_groups_first_step = samples[0].d.bindGroupsCreated;
  }
  for (const [stage, run] of [
    [
      'adamw',
      async () => {
        // queued and submitted; its norm and applied flag stay on the device until readOptimizerStats
        await policy.optimizerStep('a');
        await be.sync();
      },
    ],
    [
      'zero_grad',
      async () => {
        policy.zeroGrad('a');
        await be.sync();
      },
    ],
  ] as Array<[Stage, () => Promise<unknown>]>) {
    stages[stage] = figures((await repeat(11, run)).slice(1), null);
  }
  policy.dispose();
  be.destroy();
  dawn.device.destroy();
  return { stages, adapter: dawn.description };
}

/** m1 + (24 - l1)·(m2 - m1)/(l2 - l1), per figure (counts stay integers when the engine is linear in layers). */
function extrapolate(a: StageFigures, b: StageFigures, l1: number, l2: number, L: number): StageFigures {
  const out = { ...a };
  for (const k of Object.keys(a) as Array<keyof StageFigures>) {
    const v = a[k]! + ((L - l1) * (b[k]! - a[k]!)) / (l2 - l1);
    out[k] = k === 'host_ms' || k === 'wall_ms' ? +v.toFixed(3) : +v.toFixed(2);
  }
  return out;
}

async function main(): Promise<void> {
  const opt = args();
  const probe = await requestDawnDevice();
  const software = /swiftshader|fallback|llvmpipe|lavapipe/i.test(probe.description);
  probe.device.destroy();
  const execute = opt.execute ?? !software;
  const [l1, l2] = opt.layers;
  const m1 = await measure(l1, execute, opt.replay);
  const m2 = await measure(l2, execute, opt.replay);
  const L = 24;
  const stages = {} as Record<Stage, StageFigures>;
  for (const p of STAGES) {
    stages[p] = extrapolate(m1.stages[p], m2.stages[p], l1, l2, L);
    delete (stages[p] as Partial<StageFigures>).wall_ms; // wall time is kept per measured layer count only
  }
  const result = {
    layers: L,
    stages,
    measured: { [`L${l1}`]: m1.stages, [`L${l2}`]: m2.stages },
    model:
      'Qwen2.5-0.5B-Instruct shape, random f32 weights, LoRA r8 on q,k,v,o,gate,up,down (merged into the fused inference copy for generation by the auto rule), T=1 sampling; decode prompt 16 tokens, 99 decode steps; grad_chunk 8 x 64 tokens',
    adapter: m1.adapter,
    executed: execute,
    replay: opt.replay,
    date: new Date().toISOString(),
    node: process.version,
  };
  console.log(
    `adapter ${m1.adapter}; kernels ${execute ? 'executed' : 'counted only'}; decode ${opt.replay ? 'replayed' : 'encoded every step'}; measured at ${l1} and ${l2} layers, extrapolated to ${L}`,
  );
  for (const p of STAGES) {
    const f = stages[p];
    const t = TARGETS[p] ?? {};
    const cells = (Object.keys(f) as Array<keyof StageFigures>).map(
      (k) => `${k} ${f[k]}${t[k] !== undefined ? ` (target <= ${t[k]})` : ''}`,
    );
    console.log(`${p.padEnd(11)} ${cells.join(', ')}`);
  }
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(opt.out, JSON.stringify(result, null, 2) + '\n');
  console.log(`wrote ${opt.out}`);
}

await main();
