// The `grpo` part of `npm run bench` (bench/peer.ts --grpo): real trainer.step() calls of the tiny-default preset
// (8 problems x G 8, multi-turn ReMA, public/models/tiny-rema) on the WASM backend the CLI opens (2 threads where
// the machine has 2 cores, the same answer checker in a worker thread), timed per stage, next to the physical
// limit measured in the same process: the FLOPs the step's engine calls did (bench/step-flops.ts, counted from the
// model's shape and the tokens of each call) over the GFLOP/s of the same WASM matmul kernel alone
// (bench/ceiling.ts wasmKernelCeiling) times the backend's threads. Step / limit is how far host work between
// kernels, small shapes and elementwise work keep the step from its arithmetic.
// Per stage: the trainer's own wall-clock stage times (metrics time_s); per engine call kind: wall and CPU time
// (process.cpuUsage: both threads, the helper's waiting included). One greedy evaluation of evalSize problems is
// timed too. With --full, the README's run (`rema train --preset tiny-default`, 60 steps, evaluations every 10) is
// run as a child process and its wall time reported.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { datasetsFor } from '../src/app/worker/run-setup.ts';
import { nodeAnswerChecker } from '../src/cli/checker-node.ts';
import { directoryFileSource } from '../src/cli/fs-source.ts';
import { runtimeChoices } from '../src/cli/runtime-choices.ts';
import { openBackend } from '../src/cli/setup.ts';
import { loadHfTokenizer } from '../src/data/hf-tokenizer.ts';
import type { WasmBackend } from '../src/engine/backends/wasm.ts';
import { loadHfCheckpoint } from '../src/engine/io/hf-model.ts';
import type { TrainablePolicy } from '../src/engine/policy/policy.ts';
import { policyForConfig } from '../src/rl/policy-setup.ts';
import { getPreset } from '../src/rl/presets.ts';
import { createTrainer } from '../src/rl/trainer.ts';
import { wasmKernelCeiling } from './ceiling.ts';
import { generationFlops, positionFlops, scoringRowFlops, trainingRowFlops } from './step-flops.ts';

const root = resolve(import.meta.dirname, '..');
/** measured steps after one warm-up step: steps differ in what they draw and in the machine's load, so the median of several */
const MEASURED_STEPS = 9;

const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const wallSeconds = () => performance.now() / 1000;
const round = (x: number, digits = 3) => +x.toFixed(digits);
const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];

type CallKind = 'generate' | 'score' | 'gradients' | 'optimizer';
interface CallTotals {
  calls: number;
  /** tokens the calls processed: prompt + drawn tokens (generate), row tokens (score, gradients) */
  tokens: number;
  wall_s: number;
  cpu_s: number;
  flops: number;
}

const fresh = (): Record<CallKind, CallTotals> => ({
  generate: { calls: 0, tokens: 0, wall_s: 0, cpu_s: 0, flops: 0 },
  score: { calls: 0, tokens: 0, wall_s: 0, cpu_s: 0, flops: 0 },
  gradients: { calls: 0, tokens: 0, wall_s: 0, cpu_s: 0, flops: 0 },
  optimizer: { calls: 0, tokens: 0, wall_s: 0, cpu_s: 0, flops: 0 },
});

/** Wraps the policy's engine calls: counts each kind's wall and CPU time and its FLOPs. */
function countingPolicy(
  policy: TrainablePolicy,
  flopsOf: ReturnType<typeof positionFlops>,
): { policy: TrainablePolicy; totals: Record<CallKind, CallTotals>; reset(): void } {
  const state = { totals: fresh() };
  const timed = async <T>(
    kind: CallKind,
    run: () => Promise<T>,
    flops: (r: T) => number,
    tokens: (r: T) => number,
  ): Promise<T> => {
    const w0 = wallSeconds(),
      c0 = cpuSeconds();
    const r = await run();
    const t = state.totals[kind];
    t.calls++;
    t.wall_s += wallSeconds() - w0;
    t.cpu_s += cpuSeconds() - c0;
    t.flops += flops(r);
    t.tokens += tokens(r);
    return r;
  };
  const wrapped: TrainablePolicy = Object.create(policy);
  wrapped.generate = (requests, sampling, onProgress) =>
    timed(
      'generate',
      () => policy.generate(requests, sampling, onProgress),
      (gens) =>
        gens.reduce(
          (s, g, i) =>
            s +
            generationFlops(
              flopsOf,
              requests[i].prompt.length,
              g.tokens.length + (g.finish === 'stop_token' ? 1 : 0), // the stop id was drawn too
            ),
          0,
        ),
      (gens) => gens.reduce((s, g, i) => s + requests[i].prompt.length + g.tokens.length, 0),
    );
  wrapped.score = (requests, opts) =>
    timed(
      'score',
      () => policy.score(requests, opts),
      () => requests.reduce((s, r) => s + scoringRowFlops(flopsOf, r.tokens.length, r.positions.length), 0),
      () => requests.reduce((s, r) => s + r.tokens.length, 0),
    );
  wrapped.accumulateGradients = (requests, opts) =>
    timed(
      'gradients',
      () => policy.accumulateGradients(requests, opts),
      () => requests.reduce((s, r) => s + trainingRowFlops(flopsOf, r.tokens.length, r.positions.length), 0),
      () => requests.reduce((s, r) => s + r.tokens.length, 0),
    );
  wrapped.optimizerStep = (adapter) =>
    timed(
      'optimizer',
      () => policy.optimizerStep(adapter),
      () => 0,
      () => 0,
    );
  return {
    policy: wrapped,
    get totals() {
      return state.totals;
    },
    reset() {
      state.totals = fresh();
    },
  };
}

