// The auto backend's calibration (rl/backend-calibration.ts) on the real engine and the shipped tiny-rema model:
// every candidate (JavaScript, WebAssembly, WebGPU on Dawn / SwiftShader) runs the workload and reports finite
// rates, the winner is the one with the shortest estimated step, a failing candidate is reported and left out, and
// the budget decides how many rounds each candidate runs (checked with a clock that advances by a fixed amount on
// each reading, so the count is exact whatever the machine's speed). No timing is asserted.
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../src/cli/fs-source.ts';
import { loadHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import type { ChatTokenizer } from '../../src/data/tokenizer.ts';
import type { Backend } from '../../src/engine/backend.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { WebGpuBackend } from '../../src/engine/backends/webgpu.ts';
import { parseHfConfig } from '../../src/engine/io/hf-config.ts';
import { loadHfCheckpoint, type HfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { findCatalogModel } from '../../src/data/models/catalog.ts';
import {
  backendWorkload,
  calibrateBackends,
  chooseBackend,
  describeBackendChoice,
  estimateStep,
  measurePolicy,
  weightsPerToken,
  type BackendRates,
} from '../../src/rl/backend-calibration.ts';
import { validateConfig, type ExperimentConfig } from '../../src/rl/config.ts';
import { policyForConfig } from '../../src/rl/policy-setup.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { getTestDevice } from '../helpers/webgpu.ts';

const files = directoryFileSource(resolve(import.meta.dirname, '../../public/models/tiny-rema'), 'tiny-rema');
let checkpoint: HfCheckpoint;
let tokenizer: ChatTokenizer;
const backends: Backend[] = [];

beforeAll(async () => {
  [checkpoint, tokenizer] = await Promise.all([loadHfCheckpoint(files), loadHfTokenizer(files)]);
});
afterAll(() => {
  for (const b of backends) b.destroy();
});

const config: ExperimentConfig = validateConfig(
  { problemsPerStep: 2, groupSize: 4, maxTurns: 2, maxTokensPerTurn: 32, evalEvery: 0 },
  'test',
  getPreset('tiny-default'),
);
const policyFor = (backend: Backend) => policyForConfig(config, { backend, checkpoint, decoder: tokenizer });

function rates(backend: string, decode: number, gradient = 0.1): BackendRates {
  return {
    backend,
    description: backend,
    prefill_ms_per_token: 0.05,
    decode_ms_per_token: decode,
    score_ms_per_token: 0.05,
    gradient_ms_per_token: gradient,
    warmup_ms: 10,
    rounds: 1,
    spent_ms: 20,
  };
}

describe('choosing by estimated step time', () => {
  it('picks the shortest estimated step, the first measured on a tie, and says why', () => {
    const model = checkpoint.config;
    const fast = chooseBackend([rates('webgpu', 2), rates('wasm', 0.5)], config, model, { measured_ms: 900 });
    expect(fast.winner).toBe('wasm');
    expect(fast.reason).toMatch(/shortest estimated step .* webgpu/);
    // decoding dominates a step of 8 rollouts x 4 messages x 32 tokens, but a slow enough backward decides
    const slowBackward = chooseBackend([rates('webgpu', 2, 0.1), rates('wasm', 0.5, 50)], config, model, {
      measured_ms: 900,
    });
    expect(slowBackward.winner).toBe('webgpu');
    const tie = chooseBackend([rates('webgpu', 1), rates('wasm', 1)], config, model, { measured_ms: 1 });
    expect(tie.winner).toBe('webgpu');
    expect(describeBackendChoice(fast, { cached: true, note: 'the JavaScript backend was not measured' })).toMatch(
      /^auto -> wasm: 0\.50 ms\/token, .*\/step \(webgpu 2\.0 ms\/token, .*the JavaScript .*measured 900 ms, cached\)$/,
    );
  });

  it('scales rates to the config: twice the decode rate or twice the rollouts, twice the step', () => {
    const model = checkpoint.config;
    const zero = { ...rates('x', 0, 0), prefill_ms_per_token: 0, score_ms_per_token: 0 };
    expect(estimateStep(zero, config, model)).toBe(0);
    const a = estimateStep({ ...zero, decode_ms_per_token: 1 }, config, model);
    expect(a).toBeGreaterThan(0);
    expect(estimateStep({ ...zero, decode_ms_per_token: 2 }, config, model)).toBeCloseTo(2 * a, 9);
    const more = { ...config, problemsPerStep: 2 * config.problemsPerStep };
    expect(estimateStep({ ...zero, decode_ms_per_token: 1 }, more, model)).toBeCloseTo(2 * a, 9);
  });

  it('names every failure when no backend ran', () => {
    expect(() =>
      chooseBackend([], config, checkpoint.config, {
        measured_ms: 5,
        failed: [{ backend: 'webgpu', description: 'gpu', error: 'device lost' }],
      }),
    ).toThrow(/no backend could run the model \(webgpu: device lost\)/);
  });
});

describe('the workload', () => {
  it('is sized to the model: the fullest for the embedded model, the smallest for Qwen2.5-0.5B', () => {
    expect(backendWorkload(config, checkpoint.config)).toEqual({
      sequences: 8,
      promptTokens: 32,
      decodeSteps: 4,
      rows: 4,
      rowTokens: 64,
      trained: 32,
    });
    const qwen = parseHfConfig(findCatalogModel('Qwen/Qwen2.5-0.5B-Instruct')!.config);
    expect(weightsPerToken(qwen)).toBeGreaterThan(4e8);
    const w = backendWorkload({ ...config, prompts: 'code' }, qwen);
    expect(w).toMatchObject({ sequences: 1, promptTokens: 4, decodeSteps: 2, rows: 1, rowTokens: 8 });
  });
});

describe('the budget', () => {
  it('runs rounds until the share is spent, at least one and at most maxRounds', async () => {
    const backend = await WasmBackend.create();
    backends.push(backend);
    const policy = policyFor(backend);
    const w = backendWorkload(config, checkpoint.config);
    let t = 0;
    const clock = () => (t += 5); // every reading advances 5 ms: each round "takes" the same time
    const one = await measurePolicy(policy, w, { shareMs: 0, maxRounds: 8, clock });
    expect(one.rounds).toBe(1);
    const capped = await measurePolicy(policy, w, { shareMs: 1e9, maxRounds: 3, clock });
    expect(capped.rounds).toBe(3);
    const some = await measurePolicy(policy, w, { shareMs: 200, maxRounds: 100, clock });
    const round = (some.spent_ms - some.warmup_ms) / some.rounds;
    expect(some.rounds).toBeGreaterThan(1);
    // a round starts only while the share has room for it: the last one ends within one round of the share
    expect(some.spent_ms).toBeLessThanOrEqual(200 + round);
    expect(some.spent_ms + round).toBeGreaterThan(200);
    // the gradients the workload accumulated are cleared, so the trainer's first step starts from zero
    const norms = await policy.gradientNorms?.(policy.adapters[0]);
    for (const n of norms ?? []) expect(n.norm).toBe(0);
    policy.dispose();
  });
});

describe('on the real engine', () => {
  it('measures cpu, wasm and webgpu, reports finite rates and picks the argmin', async () => {
    const { device, description } = await getTestDevice();
    const cpu = new CpuBackend();
    const wasm = await WasmBackend.create();
    const webgpu = WebGpuBackend.create(device, { gpuInfo: description });
    backends.push(cpu, wasm, webgpu);
    const started: string[] = [];
    const choice = await calibrateBackends(
      [
        { name: 'webgpu', backend: webgpu },
        { name: 'wasm', backend: wasm },
        { name: 'cpu', backend: cpu },
      ],
      { config, model: checkpoint.config, policyFor, budgetMs: 300, onCandidate: (n) => started.push(n) },
    );
    expect(started).toEqual(['webgpu', 'wasm', 'cpu']);
    expect(choice.failed).toEqual([]);
    expect(choice.estimates.map((e) => e.backend)).toEqual(['webgpu', 'wasm', 'cpu']);
    for (const e of choice.estimates) {
      for (const v of [e.prefill_ms_per_token, e.score_ms_per_token, e.gradient_ms_per_token, e.step_s]) {
        expect(Number.isFinite(v)).toBe(true);
        expect(v).toBeGreaterThan(0);
      }
      expect(Number.isFinite(e.decode_ms_per_token)).toBe(true);
      expect(e.rounds).toBeGreaterThanOrEqual(1);
    }
    const argmin = choice.estimates.reduce((a, b) => (b.step_s < a.step_s ? b : a));
    expect(choice.winner).toBe(argmin.backend);
    expect(choice.measured_ms).toBeGreaterThanOrEqual(Math.max(...choice.estimates.map((e) => e.spent_ms)));
    // every candidate's backend is usable afterwards (the measuring policies freed their tensors)
    for (const b of [cpu, wasm, webgpu]) expect(b.ledger().liveBytes).toBe(0);
  });

  it('reports a candidate that fails and chooses among the others', async () => {
    const wasm = await WasmBackend.create();
    backends.push(wasm);
    const tooSmall = new CpuBackend({ maxTotalBytes: 1024 });
    const choice = await calibrateBackends(
      [
        { name: 'cpu', backend: tooSmall },
        { name: 'wasm', backend: wasm },
      ],
      { config, model: checkpoint.config, policyFor, budgetMs: 50 },
    );
    expect(choice.winner).toBe('wasm');
    expect(choice.failed).toHaveLength(1);
    expect(choice.failed[0].backend).toBe('cpu');
    expect(choice.failed[0].error.length).toBeGreaterThan(0);
    expect(describeBackendChoice(choice, { cached: false })).toMatch(/^auto -> wasm: .*cpu failed: /);
  });

  it("measures a running trainer's policy in place: no second copy of the weights, left usable to its owner", async () => {
    const wasm = await WasmBackend.create();
    backends.push(wasm);
    const trainers = policyFor(wasm);
    const row = { tokens: [3, 4, 5, 6], positions: [3], adapter: trainers.adapters[0] ?? null };
    const [before] = await trainers.score([row]);
    const live = wasm.ledger().liveBytes;
    let built = 0;
    const choice = await calibrateBackends([{ name: 'wasm', backend: wasm, policy: trainers }], {
      config,
      model: checkpoint.config,
      policyFor: (b) => {
        built++;
        return policyFor(b);
      },
      budgetMs: 0,
    });
    expect(built).toBe(0);
    expect(choice.estimates.map((e) => e.backend)).toEqual(['wasm']);
    // not disposed: its weights are still on the backend, its gradients zero, and it scores as before
    expect(wasm.ledger().liveBytes).toBeGreaterThanOrEqual(live);
    for (const n of (await trainers.gradientNorms?.(trainers.adapters[0])) ?? []) expect(n.norm).toBe(0);
    const [after] = await trainers.score([row]);
    expect(after.logprobs).toEqual(before.logprobs);
    // the page's line after a switch names the backend the model ran on before
    expect(describeBackendChoice(choice, { cached: false, switchedFrom: 'cpu' })).toMatch(
      /^auto -> wasm: .*\(switched from cpu; measured [0-9.]+ m?s\)$/,
    );
    trainers.dispose();
  });
});
