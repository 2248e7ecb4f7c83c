// The WASM backend on one thread vs two (a helper worker_threads Worker splits large matmuls by output rows,
// src/engine/backends/wasm/threads.ts), next to onnxruntime-node with intraOpNumThreads 1 and 2, in one process:
//   node --experimental-wasm-relaxed-simd --import tsx bench/threads.ts [--skip-grpo] -> bench/results/threads.json
// 1. single matmuls at the models' shapes, 1 vs 2 threads (best and median of 15, wall clock): where a split pays
//    for its dispatch (runtime.ts SPLIT_MIN_WORK);
// 2. forward tok/s of tiny-rema (B 8 x T 64) and `small` (bench/browser/models.ts), every runtime's forwards taken
//    in turn (bench/peer-forward.ts), median of the rounds;
// 3. forward+backward of a LoRA loss (tok/s), 1 vs 2 threads in turn;
// 4. one GRPO step of the tiny default (8 problems x group 8), 1 and 2 threads alternately, 2 steps each (the
//    second is reported), with a check that both thread counts produce the same rewards and loss;
// 5. the hand-off of a small split matmul after the engine's thread worked alone for a pause (the helper polling
//    for the next job, or asleep);
// 6. the row-local elementwise kernels (rmsnorm, SwiGLU, rope, axpby and backwards), 1 vs 2 threads, by size.
// Every figure is wall-clock time: with two threads, CPU time would count both. The machine is shared (2 vCPUs,
// other sessions' work): the load average is printed before and after.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { datasetsFor } from '../src/app/worker/run-setup.ts';
import { directoryFileSource } from '../src/cli/fs-source.ts';
import { spawnNodeWasmHelper } from '../src/cli/wasm-helper-node.ts';
import { loadHfTokenizer } from '../src/data/hf-tokenizer.ts';
import { WasmBackend } from '../src/engine/backends/wasm.ts';
import { RowKernel } from '../src/engine/backends/wasm/row-jobs.ts';
import type { WasmRuntime } from '../src/engine/backends/wasm/runtime.ts';
import { loraBenchPolicy } from './lora-bench-policy.ts';
import { loadHfCheckpoint } from '../src/engine/io/hf-model.ts';
import { uploadParams } from '../src/engine/model/params.ts';
import { policyForConfig } from '../src/rl/policy-setup.ts';
import { getPreset } from '../src/rl/presets.ts';
import { createTrainer } from '../src/rl/trainer.ts';
import { benchTokens, engineForward, median, ortForward } from './browser/measure.ts';
import { benchModel } from './browser/models.ts';
import { type ForwardRuntime, interleavedForward } from './peer-forward.ts';

const root = resolve(import.meta.dirname, '..');
const skipGrpo = process.argv.includes('--skip-grpo');
const wall = () => performance.now() / 1000;
const backendFor = (threads: 1 | 2, splitMinWork?: number) =>
  WasmBackend.create({ threads, spawnHelper: spawnNodeWasmHelper, cores: availableParallelism(), splitMinWork });
const ortTensor = (type: 'int64' | 'float32', data: BigInt64Array | Float32Array, dims: number[]) =>
  new ort.Tensor(type, data, dims);

/** Operands of C[M,N] = A[M,K] B[N,K]^T in a runtime's heap (A 0.5, B 0.25), its matmul scratch reserved. */
function matmulOperands(rt: WasmRuntime, M: number, N: number, K: number): { a: number; b: number; c: number } {
  rt.reserveMatmul(M, N, K);
  const a = rt.heap.alloc(M * K * 4),
    b = rt.heap.alloc(N * K * 4),
    c = rt.heap.alloc(M * N * 4);
  rt.f32At(a, M * K).fill(0.5);
  rt.f32At(b, N * K).fill(0.25);
  return { a, b, c };
}

