// The f16 base (what EnginePolicy's baseDtype 'auto' stores on a WebGPU device with shader-f16) against the float64
// golden fixtures computed with the f32 weights: its own tolerance, since rounding every weight to a half moves
// the outputs far more than f32 arithmetic does. Every folder under tests/fixtures/golden, on WebGPU with a device
// requested without `shader-f16` and the backend's default options (the kernels unpack halves with core WGSL, so
// f16 storage needs no feature), again with the workgroup-memory kernels of hardware adapters forced on, and on the
// WASM backend (halves widened in its kernels). Tolerances (tests/helpers/tolerances.ts, VS_GOLDEN), relative to the
// golden tensor's max |value|:
//   logits, log-probs, entropies: 2e-3 (f32 storage: 4e-5)      LoRA gradients: 2e-2 (f32 storage: 4e-4)
// Measured worst on the four fixtures: outputs 1.1e-3 (WebGPU) / 1.0e-3 (WASM), LoRA gradients 4.6e-3 / 4.5e-3 (each
// run prints its `worst` line). And 'auto' itself: f16 on a WebGPU backend that stores halves, f32 on WASM, CPU
// and for full fine-tuning.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../helpers/wasm-build.ts';
import type { Backend } from '../../src/engine/backend.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { loadHfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { memoryFileSource } from '../../src/engine/io/memory-source.ts';
import { parseSafetensors } from '../../src/engine/io/safetensors.ts';
import { packSequences } from '../../src/engine/model/batch.ts';
import { computeLogits, runSequences } from '../../src/engine/model/decoder.ts';
import { LORA_MODULE, loraKey, namedLoraParameters, zerosLikeAdapter } from '../../src/engine/model/lora.ts';
import { uploadParams } from '../../src/engine/model/params.ts';
import { resolveBaseDtype } from '../../src/engine/policy/engine-policy.ts';
import { GOLDEN_ROOT as root, goldenFixtures } from '../helpers/golden-fixtures.ts';
import { gpuEngineFeatures, getTestDevice, testBackend } from '../helpers/webgpu.ts';
import { cancellingAdapter } from '../helpers/cancelling-adapter.ts';
import { VS_GOLDEN } from '../helpers/tolerances.ts';

const fixtures = goldenFixtures('golden.safetensors');
const { outputs: TOL_OUT, gradients: TOL_GRAD } = VS_GOLDEN.f16;

const backends: Array<[string, () => Promise<Backend>]> = [
  [
    'webgpu',
    async () => {
      const dawn = await getTestDevice((await gpuEngineFeatures()).filter((f) => f !== 'shader-f16'));
      expect(dawn.device.features.has('shader-f16')).toBe(false);
      const be = testBackend(dawn);
      expect(be.supportsF16).toBe(true);
      return be;
    },
  ],
  // the workgroup-memory kernels of hardware adapters (off on SwiftShader by default): tiled matmul (padded, vec4
  // loads of the halves), flash-attention forward, tiled attention backward, rmsnorm by workgroup rows
  [
    'webgpu (workgroup-memory kernels)',
    async () => {
      const dawn = await getTestDevice();
      return testBackend(dawn, {
        f16Storage: 'always',
        tiledMatmul: 2,
        tiledAttention: true,
        flashDecode: true,
        flashAttention: true,
        rowNorm: true,
      });
    },
  ],
  // the tile-2 matmul (the hardware default, which 'webgpu' runs, is 4)
  ['webgpu (tile-2 matmul)', async () => testBackend(await getTestDevice(), { f16Storage: 'always', tiledMatmul: 2 })],
  ['wasm', () => WasmBackend.create({ threads: 1 })],
];

/** max|got - want| / max|want|, checked against tol. */
function relErr(label: string, got: ArrayLike<number>, want: ArrayLike<number>, tol: number): number {
  expect(got.length, label).toBe(want.length);
  let d = 0,
    m = 0;
  for (let i = 0; i < want.length; i++) {
    d = Math.max(d, Math.abs(got[i] - want[i]));
    m = Math.max(m, Math.abs(want[i]));
  }
  const rel = d / Math.max(m, 1e-30);
  expect(rel, `${label}: max|Δ| ${d.toExponential(2)} vs max|golden| ${m.toExponential(2)}`).toBeLessThanOrEqual(tol);
  return rel;
}

