// The 'auto' LoRA merge rule (model/lora-merge.ts mergeLoraAuto), memory vs speed: on WebGPU the inference copy is
// made for any base dtype up to MERGE_WEBGPU_MAX_BYTES (so decode on the Qwen2.5-0.5B shape runs the fused 9
// kernels per layer by default), on CPU / WASM only for an f32 base and up to MERGE_CPU_MAX_BYTES, and nowhere when
// it would take more than half of the memory a backend says is left. EnginePolicy follows the rule (a WebGPU
// policy over an f16 base decodes at 9 dispatches per layer; a CPU backend short of memory does not merge) and
// the planner counts the copy exactly where the engine makes it (ledger peak within 15%).
import { describe, expect, it } from 'vitest';
import { countGpuCalls, diffCounts, type GpuCounts } from '../../bench/gpu-counter.ts';
import { QWEN25_05B } from '../../bench/gpu-shapes.ts';
import type { Backend } from '../../src/engine/backend.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import type { ModelConfig } from '../../src/engine/model/config.ts';
import {
  MERGE_CPU_MAX_BYTES,
  MERGE_WEBGPU_MAX_BYTES,
  mergedFloats,
  mergeLoraAuto,
  type MergeRuleInput,
} from '../../src/engine/model/lora-merge.ts';
import { EnginePolicy } from '../../src/engine/policy/engine-policy.ts';
import { planMemory, type MemoryShape } from '../../src/engine/plan/memory.ts';
import { getTestDevice, testBackend } from '../helpers/webgpu.ts';
import { randomWeights, tinyConfig } from '../helpers/engine/model-random.ts';
import { constantAdamW } from '../helpers/adamw.ts';

const ALL = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] as const;
const GiB = 1024 ** 3;

describe('mergeLoraAuto', () => {
  const base: MergeRuleInput = {
    backend: 'webgpu',
    baseF32: true,
    copyBytes: 1.4e9,
    fitsBinding: true,
    maxTotalBytes: Infinity,
    liveBytes: 2e9,
  };
  it('WebGPU: any base dtype, up to the cap, when memory is unknown', () => {
    expect(mergeLoraAuto(base)).toBe(true);
    expect(mergeLoraAuto({ ...base, baseF32: false })).toBe(true);
    expect(mergeLoraAuto({ ...base, copyBytes: MERGE_WEBGPU_MAX_BYTES })).toBe(true);
    expect(mergeLoraAuto({ ...base, copyBytes: MERGE_WEBGPU_MAX_BYTES + 4 })).toBe(false);
    expect(mergeLoraAuto({ ...base, fitsBinding: false })).toBe(false);
  });
  it('a known total: at most half of what is left', () => {
    expect(mergeLoraAuto({ ...base, maxTotalBytes: 2e9 + 2.8e9, liveBytes: 2e9 })).toBe(true);
    expect(mergeLoraAuto({ ...base, maxTotalBytes: 2e9 + 2.7e9, liveBytes: 2e9 })).toBe(false);
  });
  it('CPU / WASM: f32 base and at most 256 MiB', () => {
    const cpu = { ...base, backend: 'wasm' as const, copyBytes: MERGE_CPU_MAX_BYTES };
    expect(mergeLoraAuto(cpu)).toBe(true);
    expect(mergeLoraAuto({ ...cpu, baseF32: false })).toBe(false);
    expect(mergeLoraAuto({ ...cpu, copyBytes: MERGE_CPU_MAX_BYTES + 4 })).toBe(false);
    expect(mergeLoraAuto({ ...cpu, backend: 'cpu' })).toBe(true);
  });
});

const planShape = (backend: 'webgpu' | 'wasm', weightDtype: 'f32' | 'f16'): MemoryShape => ({
  weightDtype,
  backend,
  training: { mode: 'lora', adapters: 1, rank: 8, targets: ALL.map((t) => `${t}_proj`) },
  decode: { sequences: 8, uniquePrompts: 1, promptTokens: 16, newTokens: 16 },
  gradient: { sequences: 8, tokens: 64, selected: 504 },
});

describe('the planner counts the copy where the engine makes it', () => {
  const shape = planShape;
  it('Qwen2.5-0.5B shape: the copy on WebGPU (1.4 GB in f32 over an f32 base, 0.7 GB in f16 over an f16 base), none on WASM', () => {
    const biases = 24 * (14 + 2 * 2) * 64;
    const copy = {
      f32: 4 * mergedFloats(QWEN25_05B, [...ALL]),
      f16: 2 * (mergedFloats(QWEN25_05B, [...ALL]) - biases) + 4 * biases,
    };
    expect(copy.f32).toBeGreaterThan(1.4e9);
    expect(copy.f16).toBeLessThan(0.72e9);
    const lora = 4 * 2 * 24 * 8 * (2 * (896 + 896) + 2 * (896 + 128) + 3 * (896 + 4864));
    for (const dtype of ['f32', 'f16'] as const) {
      expect(planMemory(QWEN25_05B, shape('webgpu', dtype)).bytes.lora, dtype).toBe(lora + copy[dtype]);
      expect(planMemory(QWEN25_05B, shape('wasm', dtype)).bytes.lora, dtype).toBe(lora);
    }
    // a WebGPU backend that knows it has 3 GiB: the f32 copy would take more than half of what is left
    expect(planMemory(QWEN25_05B, { ...shape('webgpu', 'f32'), deviceBytes: 3 * GiB }).bytes.lora).toBe(lora);
  });
});

