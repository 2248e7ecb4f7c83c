// Values past the largest half (±65,504) written into an f16 KV cache: WGSL's pack2x16float is indeterminate there
// (NaN on one implementation, inf on another), so both writers (copyRows, the fused qkvRope) clamp to ±65,504 and
// count every value they clamped (Backend.halfClamps). WebGPU against the CPU twin: the same stored halves, the same
// count; NaN stays NaN and is not counted. And through a policy whose activations leave the range: the count
// (EnginePolicy.kvCacheClamps, which the trainer reports as metrics kv_cache_clamped) on WebGPU and the CPU twin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend, Tensor } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WebGpuBackend } from '../../../src/engine/backends/webgpu.ts';
import { EnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import { getTestDevice } from '../../helpers/webgpu.ts';
import { constantAdamW } from '../../helpers/adamw.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';

let gpu: WebGpuBackend;

beforeAll(async () => {
  const dev = await getTestDevice();
  gpu = WebGpuBackend.create(dev.device, { gpuInfo: dev.description });
});
afterAll(() => gpu?.destroy());

// (NaN fills a whole pair: one implementation perturbs the other half of a word packed with a NaN)
const ROW = [70000, -1e6, 1.5, 65504, 65519, -65600, Number.NaN, Number.NaN];
const OVER = ROW.filter((x) => Math.abs(x) > 65504).length;
/** NaN as a string, so that toEqual compares NaN positions too */
const show = (xs: number[]) => xs.map((x) => (Number.isNaN(x) ? 'NaN' : x));

function tensor(be: Backend, shape: number[], data: Float32Array | Int32Array, dtype: 'f32' | 'i32' = 'f32'): Tensor {
  const t = be.alloc(shape, dtype, 'input');
  be.upload(t, data);
  return t;
}

/** copyRows of two rows of ROW into an f16 cache; the stored values and the clamp count it added. */
async function copyIntoHalves(be: Backend): Promise<{ stored: number[]; clamped: number }> {
  const before = await be.halfClamps!();
  const W = ROW.length;
  const src = tensor(be, [1, 2, W], Float32Array.from([...ROW, ...ROW.map((x) => x / 2)]));
  const dst = be.alloc([1, 4, W], 'f16', 'kv cache');
  be.run('copyRows', { t: { src, dst }, p: { B: 1, T: 2, W, Sdst: 4, dstRow0: 1 } });
  const stored = Array.from(await be.download(dst));
  const clamped = (await be.halfClamps!()) - before;
  be.free(src);
  be.free(dst);
  return { stored, clamped };
}

/** qkvRope with k and v rows of large values into an f16 cache (H = Hkv = 1, Dh = 8, position 0: k unrotated). */
async function ropeIntoHalves(be: Backend): Promise<{ k: number[]; v: number[]; clamped: number }> {
  const before = await be.halfClamps!();
  const Dh = ROW.length;
  const qkv = tensor(be, [1, 3 * Dh], Float32Array.from([...ROW.map(() => 1), ...ROW, ...ROW.map((x) => -x)]));
  const pos = tensor(be, [1], Int32Array.from([0]), 'i32');
  const q = be.alloc([1, Dh], 'f32', 'q');
  const k = be.alloc([1, 2, 1, Dh], 'f16', 'k cache');
  const v = be.alloc([1, 2, 1, Dh], 'f16', 'v cache');
  be.run('qkvRope', {
    t: { qkv, pos, q, k, v },
    p: { B: 1, T: 1, H: 1, Hkv: 1, Dh, Sdst: 2, dstRow0: 1, theta: 10000 },
  });
  const out = { k: Array.from(await be.download(k)), v: Array.from(await be.download(v)) };
  const clamped = (await be.halfClamps!()) - before;
  for (const t of [qkv, pos, q, k, v]) be.free(t);
  return { ...out, clamped };
}

/** NaN where the input was NaN, else a finite value within ±65,504. */
function expectDeterminate(values: number[], label: string): void {
  for (const x of values) {
    if (Number.isNaN(x)) continue;
    expect(Number.isFinite(x), `${label}: ${x}`).toBe(true);
    expect(Math.abs(x), label).toBeLessThanOrEqual(65504);
  }
}

describe('an f16 KV cache never stores an indeterminate half', () => {
  it('copyRows clamps to ±65,504 and counts the clamped values, as its CPU twin does', async () => {
    const got = await copyIntoHalves(gpu);
    const want = await copyIntoHalves(new CpuBackend());
    expectDeterminate(got.stored, 'webgpu');
    const row1 = got.stored.slice(ROW.length, 2 * ROW.length);
    expect(row1.slice(0, 6)).toEqual([65504, -65504, 1.5, 65504, 65504, -65504]);
    expect(Number.isNaN(row1[6])).toBe(true);
    // the second row's halves (35000, -5e5, ...): only -5e5 is past the range
    expect(got.clamped).toBe(OVER + 1);
    expect(want.clamped).toBe(got.clamped);
    expect(show(got.stored)).toEqual(show(want.stored));
  });

  it('the fused qkvRope clamps keys and values alike and counts them', async () => {
    const got = await ropeIntoHalves(gpu);
    const want = await ropeIntoHalves(new CpuBackend());
    expectDeterminate([...got.k, ...got.v], 'webgpu');
    expect(got.v.slice(ROW.length, ROW.length + 6)).toEqual([-65504, 65504, -1.5, -65504, -65504, 65504]);
    expect(got.clamped).toBe(2 * OVER);
    expect(want.clamped).toBe(got.clamped);
    expect(show(got.v)).toEqual(show(want.v));
    expect(show(got.k)).toEqual(show(want.k));
  });
});

describe('EnginePolicy.kvCacheClamps', () => {
  const cfg = tinyConfig({
    architecture: 'qwen2',
    attentionBias: true,
    hiddenSize: 32,
    intermediateSize: 48,
    headDim: 8,
  });

  /** random weights whose first layer's values leave the half range (v_proj scaled up) */
  function loudWeights() {
    const w = randomWeights(cfg, 4);
    const v = w.get('model.layers.0.self_attn.v_proj.weight')!;
    v.data = Float32Array.from(v.data as Float32Array, (x) => x * 1e6);
    return w;
  }

  function policy(be: Backend): EnginePolicy {
    return new EnginePolicy({
      baseDtype: 'f32',
      kvCacheDtype: 'f16',
      backend: be,
      config: cfg,
      weights: loudWeights(),
      decoder: { decode: (ids) => ids.join(' ') },
      training: { mode: 'lora', adapters: ['a'], rank: 4, alpha: 8, targets: ['q', 'v'] },
      optimizer: constantAdamW(1e-2),
      seed: 3,
    });
  }

  it('counts the values generation clamped into its f16 cache, on WebGPU as on the CPU twin', async () => {
    const request = { prompt: [2, 9, 4], adapter: 'a', maxNewTokens: 4, stopStrings: [], stopTokenIds: [] };
    const greedy = { temperature: 0, topP: 1, topK: 0, seed: 7 };
    const counts: number[] = [];
    for (const be of [WebGpuBackend.create((await getTestDevice()).device), new CpuBackend()]) {
      const p = policy(be);
      expect(p.kvCacheDtype).toBe('f16');
      const before = await p.kvCacheClamps();
      const gen = (await p.generate([request], greedy))[0];
      expect(gen.tokens.length).toBeGreaterThan(0);
      counts.push((await p.kvCacheClamps()) - before);
      p.dispose();
      be.destroy();
    }
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts[1]).toBe(counts[0]);
  });
});
