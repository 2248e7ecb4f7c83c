// What compiling kernels before their first dispatch (EnginePolicy precompileKernels: a trace of the first call,
// then every program it met created at once) does to the host time of a model's first calls: model load
// (EnginePolicy construction: uploads), the first generation (prefill + one decode step) and the first gradient
// chunk, on a fresh device each time, in three modes taken in turn: `lazy` (each pipeline compiled when first
// dispatched, createComputePipeline), `sync` (precompiled with createComputePipeline: the default on software
// adapters) and `async` (precompiled with createComputePipelineAsync in parallel: the default on hardware).
// Qwen2.5-0.5B-Instruct shape at 2 layers (random f32 weights, LoRA r8 on all projections); kernels are counted,
// not run, on a software adapter (as bench:gpu-plan), so the figures are host work: encoding, pipeline
// compilation, the trace itself. Writes bench/results/gpu-first-step.json.
//   LD_LIBRARY_PATH=/usr/lib/chromium npx tsx bench/gpu-first-step.ts [--rounds 3] [--execute]
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { requestDawnDevice } from '../src/cli/webgpu-device.ts';
import { WebGpuBackend } from '../src/engine/backends/webgpu.ts';
import type { ModelConfig } from '../src/engine/model/config.ts';

import { countGpuCalls, diffCounts } from './gpu-counter.ts';
import { QWEN25_05B, randomWeights } from './gpu-shapes.ts';
import { loraBenchPolicy } from './lora-bench-policy.ts';

process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';

const schedstat = `/proc/self/task/${process.pid}/schedstat`;
const hasSchedstat = existsSync(schedstat);
/** Milliseconds of main-thread CPU time so far (wall time without /proc). */
const hostClock = (): number =>
  hasSchedstat ? Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6 : performance.now();

interface Stage {
  wall_ms: number;
  host_ms: number;
  pipelines_sync: number;
  pipelines_async: number;
}
type Mode = 'lazy' | 'sync' | 'async';
const MODES: readonly Mode[] = ['lazy', 'sync', 'async'];

const argv = process.argv.slice(2);
const rounds = Number(argv[argv.indexOf('--rounds') + 1] || 3);
const execute = argv.includes('--execute');
const cfg: ModelConfig = { ...QWEN25_05B, numLayers: 2 };
const weights = randomWeights(cfg, 7);

async function once(mode: Mode): Promise<Record<'load' | 'first_generate' | 'first_gradient', Stage>> {
  const dawn = await requestDawnDevice();
  const counted = countGpuCalls(dawn.device, { execute });
  const be = WebGpuBackend.create(dawn.device, { gpuInfo: dawn.description, asyncPipelines: mode === 'async' });
  const out = {} as Record<'load' | 'first_generate' | 'first_gradient', Stage>;
  const timed = async <T>(name: keyof typeof out, run: () => Promise<T>): Promise<T> => {
    const [c0, h0, w0] = [counted.snapshot(), hostClock(), performance.now()];
    const r = await run();
    await be.sync();
    const d = diffCounts(c0, counted.snapshot());
    out[name] = {
      wall_ms: +(performance.now() - w0).toFixed(1),
      host_ms: +(hostClock() - h0).toFixed(1),
      pipelines_sync: d.pipelinesCreated,
      pipelines_async: d.pipelinesCreatedAsync,
    };
    return r;
  };
  const policy = await timed('load', async () =>
    loraBenchPolicy(
      {
        backend: be,
        config: cfg,
        weights,
        decoder: { decode: () => '' },
        baseDtype: 'f32',
        precompileKernels: mode !== 'lazy',
      },
      { weightDecay: 0.01 },
    ),
  );
  const prompt = Array.from({ length: 16 }, (_, i) => 100 + i * 37);
  await timed('first_generate', () =>
    policy.generate([{ prompt, adapter: 'a', maxNewTokens: 2, stopStrings: [], stopTokenIds: [] }], {
      temperature: 1,
      topP: 1,
      topK: 0,
      seed: 5,
    }),
  );
  const T = 64;
  await timed('first_gradient', () =>
    policy.accumulateGradients(
      Array.from({ length: 4 }, (_, b) => ({
        tokens: Array.from({ length: T }, (_i, t) => (1 + b * 131 + t * 17) % cfg.vocabSize),
        positions: Array.from({ length: T - 1 }, (_i, t) => t + 1),
        adapter: 'a',
        coef: new Float32Array(T - 1).fill(1 / (4 * (T - 1))),
      })),
    ),
  );
  policy.dispose();
  be.destroy();
  dawn.device.destroy();
  return out;
}

const runs: Array<{ mode: Mode; stages: Awaited<ReturnType<typeof once>> }> = [];
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < MODES.length; k++) {
    const mode = MODES[(k + r) % MODES.length];
    const stages = await once(mode);
    runs.push({ mode, stages });
    console.log(`${mode.padEnd(5)} ${JSON.stringify(stages)}`);
  }
}
const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
const summary = Object.fromEntries(
  MODES.map((mode) => {
    const mine = runs.filter((x) => x.mode === mode);
    const stages = Object.keys(mine[0].stages) as Array<keyof (typeof mine)[0]['stages']>;
    return [
      mode,
      Object.fromEntries(
        stages.map((ph) => [
          ph,
          {
            wall_ms: median(mine.map((x) => x.stages[ph].wall_ms)),
            host_ms: median(mine.map((x) => x.stages[ph].host_ms)),
            pipelines_sync: mine[0].stages[ph].pipelines_sync,
            pipelines_async: mine[0].stages[ph].pipelines_async,
          },
        ]),
      ),
    ];
  }),
);
console.log(JSON.stringify(summary, null, 2));
mkdirSync('bench/results', { recursive: true });
writeFileSync(
  'bench/results/gpu-first-step.json',
  JSON.stringify(
    {
      summary,
      runs,
      model:
        'Qwen2.5-0.5B-Instruct shape at 2 layers, random f32 weights, LoRA r8 on all projections (merged for generation by the auto rule); generate: 1 prompt of 16 tokens, 2 new tokens; gradient: 4 x 64 tokens',
      executed: execute,
      date: new Date().toISOString(),
      node: process.version,
    },
    null,
    2,
  ) + '\n',
);
