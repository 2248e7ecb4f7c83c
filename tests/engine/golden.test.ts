// The decoder against float64 PyTorch golden fixtures (scripts/golden/make_golden.py). Runs EVERY folder under
// tests/fixtures/golden/ (at least GOLDEN_FIXTURES_MIN of them) on the CPU, WebAssembly SIMD and WebGPU backends
// (WebGPU with the kernels a hardware adapter gets by default, on every adapter, and the f32 base; the forward and
// KV-cache decoding also on a device with each combination of shader-f16, subgroups and timestamp-query it has),
// always all three: a missing WASM build or Dawn adapter fails the file, naming what to build or install. Per fixture: logits, token log-probs and entropies,
// the loss Σ mask·A·logp, every parameter gradient, LoRA gradients by the chain rule against the golden
// full-weight gradients, KV-cache decoding vs the golden log-probs, the fused inference path (a merged copy of a
// LoRA whose B·A is exactly 0: forward and KV-cache decoding, same tolerances), and (CPU) finite differences.
//
// Tolerances (f32 engine vs f64 oracle; OUT and GRAD are half of tests/helpers/tolerances.ts's VS_GOLDEN.f32), per tensor
// and relative to the golden tensor's max |value|:
//   logits, log-probs, entropies:  max|Δ| <= 2e-5 · max|golden| + 2e-5
//   loss:                          |Δ|     <= 2e-5 · Σ|mask·A·logp| + 1e-6
//   gradients (full and LoRA):     max|Δ| <= 2e-4 · max|golden| + 1e-7
// WASM and WebGPU multiply each bound by 2 (FMA / different summation order). WebGPU on SwiftShader (Dawn, no GPU)
// measured worst errors below 4.7e-7 (logits, log-probs, entropy) and 4.3e-6 (gradients) of the tensor's max once
// the RoPE kernel reduced angles exactly (SwiftShader's sin/cos are off by ~2e-4), against 1.8e-7 / 1.1e-6 on the
// CPU backend (each test logs its `worst` line). Real bugs show up as errors of order 1.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../helpers/wasm-build.ts';
import type { Backend } from '../../src/engine/backend.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { loadHfCheckpoint, type HfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { memoryFileSource } from '../../src/engine/io/memory-source.ts';
import { parseSafetensors, type SafetensorsTensor } from '../../src/engine/io/safetensors.ts';
import { packSequences } from '../../src/engine/model/batch.ts';
import { computeLogits, runSequences, type ActiveWeights } from '../../src/engine/model/decoder.ts';
import { allocMerged } from '../../src/engine/model/lora-merge.ts';
import { decodeBatch } from '../../src/engine/model/generate.ts';
import { LORA_MODULE, loraKey, namedLoraParameters, zerosLikeAdapter } from '../../src/engine/model/lora.ts';
import { namedParameters, uploadParams, zerosLikeParams } from '../../src/engine/model/params.ts';
import {
  gpuEngineFeatures,
  baseBackend,
  featureBackend,
  featureSubsets,
  getTestDevice,
  testBackend,
} from '../helpers/webgpu.ts';
import { loraGradsFromFull } from '../../src/engine/gpu-check/lora-chain.ts';
import { cancellingAdapter } from '../helpers/cancelling-adapter.ts';
import { centralDifference } from '../helpers/finite-difference.ts';
import { VS_GOLDEN } from '../helpers/tolerances.ts';
import { GOLDEN_FIXTURES_MIN, GOLDEN_ROOT as root, goldenFixtures } from '../helpers/golden-fixtures.ts';

const fixtures = goldenFixtures('golden.safetensors');
/** the CPU backend's bounds; WASM and WebGPU get twice as much (`slack`), VS_GOLDEN.f32 */
const [OUT, GRAD] = [VS_GOLDEN.f32.outputs / 2, VS_GOLDEN.f32.gradients / 2];

type BackendFactory = () => Promise<Backend>;