/** The README's run as the CLI runs it: wall seconds of `rema train --preset tiny-default` (60 steps). */
function fullRun(): { wall_s: number; steps: number } | { failed: string } {
  const out = mkdtempSync(join(tmpdir(), 'rema-bench-full-'));
  try {
    const t0 = wallSeconds();
    const r = spawnSync(
      process.execPath,
      [join(root, 'bin/rema.mjs'), 'train', '--preset', 'tiny-default', '--out', out, '--quiet'],
      { cwd: root, encoding: 'utf8' },
    );
    const wall = wallSeconds() - t0;
    if (r.status !== 0) return { failed: `exit ${r.status}: ${(r.stderr ?? '').slice(-400)}` };
    return { wall_s: round(wall, 1), steps: 60 };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

export async function runGrpoStep(dir: string, opts: { full: boolean }): Promise<Record<string, unknown>> {
  if (!existsSync(join(dir, 'model.safetensors')) || !existsSync(join(dir, 'config.json'))) {
    return {
      skipped: `no trained tiny model in ${dir} (config.json + model.safetensors; npm run pretrain-tiny makes it)`,
    };
  }
  const source = directoryFileSource(dir);
  const tokenizer = await loadHfTokenizer(source);
  const checkpoint = await loadHfCheckpoint(source);
  const config = { ...getPreset('tiny-default'), evalEvery: 1000, steps: 1000 };
  const backend = (await openBackend('wasm', runtimeChoices())) as WasmBackend;
  const { train, eval: heldOut } = datasetsFor(config);
  const inner = policyForConfig(config, { backend, checkpoint, decoder: tokenizer });
  const counted = countingPolicy(inner, positionFlops(checkpoint.config, config.loraRank, config.loraTargets));
  const checker = nodeAnswerChecker();
  const trainer = createTrainer({ config, policy: counted.policy, tokenizer, train, eval: heldOut, checker });

  const loadBefore = loadavg()[0];
  const steps = [];
  for (let i = 0; i <= MEASURED_STEPS; i++) {
    counted.reset();
    const w0 = wallSeconds(),
      c0 = cpuSeconds();
    const r = await trainer.step();
    const step_s = wallSeconds() - w0,
      cpu_s = cpuSeconds() - c0;
    const flops = Object.values(counted.totals).reduce((s, t) => s + t.flops, 0);
    steps.push({
      warmup: i === 0,
      step_s: round(step_s),
      cpu_s: round(cpu_s),
      stages_s: Object.fromEntries(Object.entries(r.metrics.time_s).map(([k, v]) => [k, round(v)])),
      calls: Object.fromEntries(
        Object.entries(counted.totals).map(([k, t]) => [
          k,
          {
            calls: t.calls,
            tokens: t.tokens,
            wall_s: round(t.wall_s),
            cpu_s: round(t.cpu_s),
            mflop: round(t.flops / 1e6, 1),
          },
        ]),
      ),
      gflop: round(flops / 1e9),
      tokens_trained: r.metrics.tokens_trained,
    });
  }
  counted.reset();
  const e0 = wallSeconds(),
    ec0 = cpuSeconds();
  await trainer.evaluate();
  const evaluation = {
    problems: heldOut.length,
    wall_s: round(wallSeconds() - e0),
    cpu_s: round(cpuSeconds() - ec0),
    gflop: round(counted.totals.generate.flops / 1e9),
  };
  checker.close();
  const threads = backend.runtime.threads;
  const peakBytes = backend.ledger().peakBytes;
  inner.dispose();
  backend.destroy();

  // the limit, measured after the steps in the same process: the packed matmul kernel alone, best of short timings
  const kernelGflops = await wasmKernelCeiling(backend.variant, wallSeconds);
  const measured = steps.filter((s) => !s.warmup);
  const stepS = median(measured.map((s) => s.step_s));
  const gflop = median(measured.map((s) => s.gflop));
  const limitS = gflop / (kernelGflops * threads);
  const result = {
    backend: backend.description,
    /** this machine is shared: wall times mean little under load, CPU times (cpu_s) less so */
    load_average_1min: { before: round(loadBefore, 2), after: round(loadavg()[0], 2) },
    threads,
    problems: config.problemsPerStep,
    group: config.groupSize,
    step_s: stepS,
    cpu_s: median(measured.map((s) => s.cpu_s)),
    stages_s: measured.find((s) => s.step_s === stepS)!.stages_s,
    step_gflop: gflop,
    kernel_gflops: round(kernelGflops, 1),
    limit_s: round(limitS),
    step_over_limit: round(stepS / limitS, 1),
    evaluation,
    peak_bytes: peakBytes,
    steps,
    ...(opts.full ? { full_run: fullRun() } : {}),
  };
  return result;
}