describe.each(fixtures)('golden fixture %s with an f16 base', (name) => {
  it.each(backends)(
    '%s: logits, log-probs, entropies and LoRA gradients within the f16 tolerance',
    async (backendName, make) => {
      const dir = join(root, name);
      const files: Record<string, Uint8Array> = {};
      for (const f of ['config.json', 'model.safetensors']) files[f] = new Uint8Array(readFileSync(join(dir, f)));
      const ckpt = await loadHfCheckpoint(memoryFileSource(dir, files));
      const golden = parseSafetensors(
        new Uint8Array(readFileSync(join(dir, 'golden.safetensors'))),
        `${name}/golden.safetensors`,
      ).tensors;
      const f64 = (key: string) => Float64Array.from(golden.get(key)!.data as ArrayLike<number>);
      const [B, T] = golden.get('input_ids')!.shape;
      const flat = Array.from(golden.get('input_ids')!.data as ArrayLike<number>);
      const mask = f64('loss_mask');
      const adv = f64('advantages');
      const cfg = ckpt.config;
      const be = await make();
      const params = uploadParams(be, cfg, ckpt.weights, 'base', 'f16');
      expect(params.layers[0].q.dtype).toBe('f16');
      // a rank-2 LoRA with B·A = 0 exactly: the adapted model is the base
      const { adapter, host } = cancellingAdapter(be, cfg);
      const grads = zerosLikeAdapter(be, cfg, adapter, 'glora');
      const seqs = Array.from({ length: B }, (_, b) => ({
        tokens: flat.slice(b * T, (b + 1) * T),
        positions: Array.from({ length: T - 1 }, (_x, i) => i + 1),
      }));
      const batch = packSequences(seqs, cfg.vocabSize);
      const coef = Float32Array.from({ length: B * (T - 1) }, (_, q) => mask[q] * adv[Math.floor(q / (T - 1))]);
      const logits = await computeLogits(be, cfg, { params, lora: null }, batch);
      const r = await runSequences(be, cfg, { params, lora: adapter }, batch, {
        coef,
        entropyCoef: null,
        sinks: { full: null, lora: grads },
      });
      const worstOut = Math.max(
        relErr('logits', logits, f64('logits'), TOL_OUT),
        relErr('token_logprobs', r.logprobs, f64('token_logprobs'), TOL_OUT),
        ...(golden.has('token_entropy') ? [relErr('token_entropy', r.entropy, f64('token_entropy'), TOL_OUT)] : []),
      );
      const gradByKey = new Map(namedLoraParameters(grads));
      let worstGrad = 0;
      for (let l = 0; l < cfg.numLayers; l++) {
        for (const target of adapter.targets) {
          const key = loraKey(l, target);
          const A = host.get(`${key}.lora_A.weight`)!;
          const Bm = host.get(`${key}.lora_B.weight`)!;
          const dW = f64(`grad.model.layers.${l}.${LORA_MODULE[target]}.weight`);
          const nOut = Bm.length / 2,
            nIn = A.length / 2;
          const dA = new Float64Array(2 * nIn),
            dB = new Float64Array(nOut * 2);
          for (let o = 0; o < nOut; o++)
            for (let i = 0; i < nIn; i++) {
              const g = dW[o * nIn + i];
              for (let k = 0; k < 2; k++) {
                dB[o * 2 + k] += adapter.scale * g * A[k * nIn + i];
                dA[k * nIn + i] += adapter.scale * Bm[o * 2 + k] * g;
              }
            }
          worstGrad = Math.max(
            worstGrad,
            relErr(
              `${key}.lora_A grad`,
              (await be.download(gradByKey.get(`${key}.lora_A.weight`)!)) as Float32Array,
              dA,
              TOL_GRAD,
            ),
            relErr(
              `${key}.lora_B grad`,
              (await be.download(gradByKey.get(`${key}.lora_B.weight`)!)) as Float32Array,
              dB,
              TOL_GRAD,
            ),
          );
        }
      }
      console.info(
        `${name}/${backendName} f16 base: worst outputs ${worstOut.toExponential(1)}, LoRA gradients ${worstGrad.toExponential(1)} of max`,
      );
      be.destroy();
    },
  );
});

describe("baseDtype 'auto'", () => {
  it('f16 for LoRA on a WebGPU backend that prefers halves; f32 on WebGPU without, on WASM, on the CPU and for full fine-tuning', async () => {
    const dawn = await getTestDevice();
    // without shader-f16 the default stores halves when asked but picks f32 for 'auto'
    const byDefault = testBackend(dawn);
    expect(byDefault.supportsF16).toBe(true);
    expect(resolveBaseDtype('auto', byDefault, 'lora')).toBe(dawn.device.features.has('shader-f16') ? 'f16' : 'f32');
    byDefault.destroy();
    const halves = testBackend(dawn, { f16Storage: 'always' });
    const plain = testBackend(dawn, { f16Storage: 'never' });
    const wasm = await WasmBackend.create({ threads: 1 });
    expect(resolveBaseDtype('auto', halves, 'lora')).toBe('f16');
    expect(resolveBaseDtype('auto', halves, 'full')).toBe('f32');
    expect(resolveBaseDtype('f32', halves, 'lora')).toBe('f32');
    expect(resolveBaseDtype('auto', plain, 'lora')).toBe('f32');
    expect(resolveBaseDtype('auto', wasm, 'lora')).toBe('f32');
    expect(resolveBaseDtype('auto', new CpuBackend(), 'lora')).toBe('f32');
    for (const b of [halves, plain, wasm]) b.destroy();
  });
});