const dawn = await getTestDevice();
/** name, factory, tolerance multiplier */
const backends: Array<[string, BackendFactory, number]> = [
  ['cpu', async () => new CpuBackend(), 1],
  ['wasm', () => WasmBackend.create(), 2],
  // the kernels this adapter runs by default, as a hardware adapter would (tests/helpers/webgpu.ts): the tiled
  // matmul (M, N >= 16), the tiled attention backward, flash-decoding and the decode kernels (KV-cache tests)
  ['webgpu', async () => testBackend(dawn), 2],
  // the f32 base: the plain kernels, without workgroup memory
  ['webgpu (f32 base)', async () => baseBackend(dawn), 2],
];

it(`finds at least ${GOLDEN_FIXTURES_MIN} golden fixtures`, () => {
  expect(fixtures.length).toBeGreaterThanOrEqual(GOLDEN_FIXTURES_MIN);
});

interface Fixture {
  ckpt: HfCheckpoint;
  golden: Map<string, SafetensorsTensor>;
  B: number;
  T: number;
  ids: number[][];
  /** [B][T-1] mask·advantage */
  coef: number[][];
}

async function loadFixture(name: string): Promise<Fixture> {
  const dir = join(root, name);
  const files: Record<string, Uint8Array> = {};
  for (const f of ['config.json', 'model.safetensors']) files[f] = new Uint8Array(readFileSync(join(dir, f)));
  const ckpt = await loadHfCheckpoint(memoryFileSource(dir, files));
  const golden = parseSafetensors(
    new Uint8Array(readFileSync(join(dir, 'golden.safetensors'))),
    `${name}/golden.safetensors`,
  ).tensors;
  const idsT = golden.get('input_ids')!;
  const [B, T] = idsT.shape;
  const flat = Array.from(idsT.data as ArrayLike<number>);
  const ids = Array.from({ length: B }, (_, b) => flat.slice(b * T, (b + 1) * T));
  const mask = f64(golden, 'loss_mask');
  const adv = f64(golden, 'advantages');
  const coef = Array.from({ length: B }, (_b, b) =>
    Array.from({ length: T - 1 }, (_t, t) => mask[b * (T - 1) + t] * adv[b]),
  );
  return { ckpt, golden, B, T, ids, coef };
}

function f64(golden: Map<string, SafetensorsTensor>, key: string): Float64Array {
  const t = golden.get(key);
  if (!t) throw new Error(`golden.safetensors: missing "${key}"`);
  return Float64Array.from(t.data as ArrayLike<number>);
}

function maxAbs(a: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]));
  return m;
}

/** max|a - b| / max|b| and the check against  rel·max|b| + abs */
function compare(label: string, got: ArrayLike<number>, want: ArrayLike<number>, rel: number, abs: number): number {
  expect(got.length, `${label}: length`).toBe(want.length);
  let d = 0;
  for (let i = 0; i < want.length; i++) d = Math.max(d, Math.abs(got[i] - want[i]));
  const scale = maxAbs(want);
  expect(d, `${label}: max|Δ| ${d.toExponential(2)} vs max|golden| ${scale.toExponential(2)}`).toBeLessThanOrEqual(
    rel * scale + abs,
  );
  return scale > 0 ? d / scale : d;
}

/** All positions 1..T-1 of every sequence, in order: row q = b·(T-1) + t - 1. */
function allPositions(fx: Fixture) {
  return fx.ids.map((tokens) => ({ tokens, positions: Array.from({ length: fx.T - 1 }, (_, i) => i + 1) }));
}

/** KV-cache decoding of the fixture: sequence b keeps a prompt of 2 + b tokens (left padding differs per
 *  sequence), then is forced through the rest of its golden tokens one decode step at a time; its log-probs and
 *  the golden ones at the same positions. */