/** 1. one matmul C[M,N] = A[M,K] B[N,K]^T, 1 vs 2 threads (split forced), microseconds */
async function matmulSweep() {
  const one = await backendFor(1),
    two = await backendFor(2, 0);
  const shapes: Array<[number, number, number, string]> = [
    [64, 64, 64, 'tiny decode q (64 rows)'],
    [512, 32, 64, 'tiny k/v'],
    [512, 64, 64, 'tiny q/o'],
    [512, 176, 64, 'tiny gate/up'],
    [512, 64, 176, 'tiny down'],
    [504, 256, 64, 'tiny LM head'],
    [2048, 176, 64, 'tiny gate/up, 2048 rows'],
    [3222, 8, 64, 'tiny LoRA x A^T (rank 8), 3222 rows'],
    [512, 256, 256, 'small q/o'],
    [512, 704, 256, 'small gate/up'],
  ];
  const rows = [];
  for (const [M, N, K, what] of shapes) {
    const times: number[][] = [[], []];
    const bes = [one, two];
    const ptrs = bes.map((be) => matmulOperands(be.runtime, M, N, K));
    const reps = Math.max(3, Math.ceil(2e7 / (M * N * K)));
    for (let round = 0; round < 16; round++) {
      for (let i = 0; i < 2; i++) {
        const { a, b, c } = ptrs[i];
        const t0 = wall();
        for (let r = 0; r < reps; r++) bes[i].runtime.matmulAt(a, b, c, 0, M, N, K, 0, 1, 1, 0);
        if (round > 0) times[i].push(((wall() - t0) / reps) * 1e6);
      }
    }
    const [best1, best2] = times.map((t) => Math.min(...t));
    const [med1, med2] = times.map(median);
    rows.push({
      shape: `${M}x${N}x${K}`,
      what,
      mega_macs: +((M * N * K) / 1e6).toFixed(2),
      us_1t_best: +best1.toFixed(0),
      us_2t_best: +best2.toFixed(0),
      us_1t_median: +med1.toFixed(0),
      us_2t_median: +med2.toFixed(0),
      speedup_best: +(best1 / best2).toFixed(2),
      speedup_median: +(med1 / med2).toFixed(2),
    });
    console.log(JSON.stringify(rows.at(-1)));
  }
  one.destroy();
  two.destroy();
  return rows;
}

/** 5. the hand-off: a decode step's gate/up matmul (64x352x64, split forced) after the engine's thread worked alone
 *  for a pause, 1 vs 2 threads: within the helper's polling window (threads.ts HELPER_SPIN_MS) the helper takes its
 *  half at once; after it, the helper sleeps and the call pays the wake-up. Microseconds per call, median of 200. */
async function handOff() {
  const one = await backendFor(1),
    two = await backendFor(2, 0);
  const [M, N, K] = [64, 352, 64];
  const ptrs = [one, two].map((be) => ({ rt: be.runtime, ...matmulOperands(be.runtime, M, N, K) }));
  const rows = [];
  for (const pauseMs of [0, 0.05, 0.2, 1, 3]) {
    const times: number[][] = [[], []];
    for (let r = 0; r < 200; r++) {
      for (let i = 0; i < 2; i++) {
        const { rt, a, b, c } = ptrs[i];
        const until = wall() + pauseMs / 1000;
        while (wall() < until); // the engine's thread busy with other work
        const t0 = wall();
        rt.matmulAt(a, b, c, 0, M, N, K, 0, 1, 1, 0);
        times[i].push((wall() - t0) * 1e6);
      }
    }
    const [us1, us2] = times.map(median);
    rows.push({ pause_ms: pauseMs, us_1t: +us1.toFixed(1), us_2t: +us2.toFixed(1), speedup: +(us1 / us2).toFixed(2) });
    console.log('hand-off', JSON.stringify(rows.at(-1)));
  }
  one.destroy();
  two.destroy();
  return rows;
}

/** 6. the row-local elementwise kernels (row-jobs.ts) at tiny-rema's widths (D 64, F 176) over 256-12000 rows, 1 vs
 *  2 threads (split forced), after a 50 us pause: nanoseconds an element on one thread (what
 *  row-jobs.ts ROW_ELEMENT_WORK weighs), microseconds per call, median of 60. */
