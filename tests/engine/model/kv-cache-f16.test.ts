// The KV cache stored in halves (model/kv-cache.ts): the kernels that write it (qkvRope, copyRows), read it
// (attention: the one-thread-per-query kernel, the split-key partials, flash-decoding direct and split) and compact it
// (embedding halves to halves) on WebGPU against the CPU twin (f32 arrays holding the rounded values), and decoding
// through it on every golden fixture. Tolerances:
//   WebGPU f16 cache vs the CPU twin's f16 cache: f32 tolerances (attention 1e-4 of max as for an f32 cache; decode
//     log-probs 4e-5 of max, the golden decode test's), since both compute in f32 on the same rounded values.
//   f16 cache vs a full forward (the float64 golden log-probs): KV_F16_TOL = 1e-3 of max |log-prob| (f32 cache:
//     4e-5); measured worst 2.3e-4 (qwen2-tied-gqa2), printed by each run.
//   the engine's default on shader-f16 (f16 base and f16 cache) vs the full forward: 2e-3, the f16 base's tolerance
//     (golden-f16.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend, HostArray } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WebGpuBackend } from '../../../src/engine/backends/webgpu.ts';
import { decodeF16, encodeF16 } from '../../../src/engine/io/half-float.ts';
import { loadHfCheckpoint, type HfCheckpoint } from '../../../src/engine/io/hf-model.ts';
import { memoryFileSource } from '../../../src/engine/io/memory-source.ts';
import { parseSafetensors } from '../../../src/engine/io/safetensors.ts';
import { decodeBatch } from '../../../src/engine/model/generate.ts';
import { resolveKvCacheDtype, type KvCacheDtype } from '../../../src/engine/model/kv-cache.ts';
import { allocMerged } from '../../../src/engine/model/lora-merge.ts';
import { createLoraAdapter } from '../../../src/engine/model/lora.ts';
import { uploadParams } from '../../../src/engine/model/params.ts';
import type { ActiveWeights } from '../../../src/engine/model/decoder.ts';
import { Rng } from '../../../src/util/rng.ts';
import { compareKernel, type TensorInput } from '../../helpers/kernel-compare.ts';
import { GOLDEN_ROOT, goldenFixtures } from '../../helpers/golden-fixtures.ts';
import { getTestDevice, testBackend } from '../../helpers/webgpu.ts';

const KV_F16_TOL = 1e-3;
const rng = new Rng(31);
const randn = (n: number) => Float32Array.from({ length: n }, () => rng.normal());
const numel = (shape: number[]) => shape.reduce((a, b) => a * b, 1);
const f32 = (shape: number[]): TensorInput => ({ shape, data: randn(numel(shape)) });
const nan = (shape: number[]): TensorInput => ({ shape, data: new Float32Array(numel(shape)).fill(NaN) });
const i32 = (values: number[]): TensorInput => ({
  shape: [values.length],
  data: Int32Array.from(values),
  dtype: 'i32',
});
/** random values stored as halves (the same rounded values on both backends) */
const f16 = (shape: number[]): TensorInput => ({ shape, data: encodeF16(randn(numel(shape))), dtype: 'f16' });

let gpu: WebGpuBackend;
const cpu = new CpuBackend();

beforeAll(async () => {
  const dev = await getTestDevice();
  gpu = testBackend(dev, { f16Storage: 'always' });
});
afterAll(() => gpu?.destroy());

function maxRel(got: ArrayLike<number>, want: ArrayLike<number>): number {
  let d = 0,
    m = 0;
  for (let i = 0; i < want.length; i++) {
    d = Math.max(d, Math.abs(got[i] - want[i]));
    m = Math.max(m, Math.abs(want[i]));
  }
  return Number.isNaN(d) ? Infinity : d / Math.max(m, 1e-30);
}