async function decodeGolden(be: Backend, fx: Fixture, w: ActiveWeights): Promise<{ got: number[]; want: number[] }> {
  const cfg = fx.ckpt.config;
  const prompts = fx.ids.map((ids, b) => ids.slice(0, Math.min(2 + b, fx.T - 1)));
  const got: number[][] = fx.ids.map(() => []);
  await decodeBatch(
    be,
    cfg,
    w,
    prompts,
    (b, logits, step) => {
      const t = prompts[b].length + step; // token being predicted
      if (t >= fx.T) return null;
      let max = -Infinity;
      for (const x of logits) max = Math.max(max, x);
      let sum = 0;
      for (const x of logits) sum += Math.exp(x - max);
      got[b].push(logits[fx.ids[b][t]] - max - Math.log(sum));
      return fx.ids[b][t];
    },
    { maxNewTokens: fx.T },
  );
  const golden = f64(fx.golden, 'token_logprobs');
  const want = fx.ids.flatMap((_, b) =>
    Array.from(golden.subarray(b * (fx.T - 1) + prompts[b].length - 1, (b + 1) * (fx.T - 1))),
  );
  return { got: got.flat(), want };
}

if (fixtures.length === 0) {
  it.skip('no golden fixtures under tests/fixtures/golden (run /usr/bin/python3 scripts/golden/make_golden.py)', () => {});
}

