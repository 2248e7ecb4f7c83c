// Prefill in passes of at most `prefillTokens` padded tokens (model/generate.ts): the chunked prefill gives the
// same logits at every step, bit for bit, as one pass over all prompts (CPU, WASM and WebGPU's f32 base; unfused
// with a LoRA and fused with a merged copy; with the kernels of a hardware adapter, which pick the matmul variant
// by the rows of a pass and so sum in another order, within the f32 tolerance), and its scratch is bounded: the ledger's peak drops with the budget. Also the
// copyRows batch offset (dstB0) the chunks write the caches with, on every backend.
import { describe, expect, it } from 'vitest';
import '../helpers/wasm-build.ts';
import type { Backend } from '../../src/engine/backend.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import type { ActiveWeights } from '../../src/engine/model/decoder.ts';
import { decodeBatch, DEFAULT_PREFILL_TOKENS, prefillChunkPrompts } from '../../src/engine/model/generate.ts';
import { relMaxErr } from '../helpers/kernel-compare.ts';
import { VS_CPU } from '../helpers/tolerances.ts';
import { baseBackend, getTestDevice, testBackend } from '../helpers/webgpu.ts';
import { loraWeightsOn } from '../helpers/engine/lora-weights.ts';
import { randomWeights, tinyConfig } from '../helpers/engine/model-random.ts';

const cfg = tinyConfig({ architecture: 'qwen2', attentionBias: true, vocabSize: 48 });
const weights = randomWeights(cfg, 21);
// 7 prompts, 6 distinct (prompt 5 repeats prompt 0), padded to P = 9
const prompts = [
  [3, 5, 7, 9, 11],
  [2, 4],
  [8, 1, 6, 30, 31, 32, 33, 2, 9],
  [12],
  [40, 41, 42],
  [3, 5, 7, 9, 11],
  [7, 7, 7, 7],
];
const P = 9;

/** name, factory, whether the logits are bit for bit those of one pass */
const backends: Array<[string, () => Promise<Backend>, boolean]> = [
  ['cpu', async () => new CpuBackend(), true],
  ['wasm', () => WasmBackend.create(), true],
  ['webgpu', async () => testBackend(await getTestDevice()), false],
  ['webgpu (f32 base)', async () => baseBackend(await getTestDevice()), true],
];

function weightsOn(be: Backend, fused: boolean): ActiveWeights {
  return loraWeightsOn(be, cfg, weights, fused);
}

/** Every logits row the chooser sees (as raw bits) and the ledger's peak during the call. */
async function run(
  be: Backend,
  w: ActiveWeights,
  prefillTokens: number | undefined,
): Promise<{ rows: Uint32Array[]; peak: number }> {
  const rows: Uint32Array[] = [];
  const before = be.ledger();
  await decodeBatch(
    be,
    cfg,
    w,
    prompts,
    (b, logits, step) => {
      rows.push(new Uint32Array(Float32Array.from(logits).buffer));
      return step < 3 ? (b * 7 + step * 5) % cfg.vocabSize : null;
    },
    { maxNewTokens: 4, ...(prefillTokens === undefined ? {} : { prefillTokens }) },
  );
  const after = be.ledger();
  expect(after.liveTensors).toBe(before.liveTensors);
  return { rows, peak: after.peakBytes };
}

describe('chunked prefill', () => {
  it('prompts per pass follow the token budget, at least one', () => {
    expect(prefillChunkPrompts(9, 1)).toBe(1);
    expect(prefillChunkPrompts(9, 18)).toBe(2);
    expect(prefillChunkPrompts(9, 26)).toBe(2);
    expect(prefillChunkPrompts(DEFAULT_PREFILL_TOKENS / 2)).toBe(2);
    expect(() => prefillChunkPrompts(9, 0)).toThrow(/prefillTokens must be at least 1, got 0/);
  });

  for (const [name, make, exact] of backends) {
    for (const fused of [false, true]) {
      it(`${name}, ${fused ? 'fused (merged LoRA)' : 'unfused LoRA'}: 1, 2 and 3 prompts per pass give one pass's logits ${exact ? 'bit for bit' : 'within the f32 tolerance'}, at a lower peak`, async () => {
        const peaks: number[] = [];
        let reference: Uint32Array[] | null = null;
        // budgets: all prompts in one pass, then 3, 2, 1 prompt(s) per pass (the last pass of 3 and 2 is shorter)
        for (const budget of [undefined, 3 * P, 2 * P + 1, 1]) {
          const be = await make();
          const w = weightsOn(be, fused);
          const base = be.ledger().liveBytes;
          const { rows, peak } = await run(be, w, budget);
          peaks.push(peak - base);
          if (!reference) reference = rows;
          else {
            expect(rows.length).toBe(reference.length);
            rows.forEach((r, i) => {
              const label = `${name} budget ${budget}: logits row ${i}`;
              if (exact) expect(r, label).toEqual(reference![i]);
              else
                expect(
                  relMaxErr(new Float32Array(r.buffer), new Float32Array(reference![i].buffer)),
                  label,
                ).toBeLessThan(VS_CPU.f32.outputs);
            });
          }
          be.destroy();
        }
        // one prompt per pass needs less scratch than all six distinct prompts at once
        expect(peaks[3]).toBeLessThan(peaks[0]);
      });
    }
  }

  for (const [name, make] of backends) {
    it(`${name}: copyRows writes at destination sequence dstB0 and leaves the other rows alone`, async () => {
      const be = await make();
      const [B, T, W, Sdst, dstRow0, dstB0] = [2, 3, 4, 5, 1, 1];
      const src = be.alloc([B, T, W], 'f32', 'src');
      be.upload(
        src,
        Float32Array.from({ length: B * T * W }, (_, i) => i + 1),
      );
      const dst = be.alloc([dstB0 + B + 1, Sdst, W], 'f32', 'dst');
      be.upload(dst, new Float32Array(dst.size).fill(-1));
      be.run('copyRows', { t: { src, dst }, p: { B, T, W, Sdst, dstRow0, dstB0 } });
      const got = (await be.download(dst)) as Float32Array;
      const want = new Float32Array(dst.size).fill(-1);
      for (let b = 0; b < B; b++)
        for (let t = 0; t < T; t++)
          for (let i = 0; i < W; i++) want[((dstB0 + b) * Sdst + dstRow0 + t) * W + i] = (b * T + t) * W + i + 1;
      expect(Array.from(got)).toEqual(Array.from(want));
      const small = be.alloc([B, Sdst, W], 'f32', 'small');
      expect(() => be.run('copyRows', { t: { src, dst: small }, p: { B, T, W, Sdst, dstRow0, dstB0 } })).toThrow(
        /copyRows.*dst/,
      );
      be.destroy();
    });
  }
});