describe('f16 KV-cache kernels on WebGPU against the CPU twin', () => {
  it('attention reads an f16 cache on every path (one thread per query, split keys, flash-decoding direct and split)', async () => {
    const saved = { ...gpu.tuning };
    const paths: Array<[string, Partial<typeof gpu.tuning>]> = [
      ['per query', { flashDecode: false, attentionSplitKeys: 0 }],
      ['split keys', { flashDecode: false, attentionSplitKeys: 7 }],
      ['flash-decoding', { flashDecode: true, attentionSplitKeys: 0 }],
    ];
    try {
      for (const [label, tuning] of paths) {
        Object.assign(gpu.tuning, tuning);
        // decode over a long cache (flash-decoding splits it), a short prefill, and Dh = 6 (not a multiple of 4)
        for (const [B, T, S, past, H, Hkv, Dh, starts] of [
          [3, 1, 600, 590, 4, 2, 8, [0, 7, 300]],
          [2, 3, 20, 9, 4, 2, 8, [0, 11]],
          [2, 1, 40, 33, 2, 1, 6, [0, 5]],
        ] as const) {
          const r = await compareKernel(
            cpu,
            gpu,
            'attention',
            {
              q: f32([B, T, H, Dh]),
              k: f16([B, S, Hkv, Dh]),
              v: f16([B, S, Hkv, Dh]),
              keyStart: i32([...starts]),
              o: nan([B, T, H, Dh]),
              lse: nan([B, H, T]),
            },
            { B, T, S, past, H, Hkv, Dh },
            ['o', 'lse'],
          );
          for (const out of ['o', 'lse'])
            expect(r.err[out], `${label} B${B} T${T} S${S} Dh${Dh}: ${out}`).toBeLessThan(1e-4);
        }
      }
    } finally {
      Object.assign(gpu.tuning, saved);
    }
    // the f16 programs ran (not the f32 ones on a converted copy)
    const ran = Object.keys(gpu.dispatchesByProgram());
    for (const key of ['attentionKvF16:8', 'attentionPartialKvF16:8', 'attentionDecode:8:2:split:kvF16'])
      expect(
        ran.some((k) => k.startsWith(key)),
        key,
      ).toBe(true);
  });

  it('qkvRope writes k and v into an f16 cache rounded to halves (q as in f32), as the CPU twin does', async () => {
    const [B, T, H, Hkv, Dh, Sdst, dstRow0] = [2, 3, 4, 2, 8, 7, 2];
    const inputs = {
      qkv: f32([B * T, (H + 2 * Hkv) * Dh]),
      pos: i32([0, 1, 2, 40, 41, 4000]),
      q: nan([B, T, H, Dh]),
      k: { shape: [B, Sdst, Hkv, Dh], data: encodeF16(new Float32Array(B * Sdst * Hkv * Dh).fill(0.5)), dtype: 'f16' },
      v: { shape: [B, Sdst, Hkv, Dh], data: encodeF16(new Float32Array(B * Sdst * Hkv * Dh).fill(0.5)), dtype: 'f16' },
    } satisfies Record<string, TensorInput>;
    const r = await compareKernel(cpu, gpu, 'qkvRope', inputs, { B, T, H, Hkv, Dh, Sdst, dstRow0, theta: 10000 }, [
      'q',
      'k',
      'v',
    ]);
    expect(r.err.q).toBeLessThan(1e-5);
    // v is copied: the same half exactly; k is rotated in f32 on both, then rounded: at most one half-ulp apart
    expect(r.err.v).toBe(0);
    expect(r.err.k).toBeLessThan(1e-3);
    // the twin's values are halves, and rows outside [dstRow0, dstRow0 + T) are untouched
    const k = r.ref.k as Float32Array;
    expect(Array.from(decodeF16(encodeF16(k)))).toEqual(Array.from(k));
    const W = Hkv * Dh;
    for (const b of [0, 1]) for (const row of [0, 1, 5, 6]) expect(k[(b * Sdst + row) * W]).toBe(0.5);
  });

  it('embedding gathers f16 cache rows to an f16 cache bit for bit; zero clears an f16 cache', async () => {
    const table = f16([12, 10]);
    const r = await compareKernel(
      cpu,
      gpu,
      'embedding',
      { ids: i32([3, 0, 11, 3]), table, out: { shape: [4, 10], data: new Uint16Array(40), dtype: 'f16' } },
      { R: 4, D: 10 },
      ['out'],
    );
    const rows = decodeF16(table.data as Uint16Array);
    const want = [3, 0, 11, 3].flatMap((id) => Array.from(rows.subarray(id * 10, id * 10 + 10)));
    expect(Array.from(r.test.out as Float32Array)).toEqual(want);
    expect(Array.from(r.ref.out as Float32Array)).toEqual(want);
    const z = await compareKernel(cpu, gpu, 'zero', { x: f16([5, 3]) }, { n: 15 }, ['x']);
    expect(Array.from(z.test.x as HostArray).every((x) => x === 0)).toBe(true);
  });
});

describe('resolveKvCacheDtype', () => {
  it("'auto' is f16 for an f16 base on WebGPU with f16 storage, f32 otherwise; f16 is refused on WASM", () => {
    expect(resolveKvCacheDtype('auto', gpu, 'f16')).toBe('f16');
    expect(resolveKvCacheDtype('auto', gpu, 'f32')).toBe('f32');
    expect(resolveKvCacheDtype('f32', gpu, 'f16')).toBe('f32');
    expect(resolveKvCacheDtype('auto', cpu, 'f16')).toBe('f32');
    expect(resolveKvCacheDtype('f16', cpu, 'f32')).toBe('f16');
    expect(() => resolveKvCacheDtype('f16', { ...cpu, kind: 'wasm' } as Backend, 'f32')).toThrow(/WASM/);
  });
});

interface Fixture {
  ckpt: HfCheckpoint;
  ids: number[][];
  T: number;
  /** golden log-probs of a full float64 forward, [B][T-1] flat */
  logprobs: Float64Array;
}