/** Qwen2-like (attention biases, GQA) at a tiny size. */
const qwenLike = (layers: number): ModelConfig =>
  tinyConfig({
    architecture: 'qwen2',
    numLayers: layers,
    attentionBias: true,
    hiddenSize: 32,
    intermediateSize: 48,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 8,
    vocabSize: 97,
  });

function policy(be: Backend, cfg: ModelConfig, baseDtype: 'f32' | 'f16'): EnginePolicy {
  return new EnginePolicy({
    backend: be,
    config: cfg,
    weights: randomWeights(cfg, 4),
    decoder: { decode: (ids) => ids.join(' ') },
    training: { mode: 'lora', adapters: ['a'], rank: 4, alpha: 8, targets: [...ALL] },
    optimizer: constantAdamW(5e-2),
    seed: 3,
    baseDtype,
  });
}

const request = { prompt: [3, 4, 5], adapter: 'a', maxNewTokens: 4, stopStrings: [], stopTokenIds: [] };
const greedy = { temperature: 0, topP: 1, topK: 0, seed: 0 };

describe('copyRows into an f16 destination (how the copy is written over an f16 base)', () => {
  it('rounds each value to the nearest half on WebGPU as its CPU twin does, other rows untouched', async () => {
    const dawn = await getTestDevice();
    const gpu = testBackend(dawn, { f16Storage: 'always' });
    const cpu = new CpuBackend();
    const [B, T, W, Sdst, dstRow0] = [2, 3, 4, 5, 1];
    const src = Float32Array.from({ length: B * T * W }, (_, i) => Math.fround(Math.sin(i + 0.5) * 3.7 + i / 1000));
    const results = [];
    for (const be of [cpu, gpu] as Backend[]) {
      const s = be.alloc([B, T, W], 'f32', 'src');
      be.upload(s, src);
      const d = be.alloc([B, Sdst, W], 'f16', 'dst');
      be.upload(d, new Float32Array(B * Sdst * W).fill(-2));
      be.run('copyRows', { t: { src: s, dst: d }, p: { B, T, W, Sdst, dstRow0 } });
      results.push(Array.from(await be.download(d)));
    }
    expect(results[1]).toEqual(results[0]);
    // really rounded: 3 of 4 values change, each by at most half an f16 ulp (2^-11 relative)
    const written = results[0].filter((x) => x !== -2);
    expect(written.length).toBe(B * T * W);
    const srcSorted = src.map((x, i) => Math.abs(written[i] - x) / Math.abs(x));
    expect(Math.max(...srcSorted)).toBeLessThanOrEqual(2 ** -11);
    expect(srcSorted.filter((e) => e > 0).length).toBeGreaterThan((B * T * W) / 2);
    gpu.destroy();
  });
});

describe('EnginePolicy follows the rule', () => {
  it('WebGPU over an f16 base merges by default: 9 dispatches per layer and decode step', async () => {
    const dawn = await getTestDevice();
    const counted = countGpuCalls(dawn.device);
    const gpu = testBackend(dawn, { f16Storage: 'always' });
    for (const layers of [1, 3]) {
      const p = policy(gpu, qwenLike(layers), 'f16');
      const snaps: GpuCounts[] = [];
      await p.generate([request], greedy, () => snaps.push(counted.snapshot()));
      p.dispose();
      for (const [i, s] of snaps.slice(1).entries())
        expect(diffCounts(snaps[i], s).dispatches, `${layers} layers`).toBe(9 * layers + 4);
    }
    gpu.destroy();
  });

  it('CPU: merges when the copy takes at most half of the memory left, not when it takes more; the plan agrees', async () => {
    const cfg = qwenLike(2);
    const copy = 4 * mergedFloats(cfg, [...ALL]);
    const measure = async (maxTotalBytes: number) => {
      const be = new CpuBackend({ maxTotalBytes });
      const p = policy(be, cfg, 'f32');
      const live = be.ledger().liveBytes;
      await p.generate([request], greedy);
      const grown = be.ledger().liveBytes - live; // the copy stays allocated once made
      p.dispose();
      return { live, grown };
    };
    const { live } = await measure(1 << 30);
    const roomy = live + 2 * copy + 1024;
    const tight = live + 2 * copy - 1024;
    expect((await measure(roomy)).grown).toBe(copy);
    expect((await measure(tight)).grown).toBe(0);
    const plan = (deviceBytes: number) =>
      planMemory(cfg, {
        weightDtype: 'f32',
        backend: 'cpu',
        deviceBytes,
        training: { mode: 'lora', adapters: 1, rank: 4, targets: ALL.map((t) => `${t}_proj`) },
        decode: { sequences: 1, uniquePrompts: 1, promptTokens: 3, newTokens: 4 },
        gradient: { sequences: 0, tokens: 0, selected: 0 },
      }).bytes.lora;
    expect(plan(roomy) - plan(tight)).toBe(copy);
  });
});