describe.each(fixtures)('golden fixture %s', (name) => {
  describe.each(backends)('on %s', (backendName, makeBackend, slack) => {
    it('logits, token log-probs, entropies and the loss', async () => {
      const fx = await loadFixture(name);
      const be = await makeBackend();
      const cfg = fx.ckpt.config;
      const w = { params: uploadParams(be, cfg, fx.ckpt.weights), lora: null };
      const batch = packSequences(allPositions(fx), cfg.vocabSize);
      const logits = await computeLogits(be, cfg, w, batch);
      const r = await runSequences(be, cfg, w, batch, null);
      const worst = [
        compare('logits', logits, f64(fx.golden, 'logits'), OUT * slack, OUT * slack),
        compare('token_logprobs', r.logprobs, f64(fx.golden, 'token_logprobs'), OUT * slack, OUT * slack),
      ];
      if (fx.golden.has('token_entropy'))
        worst.push(compare('token_entropy', r.entropy, f64(fx.golden, 'token_entropy'), OUT * slack, OUT * slack));
      let loss = 0;
      let magnitude = 0;
      fx.coef.flat().forEach((c, q) => {
        loss += c * r.logprobs[q];
        magnitude += Math.abs(c * r.logprobs[q]);
      });
      const want = f64(fx.golden, 'loss')[0];
      expect(Math.abs(loss - want)).toBeLessThanOrEqual(OUT * slack * magnitude + 1e-6);
      console.info(
        `${name}/${backendName}: worst relative error logits/logp/entropy ${worst.map((x) => x.toExponential(1)).join(' / ')}, loss Δ ${Math.abs(loss - want).toExponential(1)}`,
      );
      be.destroy();
    });

    it('every parameter gradient of Σ mask·A·logp', async () => {
      const fx = await loadFixture(name);
      const be = await makeBackend();
      const cfg = fx.ckpt.config;
      const params = uploadParams(be, cfg, fx.ckpt.weights);
      const grads = zerosLikeParams(be, cfg, 'grad');
      const batch = packSequences(allPositions(fx), cfg.vocabSize);
      await runSequences(be, cfg, { params, lora: null }, batch, {
        coef: Float32Array.from(fx.coef.flat()),
        entropyCoef: null,
        sinks: { full: grads, lora: null },
      });
      const named = namedParameters(grads);
      const goldenGrads = [...fx.golden.keys()].filter((k) => k.startsWith('grad.'));
      expect(named.map(([n]) => `grad.${n}`).toSorted()).toEqual(goldenGrads.toSorted());
      let worst = 0;
      for (const [pname, t] of named) {
        const got = await be.download(t);
        worst = Math.max(worst, compare(`grad.${pname}`, got, f64(fx.golden, `grad.${pname}`), GRAD * slack, 1e-7));
      }
      console.info(`${name}/${backendName}: worst gradient error ${worst.toExponential(1)} of the tensor's max`);
      be.destroy();
    });

    it('LoRA gradients by the chain rule against the golden full-weight gradients', async () => {
      // rank 2 with A's two rows equal and B's two columns opposite: B·A = 0 exactly, so the adapted model IS the
      // golden model, yet dB = s·dW·Aᵀ and dA = s·Bᵀ·dW are both non-zero and checkable against golden dW.
      const fx = await loadFixture(name);
      const be = await makeBackend();
      const cfg = fx.ckpt.config;
      const params = uploadParams(be, cfg, fx.ckpt.weights);
      const { adapter, host } = cancellingAdapter(be, cfg);
      const grads = zerosLikeAdapter(be, cfg, adapter, 'glora');
      const batch = packSequences(allPositions(fx), cfg.vocabSize);
      const r = await runSequences(be, cfg, { params, lora: adapter }, batch, {
        coef: Float32Array.from(fx.coef.flat()),
        entropyCoef: null,
        sinks: { full: null, lora: grads },
      });
      compare('token_logprobs with B·A = 0', r.logprobs, f64(fx.golden, 'token_logprobs'), OUT * slack, OUT * slack);
      const gradByKey = new Map(namedLoraParameters(grads));
      const s = adapter.scale;
      let worst = 0;
      for (let l = 0; l < cfg.numLayers; l++) {
        for (const target of adapter.targets) {
          const key = loraKey(l, target);
          const A = host.get(`${key}.lora_A.weight`)!;
          const B = host.get(`${key}.lora_B.weight`)!;
          const dW = f64(fx.golden, `grad.model.layers.${l}.${LORA_MODULE[target]}.weight`);
          const { dA, dB } = loraGradsFromFull(dW, A, B, s, 2);
          worst = Math.max(
            worst,
            compare(
              `${key}.lora_A grad`,
              await be.download(gradByKey.get(`${key}.lora_A.weight`)!),
              dA,
              GRAD * slack,
              1e-7,
            ),
          );
          worst = Math.max(
            worst,
            compare(
              `${key}.lora_B grad`,
              await be.download(gradByKey.get(`${key}.lora_B.weight`)!),
              dB,
              GRAD * slack,
              1e-7,
            ),
          );
        }
      }
      console.info(`${name}/${backendName}: worst LoRA gradient error ${worst.toExponential(1)} of the tensor's max`);
      be.destroy();
    });

    it('the fused inference copy (a LoRA with B·A = 0 merged: [q;k;v], [gate;up], qkvRope, swigluPacked, residual epilogues) gives the golden logits and log-probs', async () => {
      const fx = await loadFixture(name);
      const be = await makeBackend();
      const cfg = fx.ckpt.config;
      const params = uploadParams(be, cfg, fx.ckpt.weights);
      const merged = allocMerged(be, cfg, params, cancellingAdapter(be, cfg).adapter);
      const w = { params: merged.params, lora: null, fused: merged.fused };
      const batch = packSequences(allPositions(fx), cfg.vocabSize);
      compare(
        'fused logits',
        await computeLogits(be, cfg, w, batch),
        f64(fx.golden, 'logits'),
        OUT * slack,
        OUT * slack,
      );
      const r = await runSequences(be, cfg, w, batch, null);
      compare('fused token_logprobs', r.logprobs, f64(fx.golden, 'token_logprobs'), OUT * slack, OUT * slack);
      be.destroy();
    });

    it.each([false, true])(
      'KV-cache decoding reproduces the golden log-probs of a full forward (fused inference copy: %s)',
      async (fused) => {
        const fx = await loadFixture(name);
        const be = await makeBackend();
        const cfg = fx.ckpt.config;
        const params = uploadParams(be, cfg, fx.ckpt.weights);
        let w: ActiveWeights = { params, lora: null };
        if (fused) {
          const merged = allocMerged(be, cfg, params, cancellingAdapter(be, cfg).adapter);
          w = { params: merged.params, lora: null, fused: merged.fused };
        }
        const { got, want } = await decodeGolden(be, fx, w);
        compare('decode log-probs', got, want, OUT * slack, OUT * slack);
        be.destroy();
      },
    );
  });

  it('finite differences of the f32 CPU forward agree with the golden gradients', async () => {
    const fx = await loadFixture(name);
    const be = new CpuBackend();
    const cfg = fx.ckpt.config;
    const params = uploadParams(be, cfg, fx.ckpt.weights);
    const batch = packSequences(allPositions(fx), cfg.vocabSize);
    const coef = fx.coef.flat();
    const loss = async () => {
      const r = await runSequences(be, cfg, { params, lora: null }, batch, null);
      return coef.reduce((s, c, q) => s + c * r.logprobs[q], 0);
    };
    const probes = [
      'model.layers.0.self_attn.q_proj.weight',
      'model.layers.0.mlp.down_proj.weight',
      'model.norm.weight',
      'model.embed_tokens.weight',
    ];
    const h = 1e-2;
    for (const [pname, t] of namedParameters(params)) {
      if (!probes.includes(pname)) continue;
      const want = f64(fx.golden, `grad.${pname}`);
      const i = want.reduce((best, g, j) => (Math.abs(g) > Math.abs(want[best]) ? j : best), 0);
      const fd = await centralDifference(be.f32(t), i, h, loss);
      expect(Math.abs(fd - want[i]), `${pname}[${i}]: fd ${fd} vs golden ${want[i]}`).toBeLessThan(
        2e-2 * Math.abs(want[i]) + 1e-4,
      );
    }
  });
});