async function loadFixture(name: string): Promise<Fixture> {
  const dir = join(GOLDEN_ROOT, name);
  const files: Record<string, Uint8Array> = {};
  for (const f of ['config.json', 'model.safetensors']) files[f] = new Uint8Array(readFileSync(join(dir, f)));
  const ckpt = await loadHfCheckpoint(memoryFileSource(dir, files));
  const golden = parseSafetensors(new Uint8Array(readFileSync(join(dir, 'golden.safetensors'))), name).tensors;
  const idsT = golden.get('input_ids')!;
  const [B, T] = idsT.shape;
  const flat = Array.from(idsT.data as ArrayLike<number>);
  const ids = Array.from({ length: B }, (_, b) => flat.slice(b * T, (b + 1) * T));
  const logprobs = Float64Array.from(golden.get('token_logprobs')!.data as ArrayLike<number>);
  return { ckpt, ids, T, logprobs };
}

/** Decodes each golden sequence from a prompt of 2 + b tokens, forced through its golden tokens one step at a time
 *  (the golden decode test's scheme), with the cache stored as `kv`; returns the log-probs of the forced tokens. */
async function forcedDecode(be: Backend, fx: Fixture, w: ActiveWeights, kv: KvCacheDtype): Promise<number[]> {
  const prompts = fx.ids.map((ids, b) => ids.slice(0, Math.min(2 + b, fx.T - 1)));
  const got: number[][] = fx.ids.map(() => []);
  await decodeBatch(
    be,
    fx.ckpt.config,
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
    { maxNewTokens: fx.T, kvDtype: kv },
  );
  return got.flat();
}

/** The golden log-probs of the positions forcedDecode scores. */
function goldenDecoded(fx: Fixture): number[] {
  return fx.ids.flatMap((_, b) => {
    const p = Math.min(2 + b, fx.T - 1);
    return Array.from(fx.logprobs.subarray(b * (fx.T - 1) + p - 1, (b + 1) * (fx.T - 1)));
  });
}

describe.each(goldenFixtures('golden.safetensors'))('golden fixture %s decoded through an f16 KV cache', (name) => {
  it('WebGPU (unfused and fused layers, flash-decoding on and off) equals the CPU twin to f32 tolerance and the full forward to the f16 tolerance', async () => {
    const fx = await loadFixture(name);
    const cfg = fx.ckpt.config;
    const want = goldenDecoded(fx);
    const cpuParams = uploadParams(cpu, cfg, fx.ckpt.weights);
    const twin = await forcedDecode(cpu, fx, { params: cpuParams, lora: null }, 'f16');
    const twinF32 = await forcedDecode(cpu, fx, { params: cpuParams, lora: null }, 'f32');
    // the rounding happened (the f16 cache is not an f32 one), and stays within the documented tolerance
    expect(maxRel(twin, twinF32)).toBeGreaterThan(0);
    const errTwin = maxRel(twin, want);
    expect(errTwin, 'CPU twin vs full forward').toBeLessThan(KV_F16_TOL);
    const params = uploadParams(gpu, cfg, fx.ckpt.weights);
    const zeroLora = createLoraAdapter(gpu, cfg, { name: 'z', rank: 2, alpha: 4, targets: ['q', 'v'], seed: 1 });
    const merged = allocMerged(gpu, cfg, params, zeroLora); // B = 0: the merged copy is the base
    const saved = gpu.tuning.flashDecode;
    let worst = 0;
    try {
      for (const flash of [false, true]) {
        gpu.tuning.flashDecode = flash;
        for (const w of [
          { params, lora: null },
          { params: merged.params, lora: null, fused: merged.fused },
        ] as ActiveWeights[]) {
          const got = await forcedDecode(gpu, fx, w, 'f16');
          const label = `flash ${flash}, fused ${w.fused !== undefined}`;
          expect(maxRel(got, twin), `${label}: WebGPU vs CPU twin`).toBeLessThan(4e-5);
          worst = Math.max(worst, maxRel(got, want));
          expect(maxRel(got, want), `${label}: vs full forward`).toBeLessThan(KV_F16_TOL);
        }
      }
    } finally {
      gpu.tuning.flashDecode = saved;
    }
    console.log(
      `${name}: f16 KV cache vs full forward, worst ${worst.toExponential(2)} (CPU twin ${errTwin.toExponential(2)})`,
    );
  });

  it("the engine's default on shader-f16 (f16 base and f16 cache, fused) stays within the f16 base's tolerance of the full forward", async () => {
    const fx = await loadFixture(name);
    const cfg = fx.ckpt.config;
    const params = uploadParams(gpu, cfg, fx.ckpt.weights, 'base', 'f16');
    const zeroLora = createLoraAdapter(gpu, cfg, { name: 'z', rank: 2, alpha: 4, targets: ['q', 'v'], seed: 1 });
    const merged = allocMerged(gpu, cfg, params, zeroLora);
    const got = await forcedDecode(gpu, fx, { params: merged.params, lora: null, fused: merged.fused }, 'f16');
    // golden-f16.test.ts's output tolerance for an f16 base
    expect(maxRel(got, goldenDecoded(fx))).toBeLessThan(2e-3);
  });
});
