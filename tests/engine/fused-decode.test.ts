// The fused inference path (model/lora-merge.ts + layer.ts layerForwardFused): the catalog's fused kernels equal
// the unfused kernels they replace (CPU twin, exactly), a decode step with a merged LoRA on WebGPU records 9
// dispatches per layer (counted by wrapping Dawn's objects, bench/gpu-counter.ts) instead of 17 + 2 per LoRA
// target, and the merged copy is refreshed on the device after each optimiser step so that generation follows the
// adapter (greedy tokens equal to the unmerged adapter's on the same backend).
import { describe, expect, it } from 'vitest';
import { countGpuCalls, diffCounts, type GpuCounts } from '../../bench/gpu-counter.ts';
import type { Backend } from '../../src/engine/backend.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { EnginePolicy } from '../../src/engine/policy/engine-policy.ts';
import type { ModelConfig } from '../../src/engine/model/config.ts';
import type { Generation, SamplingParams } from '../../src/engine/policy/policy.ts';
import { mergedBytesOf } from '../../src/engine/model/lora-merge.ts';
import { Rng } from '../../src/util/rng.ts';
import { getTestDevice, testBackend } from '../helpers/webgpu.ts';
import { randomWeights, tinyConfig } from '../helpers/engine/model-random.ts';
import { constantAdamW } from '../helpers/adamw.ts';

const rng = new Rng(5);
const randn = (n: number) => Float32Array.from({ length: n }, () => rng.normal());

/** The CPU twins, and the WASM backend's kernels (which must equal its own unfused kernels). */
const BACKENDS: Array<[string, () => Promise<CpuBackend>]> = [
  ['CPU', async () => new CpuBackend()],
  ['WASM', () => WasmBackend.create()],
];

describe.each(BACKENDS)('fused inference kernels on the %s backend', (_name, makeBackend) => {
  it('qkvRope equals splitting q, k, v, rope on q and k, and copyRows of k and v into the cache rows (bit for bit)', async () => {
    const be = await makeBackend();
    const [B, T, H, Hkv, Dh, Sdst, dstRow0] = [2, 3, 8, 2, 8, 7, 2];
    const W = (H + 2 * Hkv) * Dh;
    const qkvHost = randn(B * T * W);
    // within the cached cos/sin table, and one position beyond it (the WASM backend then runs the TypeScript twin)
    for (const [posList, invFreqHost] of [
      [[0, 5, 900, 3, 4, 17], null],
      [[0, 5, 900, 3, 4, 17], Float32Array.from([1, 0.2, 0.01, 0.003])],
      [[0, 5, 900, 3, 4, 40000], null],
    ] as const) {
      const posHost = Int32Array.from(posList);
      const qkv = be.alloc([B * T, W]);
      be.upload(qkv, qkvHost);
      const pos = be.alloc([B * T], 'i32');
      be.upload(pos, posHost);
      const invFreq = invFreqHost ? be.alloc([Dh / 2]) : undefined;
      if (invFreq) be.upload(invFreq, invFreqHost!);
      const cacheInit = randn(B * Sdst * Hkv * Dh);
      const fresh = (data?: Float32Array) => {
        const t = be.alloc([B, Sdst, Hkv, Dh]);
        if (data) be.upload(t, data);
        return t;
      };
      // fused
      const q = be.alloc([B, T, H, Dh]);
      const k = fresh(cacheInit),
        v = fresh(cacheInit);
      be.run('qkvRope', {
        t: { qkv, pos, ...(invFreq ? { invFreq } : {}), q, k, v },
        p: { B, T, H, Hkv, Dh, Sdst, dstRow0, theta: 1e6 },
      });
      // unfused
      const q2 = be.alloc([B, T, H, Dh]),
        k2 = be.alloc([B, T, Hkv, Dh]),
        v2 = be.alloc([B, T, Hkv, Dh]);
      const [qh, kh, vh] = [
        new Float32Array(B * T * H * Dh),
        new Float32Array(B * T * Hkv * Dh),
        new Float32Array(B * T * Hkv * Dh),
      ];
      for (let r = 0; r < B * T; r++) {
        qh.set(qkvHost.subarray(r * W, r * W + H * Dh), r * H * Dh);
        kh.set(qkvHost.subarray(r * W + H * Dh, r * W + (H + Hkv) * Dh), r * Hkv * Dh);
        vh.set(qkvHost.subarray(r * W + (H + Hkv) * Dh, (r + 1) * W), r * Hkv * Dh);
      }
      be.upload(q2, qh);
      be.upload(k2, kh);
      be.upload(v2, vh);
      const ropeT = (x: typeof q2, nHeads: number) =>
        be.run('rope', {
          t: { x, pos, ...(invFreq ? { invFreq } : {}) },
          p: { R: B * T, nHeads, Dh, theta: 1e6, inverse: 0 },
        });
      ropeT(q2, H);
      ropeT(k2, Hkv);
      const kc = fresh(cacheInit),
        vc = fresh(cacheInit);
      be.run('copyRows', { t: { src: k2, dst: kc }, p: { B, T, W: Hkv * Dh, Sdst, dstRow0 } });
      be.run('copyRows', { t: { src: v2, dst: vc }, p: { B, T, W: Hkv * Dh, Sdst, dstRow0 } });
      expect(Array.from(be.f32(q))).toEqual(Array.from(be.f32(q2)));
      expect(Array.from(be.f32(k))).toEqual(Array.from(be.f32(kc)));
      expect(Array.from(be.f32(v))).toEqual(Array.from(be.f32(vc)));
      // rows outside [dstRow0, dstRow0 + T) are untouched
      expect(be.f32(k)[0]).toBe(cacheInit[0]);
    }
    expect(() =>
      be.run('qkvRope', {
        t: {
          qkv: be.alloc([1, W]),
          pos: be.alloc([1], 'i32'),
          q: be.alloc([1, H * Dh]),
          k: be.alloc([1, 2, Hkv, Dh]),
          v: be.alloc([1, 2, Hkv, Dh]),
        },
        p: { B: 1, T: 1, H, Hkv, Dh, Sdst: 2, dstRow0: 2, theta: 1e4 },
      }),
    ).toThrow(/qkvRope: rows \[2, 3\) do not fit a destination of 2 rows/);
  });

  it('swigluPacked equals swiglu on the two halves of each row (bit for bit)', async () => {
    const be = await makeBackend();
    const [R, F] = [3, 12]; // F a multiple of 4: the WASM kernels' SIMD body covers whole rows
    const guHost = randn(R * 2 * F).map((x) => 4 * x);
    const gu = be.alloc([R, 2 * F]);
    be.upload(gu, guHost);
    const h = be.alloc([R, F]);
    be.run('swigluPacked', { t: { gu, h }, p: { R, F } });
    const g = be.alloc([R, F]),
      u = be.alloc([R, F]),
      h2 = be.alloc([R, F]);
    be.upload(
      g,
      Float32Array.from({ length: R * F }, (_, i) => guHost[Math.floor(i / F) * 2 * F + (i % F)]),
    );
    be.upload(
      u,
      Float32Array.from({ length: R * F }, (_, i) => guHost[Math.floor(i / F) * 2 * F + F + (i % F)]),
    );
    be.run('swiglu', { t: { g, u, h: h2 }, p: { R, F } });
    expect(Array.from(be.f32(h))).toEqual(Array.from(be.f32(h2)));
  });
});

