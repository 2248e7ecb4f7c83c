// The engine on a WebGPU device with the spec's default limits (REMA_WEBGPU_LIMITS=default: no raised limit
// requested), with every kernel a hardware adapter gets by default switched on (tiled matmul, tiled attention
// backward, flash-decoding, the decode kernels): the device really has the default limits, and a gradient step and
// the forward match the float64 golden fixtures there (tolerances as golden.test.ts's WebGPU rows); a kernel whose
// workgroup memory would pass 16 KiB runs its plain variant.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WebGpuBackend } from '../../src/engine/backends/webgpu.ts';
import {
  engineDeviceDescriptor,
  parseLimitsProfile,
  SPEC_LIMITS,
} from '../../src/engine/backends/webgpu/device-request.ts';
import { packSequences } from '../../src/engine/model/batch.ts';
import { computeLogits, runSequences } from '../../src/engine/model/decoder.ts';
import { decodeBatch } from '../../src/engine/model/generate.ts';
import { namedParameters, uploadParams, zerosLikeParams } from '../../src/engine/model/params.ts';
import { goldenFixtures } from '../helpers/golden-fixtures.ts';
import { allGoldenPositions, expectClose, goldenF64, loadGoldenFixture } from '../helpers/golden-load.ts';
import { getDefaultLimitsDevice } from '../helpers/webgpu.ts';
import { compareKernel, type TensorInput } from '../helpers/kernel-compare.ts';
import { Rng } from '../../src/util/rng.ts';

const dawn = await getDefaultLimitsDevice();
const hardwareKernels = () =>
  WebGpuBackend.create(dawn.device, {
    adapterInfo: dawn.adapterInfo,
    fewRowsMatmul: true,
    tiledMatmul: 4,
    tiledAttention: true,
    flashDecode: true,
  });

describe('the default limits profile', () => {
  it('REMA_WEBGPU_LIMITS names it; other values are refused', () => {
    expect(parseLimitsProfile(undefined)).toBe('adapter');
    expect(parseLimitsProfile('adapter')).toBe('adapter');
    expect(parseLimitsProfile('default')).toBe('default');
    expect(() => parseLimitsProfile('max')).toThrow(/REMA_WEBGPU_LIMITS=max/);
  });

  it('requests no raised limit, and the device has the spec defaults', () => {
    const d = engineDeviceDescriptor({ limits: dawn.device.limits, features: dawn.device.features }, 'x', 'default');
    expect(d.requiredLimits).toEqual({});
    for (const [name, value] of Object.entries(SPEC_LIMITS))
      expect(dawn.device.limits[name as keyof typeof SPEC_LIMITS], name).toBe(value);
  });

  it('refuses a program with more storage buffers than the device allows, naming the limit', () => {
    const be = WebGpuBackend.create(dawn.device, { adapterInfo: dawn.adapterInfo });
    const n = SPEC_LIMITS.maxStorageBuffersPerShaderStage + 1;
    const bindings = Array.from({ length: n }, (_, i) => ({
      name: `b${i}`,
      elem: 'f32' as const,
      access: 'read' as const,
    }));
    const program = { key: 'tooMany', code: '', bindings, params: { n: 'u32' as const } };
    const runtime = (be as unknown as { runtime: { dispatch: (...a: unknown[]) => void } }).runtime;
    expect(() => runtime.dispatch(program, Array(n).fill(null), { n: 1 }, [1, 1, 1])).toThrow(
      /binds 9 storage buffers but this device allows 8 per stage \(maxStorageBuffersPerShaderStage\)/,
    );
    be.destroy();
  });
});

describe('kernels within the default limits', () => {
  it('flash-decoding over a group too large for 16 KiB of workgroup memory falls back to a plain kernel', async () => {
    // multi-query attention, 24 query heads on one KV head of 128: the group's queries alone take 12 KiB
    const [B, S, past, H, Hkv, Dh] = [2, 9, 8, 24, 1, 128];
    const rng = new Rng(4);
    const f32 = (shape: number[]): TensorInput => ({
      shape,
      data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
    });
    const gpu = hardwareKernels();
    const r = await compareKernel(
      new CpuBackend(),
      gpu,
      'attention',
      {
        q: f32([B, 1, H, Dh]),
        k: f32([B, S, Hkv, Dh]),
        v: f32([B, S, Hkv, Dh]),
        keyStart: { shape: [B], data: Int32Array.from([0, 3]), dtype: 'i32' },
        o: f32([B, 1, H, Dh]),
        lse: f32([B, H, 1]),
      },
      { B, T: 1, S, past, H, Hkv, Dh },
      ['o', 'lse'],
    );
    expect(r.err.o).toBeLessThan(1e-4);
    expect(r.err.lse).toBeLessThan(1e-4);
    expect(Object.keys(gpu.dispatchesByProgram()).some((k) => k.startsWith('attentionDecode'))).toBe(false);
    gpu.destroy();
  });
});

describe.each(goldenFixtures('golden.safetensors'))('golden fixture %s at the default limits', (name) => {
  it('every parameter gradient of Σ mask·A·logp (tiled attention backward)', async () => {
    const fx = await loadGoldenFixture(name);
    const be = hardwareKernels();
    const cfg = fx.ckpt.config;
    const params = uploadParams(be, cfg, fx.ckpt.weights);
    const grads = zerosLikeParams(be, cfg, 'grad');
    const batch = packSequences(allGoldenPositions(fx), cfg.vocabSize);
    const r = await runSequences(be, cfg, { params, lora: null }, batch, {
      coef: Float32Array.from(fx.coef.flat()),
      entropyCoef: null,
      sinks: { full: grads, lora: null },
    });
    expectClose('token_logprobs', r.logprobs, goldenF64(fx.golden, 'token_logprobs'), 4e-5, 4e-5);
    let worst = 0;
    for (const [pname, t] of namedParameters(grads))
      worst = Math.max(
        worst,
        expectClose(`grad.${pname}`, await be.download(t), goldenF64(fx.golden, `grad.${pname}`), 4e-4, 1e-7),
      );
    const ran = Object.keys(be.dispatchesByProgram());
    expect(ran.some((k) => k.startsWith('attentionDkDvTiled'))).toBe(true);
    console.info(`${name}: worst gradient error at the default limits ${worst.toExponential(1)} of the tensor's max`);
    be.destroy();
  });

  it('logits and KV-cache decoding', async () => {
    const fx = await loadGoldenFixture(name);
    const be = hardwareKernels();
    const cfg = fx.ckpt.config;
    const w = { params: uploadParams(be, cfg, fx.ckpt.weights), lora: null };
    const batch = packSequences(allGoldenPositions(fx), cfg.vocabSize);
    expectClose('logits', await computeLogits(be, cfg, w, batch), goldenF64(fx.golden, 'logits'), 4e-5, 4e-5);
    const prompts = fx.ids.map((ids, b) => ids.slice(0, Math.min(2 + b, fx.T - 1)));
    const got: number[][] = fx.ids.map(() => []);
    await decodeBatch(
      be,
      cfg,
      w,
      prompts,
      (b, logits, step) => {
        const t = prompts[b].length + step;
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
    const golden = goldenF64(fx.golden, 'token_logprobs');
    const want = fx.ids.flatMap((_, b) =>
      Array.from(golden.subarray(b * (fx.T - 1) + prompts[b].length - 1, (b + 1) * (fx.T - 1))),
    );
    expectClose('decode log-probs', got.flat(), want, 4e-5, 4e-5);
    be.destroy();
  });
});
