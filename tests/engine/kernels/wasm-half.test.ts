// Frozen weights stored as f16 / bf16 on the WASM backend (2 bytes an element, widened to f32 inside the
// kernels that read weights). Two tolerances, both relative to the reference's max |value|:
//   kernels and model vs the CPU reference run on the SAME rounded weights (decode(encode(w))): 1e-5 · max + 1e-6
//     (only the summation order differs, as for the f32 WASM kernels);
//   the golden fixtures' float64 PyTorch logits / log-probs with the unrounded weights: 4e-3 · max (f16, 11-bit
//     mantissa) and 3e-2 · max (bf16, 8-bit mantissa); measured worst 1.0e-3 and 6.2e-3 (logits, smollm fixture).
// Also: the ledger counts 2 bytes per stored half, values beyond f16's range are refused naming the tensor,
// a LoRA training step (gradients, AdamW) runs over an f16 base and matches the CPU on the rounded base.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../../src/engine/backends/wasm.ts';
import type { Backend, Tensor } from '../../../src/engine/backend.ts';
import { createEnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import { decodeBF16, decodeF16, encodeBF16, encodeF16 } from '../../../src/engine/io/half-float.ts';
import { loadHfCheckpoint } from '../../../src/engine/io/hf-model.ts';
import { memoryFileSource } from '../../../src/engine/io/memory-source.ts';
import { parseSafetensors } from '../../../src/engine/io/safetensors.ts';
import type { ModelConfig, ModelWeights } from '../../../src/engine/model/config.ts';
import { packSequences } from '../../../src/engine/model/batch.ts';
import { computeLogits, runSequences } from '../../../src/engine/model/decoder.ts';
import { uploadParams } from '../../../src/engine/model/params.ts';
import { Rng } from '../../../src/util/rng.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';
import { GOLDEN_ROOT as goldenRoot, goldenFixtures } from '../../helpers/golden-fixtures.ts';

type Half = 'f16' | 'bf16';
const HALVES: Half[] = ['f16', 'bf16'];
const round = (x: Float32Array, h: Half) => (h === 'f16' ? decodeF16(encodeF16(x)) : decodeBF16(encodeBF16(x)));

function randn(n: number, rng: Rng, scale = 1): Float32Array {
  return Float32Array.from({ length: n }, () => scale * rng.normal());
}

function maxAbs(a: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]));
  return m;
}

function close(label: string, got: ArrayLike<number>, want: ArrayLike<number>, rel: number, abs = 0): number {
  expect(got.length, label).toBe(want.length);
  let d = 0;
  for (let i = 0; i < want.length; i++) d = Math.max(d, Math.abs(got[i] - want[i]));
  const scale = maxAbs(want);
  expect(d, `${label}: max|Δ| ${d.toExponential(2)}, max|want| ${scale.toExponential(2)}`).toBeLessThanOrEqual(
    rel * scale + abs,
  );
  return scale > 0 ? d / scale : d;
}

async function readF32(be: Backend, t: Tensor): Promise<Float32Array> {
  return (await be.download(t)) as Float32Array;
}

function put(be: Backend, shape: number[], data: Float32Array, dtype: 'f32' | Half = 'f32'): Tensor {
  const t = be.alloc(shape, dtype, `t${shape.join('x')}`);
  be.upload(t, data);
  return t;
}

/** The weights as the WASM backend holds them: matrices rounded to the half format, vectors (norms, biases) f32. */
function roundedWeights(weights: ModelWeights, h: Half): ModelWeights {
  const out: ModelWeights = new Map();
  for (const [name, t] of weights)
    out.set(name, { shape: t.shape, data: t.shape.length >= 2 ? round(t.data, h) : t.data });
  return out;
}