/** Qwen2-like (attention biases, GQA) at a tiny size. */
function qwenLike(layers: number): ModelConfig {
  return tinyConfig({
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
}

function policy(be: Backend, cfg: ModelConfig, merge: boolean, baseDtype: 'f32' | 'f16' = 'f32'): EnginePolicy {
  return new EnginePolicy({
    baseDtype,
    backend: be,
    config: cfg,
    weights: randomWeights(cfg, 4),
    decoder: { decode: (ids) => ids.join(' ') },
    training: { mode: 'lora', adapters: ['a'], rank: 4, alpha: 8, targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] },
    optimizer: constantAdamW(5e-2),
    seed: 3,
    mergeLoraForInference: merge,
  });
}

const greedy: SamplingParams = { temperature: 0, topP: 1, topK: 0, seed: 0 };

describe('decode with the merged LoRA on WebGPU', () => {
  it('records 9 dispatches per layer and decode step (+ embedding, final norm, LM head, sampler); unmerged: 31 per layer', async () => {
    const dawn = await getTestDevice();
    const counted = countGpuCalls(dawn.device);
    const gpu = testBackend(dawn);
    const perStep = async (layers: number, merge: boolean) => {
      const p = policy(gpu, qwenLike(layers), merge);
      const snaps: GpuCounts[] = [];
      await p.generate(
        [{ prompt: [3, 4, 5], adapter: 'a', maxNewTokens: 4, stopStrings: [], stopTokenIds: [] }],
        greedy,
        () => snaps.push(counted.snapshot()),
      );
      p.dispose();
      return snaps.slice(1).map((s, i) => diffCounts(snaps[i], s).dispatches);
    };
    for (const layers of [1, 3]) {
      for (const d of await perStep(layers, true)) expect(d, `merged, ${layers} layers`).toBe(9 * layers + 4);
      for (const d of await perStep(layers, false)) expect(d, `unmerged, ${layers} layers`).toBe(31 * layers + 4);
    }
    gpu.destroy();
  });

  it('decodes the same greedy tokens with the decode kernels forced on (matrix-vector, few-rows matmul, row-per-workgroup rmsnorm) as with the general kernels', async () => {
    const dawn = await getTestDevice();
    const cfg = qwenLike(2);
    const runs: Generation[] = [];
    for (const decodeKernels of [false, true]) {
      const gpu = testBackend(dawn, { fewRowsMatmul: decodeKernels });
      const before = gpu.dispatchesByProgram();
      const p = policy(gpu, cfg, true);
      const [g] = await p.generate(
        [{ prompt: [2, 9, 4, 11], adapter: 'a', maxNewTokens: 3, stopStrings: [], stopTokenIds: [] }],
        greedy,
      );
      for (const kind of ['matvec:', 'rmsnormRows:']) {
        const used = Object.entries(gpu.dispatchesByProgram()).filter(
          ([k, n]) => k.startsWith(kind) && n > (before[k] ?? 0),
        ).length;
        expect(used > 0, `${kind} used: ${decodeKernels}`).toBe(decodeKernels);
      }
      runs.push(g);
      p.dispose();
      gpu.destroy();
    }
    expect(runs[1].tokens).toEqual(runs[0].tokens);
    runs[1].logprobs.forEach((x, i) => expect(Math.abs(x - runs[0].logprobs[i])).toBeLessThan(1e-5));
  });

  it('merges over f16 base weights too, into an f16 copy (each sum W + s·B·A rounded once to halves): the same greedy tokens as the unmerged adapter, log-probs within 2e-3', async () => {
    const dawn = await getTestDevice();
    const gpu = testBackend(dawn, { f16Storage: 'always' });
    const cfg = qwenLike(2);
    const prompt = { prompt: [2, 9, 4], adapter: 'a', maxNewTokens: 4, stopStrings: [], stopTokenIds: [] };
    const runs: Generation[] = [];
    const grown: number[] = [];
    for (const merge of [true, false]) {
      const p = policy(gpu, cfg, merge, 'f16');
      p.zeroGrad('a');
      await p.accumulateGradients([
        { tokens: [5, 8, 13, 21], positions: [1, 2, 3], adapter: 'a', coef: new Float32Array(3).fill(-1) },
      ]);
      await p.optimizerStep('a');
      const live = gpu.ledger().liveBytes;
      runs.push((await p.generate([prompt], greedy))[0]);
      grown.push(gpu.ledger().liveBytes - live);
      p.dispose();
    }
    // the copy's matrices are halves (its q,k,v biases f32)
    expect(grown).toEqual([mergedBytesOf(cfg, ['q', 'k', 'v', 'o', 'gate', 'up', 'down'], 'f16'), 0]);
    expect(grown[0]).toBeLessThan(0.6 * mergedBytesOf(cfg, ['q', 'k', 'v', 'o', 'gate', 'up', 'down'], 'f32'));
    expect(runs[0].tokens).toEqual(runs[1].tokens);
    runs[0].logprobs.forEach((x, i) => expect(Math.abs(x - runs[1].logprobs[i])).toBeLessThan(2e-3));
    gpu.destroy();
  });

  it('on the WASM backend over f16 and bf16 base weights as well', async () => {
    const cfg = qwenLike(2);
    for (const dtype of ['f16', 'bf16'] as const) {
      const runs: Generation[] = [];
      for (const merge of [true, false]) {
        const be = await WasmBackend.create();
        const p = new EnginePolicy({
          backend: be,
          config: cfg,
          weights: randomWeights(cfg, 4),
          decoder: { decode: (ids) => ids.join(' ') },
          baseDtype: dtype,
          training: {
            mode: 'lora',
            adapters: ['a'],
            rank: 4,
            alpha: 8,
            targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'],
          },
          optimizer: constantAdamW(5e-2),
          seed: 3,
          mergeLoraForInference: merge,
        });
        runs.push(
          (
            await p.generate(
              [{ prompt: [2, 9, 4], adapter: 'a', maxNewTokens: 4, stopStrings: [], stopTokenIds: [] }],
              greedy,
            )
          )[0],
        );
        be.destroy();
      }
      expect(runs[0].tokens, dtype).toEqual(runs[1].tokens);
    }
  });

  it('follows the adapter after optimiser steps (re-merged on the device): the same greedy tokens as the unmerged adapter', async () => {
    const dawn = await getTestDevice();
    const gpu = testBackend(dawn);
    const cfg = qwenLike(2);
    const merged = policy(gpu, cfg, true);
    const unmerged = policy(gpu, cfg, false);
    const prompt = { prompt: [2, 9, 4], adapter: 'a', maxNewTokens: 6, stopStrings: [], stopTokenIds: [] };
    const tokens = [5, 8, 13, 21, 34, 55, 89];
    const before = (await merged.generate([prompt], greedy))[0];
    for (const p of [merged, unmerged]) {
      for (let step = 0; step < 3; step++) {
        p.zeroGrad('a');
        await p.accumulateGradients([
          { tokens, positions: [1, 2, 3, 4, 5, 6], adapter: 'a', coef: new Float32Array(6).fill(-1 / 6) },
        ]);
        await p.optimizerStep('a');
      }
    }
    const [a] = await merged.generate([prompt], greedy);
    const [b] = await unmerged.generate([prompt], greedy);
    expect(a.tokens).toEqual(b.tokens);
    a.logprobs.forEach((x, i) => expect(Math.abs(x - b.logprobs[i])).toBeLessThan(1e-4));
    // training moved the model (the merged copy did not stay at the initial adapter)
    expect(a.tokens).not.toEqual(before.tokens);
    merged.dispose();
    unmerged.dispose();
    gpu.destroy();
  });
});
