// Flash-decoding (kernels/wgsl/attention-decode.ts: attention with one query per sequence, a workgroup per
// sequence x KV head x key split) against its CPU twin, the catalog's attention on the CPU backend: GQA groups of 7
// (the Qwen2.5-0.5B shape's 14 / 2 heads) and MHA, left padding and a sequence with no visible key, one split (o and
// lse written directly) and several (partials merged), head dims 64 and 12 (not a multiple of 4). Then KV-cache
// decoding with it equals a full forward on the same backend. On by default on hardware adapters.
// Tolerance 1e-4 of max |value| as for the other attention kernels (exp / log chain).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WebGpuBackend } from '../../src/engine/backends/webgpu.ts';
import { packSequences } from '../../src/engine/model/batch.ts';
import { runSequences } from '../../src/engine/model/decoder.ts';
import { decodeBatch } from '../../src/engine/model/generate.ts';
import { uploadParams } from '../../src/engine/model/params.ts';
import { Rng } from '../../src/util/rng.ts';
import { compareKernel, type TensorInput } from '../helpers/kernel-compare.ts';
import { getTestDevice, testBackend } from '../helpers/webgpu.ts';
import { randomWeights, tinyConfig } from '../helpers/engine/model-random.ts';

const TOL = 1e-4;
const rng = new Rng(3);
const f32 = (shape: number[]): TensorInput => ({
  shape,
  data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
});
const i32 = (v: number[]): TensorInput => ({ shape: [v.length], data: Int32Array.from(v), dtype: 'i32' });

let gpu: WebGpuBackend;
const cpu = new CpuBackend();
const decodeDispatches = () =>
  Object.entries(gpu.dispatchesByProgram())
    .filter(([k]) => k.startsWith('attentionDecode'))
    .reduce((s, [, n]) => s + n, 0);

describe('flash-decoding attention vs the CPU twin', () => {
  beforeAll(async () => {
    const dev = await getTestDevice();
    gpu = testBackend(dev, { flashDecode: true });
  });
  afterAll(() => gpu?.destroy());

  it('GQA 14/2 and MHA, padding, a query with no key, one split and several', async () => {
    const before = decodeDispatches();
    // [B, S, past, H, Hkv, Dh, keyStart]: 300 keys over 2 sequences x 2 KV heads -> 2 splits (merged); the rest one
    const cases: Array<[number, number, number, number, number, number, number[]]> = [
      [3, 20, 13, 14, 2, 64, [0, 5, 14]],
      [2, 310, 299, 14, 2, 64, [0, 37]],
      [2, 90, 70, 3, 3, 12, [2, 0]],
    ];
    for (const [B, S, past, H, Hkv, Dh, keyStart] of cases) {
      const r = await compareKernel(
        cpu,
        gpu,
        'attention',
        {
          q: f32([B, 1, H, Dh]),
          k: f32([B, S, Hkv, Dh]),
          v: f32([B, S, Hkv, Dh]),
          keyStart: i32(keyStart),
          o: f32([B, 1, H, Dh]),
          lse: f32([B, H, 1]),
        },
        { B, T: 1, S, past, H, Hkv, Dh },
        ['o', 'lse'],
      );
      expect(r.err.o, `o ${B}x${H}/${Hkv}x${Dh} past ${past}`).toBeLessThan(TOL);
      expect(r.err.lse, `lse ${B}x${H}/${Hkv}x${Dh} past ${past}`).toBeLessThan(TOL);
      if (keyStart.some((s) => s > past)) {
        const b = keyStart.findIndex((s) => s > past);
        expect(
          Array.from(r.test.o as Float32Array)
            .slice(b * H * Dh, (b + 1) * H * Dh)
            .every((x) => x === 0),
        ).toBe(true);
      }
    }
    expect(decodeDispatches() - before).toBe(3);
    expect(gpu.dispatchesByProgram()['attentionDecode:64:7:split']).toBeGreaterThan(0);
  });

  it('KV-cache decoding with it gives the log-probs of a full forward', async () => {
    const cfg = tinyConfig({
      architecture: 'qwen2',
      attentionBias: true,
      hiddenSize: 32,
      intermediateSize: 48,
      numHeads: 4,
      numKvHeads: 2,
      headDim: 8,
      vocabSize: 61,
    });
    const params = uploadParams(gpu, cfg, randomWeights(cfg, 9));
    const w = { params, lora: null };
    const prompts = [
      [3, 5, 7, 9, 11],
      [2, 4],
      [8, 1, 6],
    ];
    const gen: number[][] = prompts.map(() => []);
    const lp: number[][] = prompts.map(() => []);
    const before = decodeDispatches();
    await decodeBatch(
      gpu,
      cfg,
      w,
      prompts,
      (b, logits, step) => {
        if (step >= 5) return null;
        const tok = (b * 13 + step * 7) % cfg.vocabSize;
        let max = -Infinity;
        for (const x of logits) max = Math.max(max, x);
        let sum = 0;
        for (const x of logits) sum += Math.exp(x - max);
        gen[b].push(tok);
        lp[b].push(logits[tok] - max - Math.log(sum));
        return tok;
      },
      { maxNewTokens: 6 },
    );
    expect(decodeDispatches() - before).toBe(5 * cfg.numLayers); // decode steps 1..5, every layer
    const full = await runSequences(
      gpu,
      cfg,
      w,
      packSequences(
        prompts.map((p, b) => ({ tokens: [...p, ...gen[b]], positions: gen[b].map((_, i) => p.length + i) })),
        cfg.vocabSize,
      ),
      null,
    );
    let worst = 0;
    lp.flat().forEach((x, i) => {
      worst = Math.max(worst, Math.abs(x - full.logprobs[i]));
    });
    expect(worst).toBeLessThan(1e-4);
  });
});