describe('WASM backend: weights stored as f16 / bf16', () => {
  it('stores 2-D halves in 2 bytes (vectors stay f32), reads them back rounded, refuses what does not fit', async () => {
    const be = await WasmBackend.create();
    expect(be.supportsF16 && be.supportsBf16).toBe(true);
    const data = Float32Array.from([1, -2.5, 3.3, 1e-6, 65504, -0.1]);
    for (const h of HALVES) {
      const before = be.ledger().liveBytes;
      const m = put(be, [2, 3], data, h);
      expect(be.ledger().liveBytes - before).toBe(6 * 2);
      expect(Array.from(await readF32(be, m))).toEqual(Array.from(round(data, h)));
      expect(() => be.f32(m)).toThrow(/is stored as .*halves/);
      const v = put(be, [6], data, h);
      expect(be.ledger().liveBytes - before).toBe(6 * 2 + 6 * 4);
      expect(Array.from(await readF32(be, v))).toEqual(Array.from(data));
      be.free(m);
      be.free(v);
      expect(be.ledger().liveBytes).toBe(before);
    }
    const big = be.alloc([1, 2], 'f16', 'base:model.layers.0.mlp.down_proj.weight');
    expect(() => be.upload(big, Float32Array.from([1, 70000]))).toThrow(
      /'base:model\.layers\.0\.mlp\.down_proj\.weight': element 1 = 70000 does not fit f16/,
    );
    be.destroy();
  });

  it.each(HALVES)('%s: the kernels widen signs, subnormals, zeros and the largest values exactly', async (h) => {
    const be = await WasmBackend.create();
    const row = Float32Array.from([1e-6, -1e-6, -0, 0, 65504, -65504, 3e-8, -3e-8, 6.1e-5, -2.5, 1 / 3, -7e-5, 0.1]);
    const D = row.length;
    const table = put(be, [2, D], Float32Array.from([...row, ...row.map((x) => -x)]), h);
    const ids = be.alloc([2], 'i32');
    be.upload(ids, Int32Array.from([1, 0]));
    const out = be.alloc([2, D]);
    be.run('embedding', { t: { ids, table, out }, p: { R: 2, D } });
    const want = round(Float32Array.from([...row.map((x) => -x), ...row]), h);
    expect(Array.from(await readF32(be, out)).map((x) => (Object.is(x, -0) ? '-0' : x))).toEqual(
      Array.from(want).map((x) => (Object.is(x, -0) ? '-0' : x)),
    );
    // the same values as B of a few-rows matmul and of a packed one: x = one-hot rows pick them out
    for (const M of [2, 40]) {
      const a = new Float32Array(M * 2);
      for (let i = 0; i < M; i++) a[i * 2 + (i % 2)] = 1;
      const c = be.alloc([M, D]);
      be.run('matmul', {
        t: { a: put(be, [M, 2], a), b: table, c },
        p: { M, N: D, K: 2, transA: 0, transB: 0, alpha: 1, beta: 0 },
      });
      const got = await readF32(be, c);
      const rounded = round(Float32Array.from([...row, ...row.map((x) => -x)]), h);
      for (let i = 0; i < M; i++) for (let j = 0; j < D; j++) expect(got[i * D + j]).toBe(rounded[(i % 2) * D + j] + 0);
    }
    be.destroy();
  });

  describe.each(HALVES)('%s kernels vs the CPU reference on the rounded weights, odd shapes', (h) => {
    it('matmul with B as halves: every path (few rows in place, packed), both layouts, bias, alpha / beta', async () => {
      const wasm = await WasmBackend.create();
      const cpu = new CpuBackend();
      const rng = new Rng(7);
      let worst = 0;
      for (const [M, N, K] of [
        [1, 5, 7],
        [2, 13, 19],
        [3, 1, 64],
        [17, 37, 5],
        [33, 9, 33],
        [130, 21, 18],
        [40, 100, 1],
      ]) {
        for (const transB of [0, 1] as const) {
          const a = randn(M * K, rng),
            b = randn(N * K, rng, 0.5),
            c0 = randn(M * N, rng),
            bias = randn(N, rng);
          const bShape = transB ? [N, K] : [K, N];
          const p = { M, N, K, transA: 0 as const, transB, alpha: 0.7, beta: 0.5 };
          const wc = put(wasm, [M, N], c0);
          wasm.run('matmul', {
            t: { a: put(wasm, [M, K], a), b: put(wasm, bShape, b, h), c: wc, bias: put(wasm, [N], bias) },
            p,
          });
          const cc = put(cpu, [M, N], c0);
          cpu.run('matmul', {
            t: { a: put(cpu, [M, K], a), b: put(cpu, bShape, round(b, h)), c: cc, bias: put(cpu, [N], bias) },
            p,
          });
          worst = Math.max(
            worst,
            close(`${M}x${N}x${K} transB ${transB}`, await readF32(wasm, wc), await readF32(cpu, cc), 1e-5, 1e-6),
          );
        }
      }
      expect(wasm.runtime.stats.halfMatmuls).toBeGreaterThan(10);
      expect(wasm.runtime.stats.tsMatmuls).toBe(0);
      console.info(`${h} matmul: worst relative error ${worst.toExponential(1)}`);
      wasm.destroy();
    });

    it('lmHead, logprob + logprobBackward (vocabulary chunks) and embedding read half weights', async () => {
      const wasm = await WasmBackend.create();
      const cpu = new CpuBackend();
      const rng = new Rng(11);
      for (const [R, D, V] of [
        [3, 12, 37],
        [40, 20, 1500],
      ]) {
        const hid = randn(R * D, rng),
          w = randn(V * D, rng, 0.3);
        const target = Int32Array.from({ length: R }, (_, r) => (r * 7) % V);
        const coef = randn(R, rng),
          entCoef = randn(R, rng, 0.1);
        const run = async (be: Backend, weights: Tensor) => {
          const logits = be.alloc([R, V]);
          be.run('lmHead', { t: { h: put(be, [R, D], hid), w: weights, logits }, p: { R, D, V } });
          const o = { logp: be.alloc([R]), entropy: be.alloc([R]), lse: be.alloc([R]) };
          const tt = be.alloc([R], 'i32');
          be.upload(tt, target);
          const hh = put(be, [R, D], hid);
          be.run('logprob', { t: { h: hh, w: weights, target: tt, ...o }, p: { R, D, V } });
          const dh = be.alloc([R, D]);
          be.run('logprobBackward', {
            t: {
              h: hh,
              w: weights,
              target: tt,
              lse: o.lse,
              entropy: o.entropy,
              coef: put(be, [R], coef),
              entCoef: put(be, [R], entCoef),
              dh,
            },
            p: { R, D, V },
          });
          const ids = be.alloc([R], 'i32');
          be.upload(ids, target);
          const emb = be.alloc([R, D]);
          be.run('embedding', { t: { ids, table: weights, out: emb }, p: { R, D } });
          return Promise.all([logits, o.logp, o.entropy, dh, emb].map((x) => readF32(be, x)));
        };
        const got = await run(wasm, put(wasm, [V, D], w, h));
        const want = await run(cpu, put(cpu, [V, D], round(w, h)));
        ['logits', 'logp', 'entropy', 'dh', 'embedding'].forEach((name, i) =>
          close(`${name} R${R} D${D} V${V}`, got[i], want[i], 1e-5, 1e-6),
        );
      }
      wasm.destroy();
    });
  });

  const goldens = goldenFixtures('golden.safetensors');

  describe.each(goldens)('golden fixture %s', (name) => {
    it.each(HALVES)(
      'logits and log-probs with %s weights: vs the CPU on the rounded weights, vs float64 PyTorch',
      async (h) => {
        const dir = join(goldenRoot, name);
        const files: Record<string, Uint8Array> = {};
        for (const f of ['config.json', 'model.safetensors']) files[f] = new Uint8Array(readFileSync(join(dir, f)));
        const ckpt = await loadHfCheckpoint(memoryFileSource(dir, files));
        const golden = parseSafetensors(
          new Uint8Array(readFileSync(join(dir, 'golden.safetensors'))),
          'golden',
        ).tensors;
        const [B, T] = golden.get('input_ids')!.shape;
        const flat = Array.from(golden.get('input_ids')!.data as ArrayLike<number>);
        const seqs = Array.from({ length: B }, (_, b) => ({
          tokens: flat.slice(b * T, (b + 1) * T),
          positions: Array.from({ length: T - 1 }, (_x, i) => i + 1),
        }));
        const cfg = ckpt.config;
        const batch = packSequences(seqs, cfg.vocabSize);
        const wasm = await WasmBackend.create();
        const w = { params: uploadParams(wasm, cfg, ckpt.weights, 'base', h), lora: null };
        const logits = await computeLogits(wasm, cfg, w, batch);
        const r = await runSequences(wasm, cfg, w, batch, null);
        const cpu = new CpuBackend();
        const wc = { params: uploadParams(cpu, cfg, roundedWeights(ckpt.weights, h)), lora: null };
        close('logits vs CPU', logits, await computeLogits(cpu, cfg, wc, batch), 1e-5, 1e-6);
        close('logp vs CPU', r.logprobs, (await runSequences(cpu, cfg, wc, batch, null)).logprobs, 1e-5, 1e-6);
        const tol = h === 'f16' ? 4e-3 : 3e-2;
        const e1 = close(
          'logits vs golden',
          logits,
          Float64Array.from(golden.get('logits')!.data as ArrayLike<number>),
          tol,
        );
        const e2 = close(
          'logp vs golden',
          r.logprobs,
          Float64Array.from(golden.get('token_logprobs')!.data as ArrayLike<number>),
          tol,
        );
        console.info(
          `${name} ${h}: relative error vs float64 golden logits ${e1.toExponential(1)}, log-probs ${e2.toExponential(1)}`,
        );
        wasm.destroy();
      },
    );
  });

  it('a LoRA step over an f16 base: generation, gradients and AdamW match the CPU on the rounded base; the ledger counts 2 bytes a weight', async () => {
    const cfg: ModelConfig = tinyConfig({
      architecture: 'qwen2',
      attentionBias: true,
      tieWordEmbeddings: true,
      hiddenSize: 32,
      intermediateSize: 48,
      vocabSize: 70,
      numHeads: 4,
      numKvHeads: 2,
      headDim: 8,
    });
    const weights = randomWeights(cfg, 3);
    const make = (backend: Backend, w: ModelWeights, baseDtype: 'f32' | 'f16') =>
      createEnginePolicy({
        backend,
        config: cfg,
        weights: w,
        decoder: { decode: (ids: readonly number[]) => ids.join(' ') },
        training: {
          mode: 'lora',
          adapters: ['a'],
          rank: 4,
          alpha: 8,
          targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'],
        },
        optimizer: {
          lr: 1e-2,
          beta1: 0.9,
          beta2: 0.999,
          eps: 1e-8,
          weightDecay: 0,
          gradClip: 0,
          schedule: { kind: 'constant', warmupSteps: 0 },
        },
        seed: 1,
        baseDtype,
      });
    const step = async (backend: Backend, w: ModelWeights, baseDtype: 'f32' | 'f16') => {
      const policy = make(backend, w, baseDtype);
      const loaded = backend.ledger().liveBytes;
      const gen = await policy.generate(
        [{ prompt: [3, 4, 5], adapter: 'a', maxNewTokens: 6, stopStrings: [], stopTokenIds: [] }],
        { temperature: 0, topP: 1, topK: 0, seed: 0 },
      );
      policy.zeroGrad('a');
      const req = {
        tokens: [3, 4, 5, 9, 10, 11, 12],
        positions: [3, 4, 5, 6],
        adapter: 'a',
        coef: Float32Array.from([0.5, -0.2, 0.3, 0.1]),
      };
      await policy.accumulateGradients([req]);
      await policy.optimizerStep('a');
      const [opt] = await policy.readOptimizerStats('a');
      const after = await policy.score([req]);
      return { tokens: gen[0].tokens, gradNorm: opt.gradNorm, logprobs: after[0].logprobs, loaded };
    };
    const wasm16 = await WasmBackend.create();
    const got = await step(wasm16, weights, 'f16');
    const want = await step(new CpuBackend(), roundedWeights(weights, 'f16'), 'f32');
    expect(got.tokens).toEqual(want.tokens);
    expect(Math.abs(got.gradNorm - want.gradNorm)).toBeLessThanOrEqual(1e-4 * want.gradNorm);
    close('log-probs after the AdamW step', got.logprobs, want.logprobs, 1e-5, 1e-6);
    const wasm32 = await WasmBackend.create();
    const f32 = await step(wasm32, weights, 'f32');
    // the loaded policy (base + adapter + gradients + AdamW moments) on f32 weights: 2 bytes more per matrix element
    let matrixElems = 0;
    for (const t of weights.values()) if (t.shape.length >= 2) matrixElems += t.data.length;
    expect(f32.loaded - got.loaded).toBe(2 * matrixElems);
    wasm16.destroy();
    wasm32.destroy();
  });
});