// The feature matrix: the kernels of a hardware adapter on a device with each combination of the engine's optional
// features the adapter has (shader-f16: the weights stored as f16, the storage such a device gets; subgroups:
// subgroupAdd reductions in the decode kernels; timestamp-query: every dispatch timed in its own pass), through a
// full forward and KV-cache decoding, within the tolerance of the storage used. One fixture (a Qwen2 layout with
// GQA) is enough: what a feature changes is how kernels are compiled and reduce, and each new device compiles every
// kernel anew, which took 20-60 s per combination on SwiftShader with all four fixtures.
const MATRIX_FIXTURE = fixtures.find((f) => f.startsWith('qwen2')) ?? fixtures[0];
const featureSets = featureSubsets(await gpuEngineFeatures()).map((f): [string, GPUFeatureName[]] => [
  f.join(', ') || 'none',
  f,
]);

describe('golden fixture ' + MATRIX_FIXTURE + ', feature matrix', () => {
  const name = MATRIX_FIXTURE;
  it.each(featureSets)('features: %s: logits, token log-probs and KV-cache decoding', async (_label, features) => {
    const fx = await loadFixture(name);
    const be = featureBackend(await getTestDevice(features));
    const storage = be.supportsF16 ? 'f16' : 'f32';
    const tol = VS_GOLDEN[storage].outputs;
    const cfg = fx.ckpt.config;
    const w = { params: uploadParams(be, cfg, fx.ckpt.weights, 'base', storage), lora: null };
    const batch = packSequences(allPositions(fx), cfg.vocabSize);
    compare('logits', await computeLogits(be, cfg, w, batch), f64(fx.golden, 'logits'), tol, tol);
    const r = await runSequences(be, cfg, w, batch, null);
    compare('token_logprobs', r.logprobs, f64(fx.golden, 'token_logprobs'), tol, tol);
    const { got, want } = await decodeGolden(be, fx, w);
    compare('decode log-probs', got, want, tol, tol);
    if (features.includes('timestamp-query')) expect(Object.keys((await be.kernelTimes())!).length).toBeGreaterThan(3);
    be.destroy();
  });
});