async function rowKernels() {
  const one = await backendFor(1),
    two = await backendFor(2, 0);
  const [D, F] = [64, 176];
  const rows = [];
  for (const R of [256, 1024, 4096, 12000]) {
    const bufs = [one, two].map((be) => {
      const rt = be.runtime;
      const block = () => {
        const p = rt.heap.alloc(R * 2 * F * 4);
        rt.f32At(p, R * 2 * F).fill(0.3);
        return p;
      };
      const pos = rt.heap.alloc(R * 4);
      new Int32Array(rt.memory.buffer, pos, R).fill(0); // position 0 of the cos/sin tables (w, u)
      return {
        rt,
        x: block(),
        w: block(),
        y: block(),
        r: block(),
        g: block(),
        u: block(),
        h: block(),
        d: block(),
        pos,
      };
    });
    type Bufs = (typeof bufs)[number];
    const cases: Array<[string, number, (b: Bufs) => void]> = [
      ['rmsnorm', R * D, (b) => b.rt.rows(RowKernel.Rmsnorm, [b.x, b.w, b.y, b.r, D], R, D, 1, 1e-5)],
      ['rmsnormBackward', R * D, (b) => b.rt.rows(RowKernel.RmsnormBackward, [b.x, b.w, b.r, b.y, b.g, D, 0], R, D)],
      ['swiglu', R * F, (b) => b.rt.rows(RowKernel.Swiglu, [b.g, b.u, b.h, F], R, F)],
      ['swigluBackward', R * F, (b) => b.rt.rows(RowKernel.SwigluBackward, [b.g, b.u, b.h, b.d, b.y, F], R, F)],
      ['swigluPacked', R * F, (b) => b.rt.rows(RowKernel.SwigluPacked, [b.g, b.h, F], R, F)],
      ['rope', R * D, (b) => b.rt.rows(RowKernel.Rope, [b.x, b.pos, b.w, b.u, 4, 16, 0], R, D)],
      ['axpby', R * D, (b) => b.rt.rows(RowKernel.Axpby, [b.x, b.y], R * D, 1, 4, 1, 1)],
    ];
    for (const [name, elements, call] of cases) {
      const times: number[][] = [[], []];
      for (let r = 0; r < 60; r++) {
        for (let i = 0; i < 2; i++) {
          const until = wall() + 50e-6;
          while (wall() < until);
          const t0 = wall();
          call(bufs[i]);
          times[i].push((wall() - t0) * 1e6);
        }
      }
      const [us1, us2] = times.map(median);
      rows.push({
        kernel: name,
        rows: R,
        elements,
        ns_per_element_1t: +((us1 * 1000) / elements).toFixed(2),
        us_1t: +us1.toFixed(1),
        us_2t: +us2.toFixed(1),
        speedup: +(us1 / us2).toFixed(2),
      });
      console.log('row kernel', JSON.stringify(rows.at(-1)));
    }
  }
  one.destroy();
  two.destroy();
  return rows;
}

/** 2 + 3. forward tok/s (ORT 1 and 2 threads, WASM 1 and 2 threads, in turn) and LoRA forward+backward tok/s */
async function modelSpeeds(dir: string, name: string, B: number, T: number, rounds: number) {
  const { config: cfg, weights } = await loadHfCheckpoint(directoryFileSource(dir));
  const forwards: ForwardRuntime[] = [];
  const sessions = [];
  for (const threads of [1, 2]) {
    const s = await ort.InferenceSession.create(join(dir, 'model.onnx'), {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    });
    sessions.push(s);
    forwards.push({ runtime: `onnxruntime-node ${threads}t`, forward: (seqs) => ortForward(s, ortTensor, seqs) });
  }
  const backends = [await backendFor(1), await backendFor(2)];
  for (const be of backends) {
    const w = { params: uploadParams(be, cfg, weights), lora: null };
    forwards.push({ runtime: `wasm ${be.threads}t`, forward: (seqs) => engineForward(be, cfg, w, seqs) });
  }
  const seqs = Array.from({ length: B }, (_, b) => benchTokens(T, b, cfg.vocabSize));
  const forward = (await interleavedForward(forwards, seqs, rounds)).map((r) => ({
    runtime: r.runtime,
    forward_tok_s: r.forward_tok_s,
  }));
  for (const s of sessions) await s.release();
  for (const be of backends) be.destroy();
  console.log(name, JSON.stringify(forward));

  const policies = [];
  for (const threads of [1, 2] as const) {
    const be = await backendFor(threads);
    policies.push({ be, policy: loraBenchPolicy({ backend: be, config: cfg, weights }) });
  }
  const reqs = Array.from({ length: B }, (_, b) => ({
    tokens: benchTokens(T, b, cfg.vocabSize),
    positions: Array.from({ length: T - 1 }, (_i, i) => i + 1),
    adapter: 'a',
    coef: new Float32Array(T - 1).fill(1 / (B * T)),
  }));
  const seconds: number[][] = [[], []];
  for (const p of policies) await p.policy.accumulateGradients(reqs); // warm-up
  for (let round = 0; round < Math.max(3, Math.floor(rounds / 2)); round++) {
    for (let i = 0; i < 2; i++) {
      const t0 = wall();
      await policies[i].policy.accumulateGradients(reqs);
      await policies[i].be.sync();
      seconds[i].push(wall() - t0);
    }
  }
  const train = policies.map((p, i) => ({
    runtime: `wasm ${p.be.threads}t`,
    fwd_bwd_lora_tok_s: Math.round((B * T) / median(seconds[i])),
  }));
  for (const p of policies) {
    p.policy.dispose();
    p.be.destroy();
  }
  console.log(name, JSON.stringify(train));
  return { model: name, B, T, rounds, forward, train };
}

/** 4. one tiny-default GRPO step, 1 and 2 threads alternately (the second step of each trainer is reported) */
async function grpoSteps() {
  const dir = join(root, 'public/models/tiny-rema');
  const source = directoryFileSource(dir);
  const tokenizer = await loadHfTokenizer(source);
  const checkpoint = await loadHfCheckpoint(source);
  const config = { ...getPreset('tiny-default'), evalEvery: 1000, steps: 1000 };
  interface StepRecord {
    step_s: number;
    stages_s: unknown;
    tokens_trained: number | undefined;
    reward_mean: number;
    loss: number | undefined;
  }
  const runs: Array<{
    threads: number;
    step_s: number;
    first_step_s: number;
    trained_tok_s: number;
    helper_jobs: { shared: number; alone: number };
    steps: StepRecord[];
    split_matmuls: number;
    wasm_matmuls: number;
  }> = [];
  for (const threads of [1, 2, 2, 1] as const) {
    const backend = await backendFor(threads);
    const { train, eval: heldOut } = datasetsFor(config);
    const policy = policyForConfig(config, { backend, checkpoint, decoder: tokenizer });
    const trainer = createTrainer({ config, policy, tokenizer, train, eval: heldOut });
    const steps: StepRecord[] = [];
    for (let i = 0; i < 2; i++) {
      const t0 = wall();
      const r = await trainer.step();
      steps.push({
        step_s: +(wall() - t0).toFixed(2),
        stages_s: r.metrics.time_s,
        tokens_trained: r.metrics.tokens_trained,
        reward_mean: r.metrics.reward_mean,
        loss: r.metrics.loss,
      });
    }
    runs.push({
      threads: backend.threads,
      step_s: steps[1].step_s,
      first_step_s: steps[0].step_s,
      trained_tok_s: Math.round((steps[1].tokens_trained ?? 0) / steps[1].step_s),
      helper_jobs: backend.runtime.helperJobs,
      steps,
      split_matmuls: backend.runtime.stats.splitMatmuls,
      wasm_matmuls: backend.runtime.stats.wasmMatmuls,
    });
    const last = runs.at(-1)!;
    console.log(
      `GRPO step, ${last.threads} thread(s): ${last.step_s} s (first ${last.first_step_s} s), ${last.trained_tok_s} trained tok/s, ` +
        `stages ${JSON.stringify(steps[1].stages_s)}, helper jobs ${JSON.stringify(last.helper_jobs)}`,
    );
    policy.dispose();
    backend.destroy();
  }
  const same = runs.every(
    (r) =>
      JSON.stringify(r.steps.map((s) => [s.reward_mean, s.loss])) ===
      JSON.stringify(runs[0].steps.map((s) => [s.reward_mean, s.loss])),
  );
  return {
    problems: config.problemsPerStep,
    group: config.groupSize,
    runs,
    same_rewards_and_loss_on_1_and_2_threads: same,
  };
}

const loadBefore = loadavg();
console.log(`load average ${loadBefore.map((x) => x.toFixed(2)).join(' ')}; ${availableParallelism()} cores`);
const matmuls = await matmulSweep();
const handOffs = await handOff();
const rowKernelSplits = await rowKernels();
const models = [
  await modelSpeeds(benchModel('tiny-rema', 0), 'tiny-rema (D 64, L 3, V 256)', 8, 64, 15),
  await modelSpeeds(benchModel('small', 0), 'small (Qwen2 layout, D 256, L 4, V 8192)', 8, 64, 5),
];
const grpo = skipGrpo ? null : await grpoSteps();
const loadAfter = loadavg();
const result = {
  date: new Date().toISOString(),
  node: process.version,
  cores: availableParallelism(),
  clock: 'wall clock',
  load_average: { before: loadBefore, after: loadAfter },
  matmuls,
  hand_off: handOffs,
  row_kernels: rowKernelSplits,
  models,
  grpo,
};
const out = join(root, 'bench/results/threads.json');
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
console.log(`load average ${loadAfter.map((x) => x.toFixed(2)).join(' ')}; wrote bench/results/threads.json`);
