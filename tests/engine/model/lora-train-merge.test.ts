// Training passes on merged LoRA weights (src/engine/model/lora-train-merge.ts): a training pass over a small model
// runs each targeted projection on W + s·B·A (no rank-r product over the pass's rows other than x A^T and dy B),
// its log-probs, entropies and every gradient of the adapter agree with the low-rank form to f32 rounding on the CPU
// reference and WASM kernels, the merged weights hold the inference copy's bits, and the rule merges only small f32
// bases.
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../../src/engine/backends/wasm.ts';
import { packSequences } from '../../../src/engine/model/batch.ts';
import { runSequences, type ActiveWeights } from '../../../src/engine/model/decoder.ts';
import { TensorScope } from '../../../src/engine/model/device-ops.ts';
import { allocMerged } from '../../../src/engine/model/lora-merge.ts';
import { mergeForTraining, mergesInTraining } from '../../../src/engine/model/lora-train-merge.ts';
import { LORA_TARGETS, namedLoraParameters, zerosLikeAdapter } from '../../../src/engine/model/lora.ts';
import { relMaxErr } from '../../helpers/kernel-compare.ts';
import { loraWeightsOn } from '../../helpers/engine/lora-weights.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';

const cfg = tinyConfig({ vocabSize: 41 });
const weights = randomWeights(cfg, 7);
const seqs = [
  { tokens: [1, 5, 9, 2, 7, 7, 3], positions: [3, 4, 5, 6] },
  { tokens: [4, 8, 15, 16, 23], positions: [2, 4] },
  { tokens: [2, 2, 2, 9, 30, 31, 32, 33, 34], positions: [5, 6, 7, 8] },
];

/** One training pass: log-probs, entropies and the adapter's gradients; the matmuls it ran with K = rank over the
 *  pass's rows (a low-rank product into an output or an input gradient). */
async function pass(be: Backend, merge: boolean) {
  const w = loraWeightsOn(be, cfg, weights, false);
  const lora = w.lora!;
  const grads = zerosLikeAdapter(be, cfg, lora, 'grad');
  const batch = packSequences(seqs, cfg.vocabSize);
  const R = batch.B * batch.T;
  let rowProductsOfRankK = 0;
  const run = be.run.bind(be);
  be.run = ((kernel: string, args: { p: { M: number; K: number } }) => {
    if (kernel === 'matmul' && args.p.K === lora.rank && args.p.M === R) rowProductsOfRankK++;
    return run(kernel as never, args as never);
  }) as Backend['run'];
  // merged: undefined lets the pass merge; one empty entry per layer keeps the low-rank form
  const active: ActiveWeights = merge ? w : { ...w, merged: Array.from({ length: cfg.numLayers }, () => ({})) };
  const coef = Float32Array.from({ length: batch.selectedRows.length }, (_, i) => Math.sin(i + 1));
  const out = await runSequences(
    be,
    cfg,
    active,
    batch,
    {
      coef,
      entropyCoef: coef.map((c) => 0.1 * c),
      sinks: { full: null, lora: grads },
    },
    { activationBudgetBytes: 1 << 30 },
  ); // every layer kept: each layer's forward runs once
  be.run = run;
  const g = new Map<string, Float32Array>();
  for (const [name, t] of namedLoraParameters(grads)) g.set(name, (await be.download(t)) as Float32Array);
  return { ...out, grads: g, rowProductsOfRankK };
}

describe('LoRA merged for a training pass', () => {
  for (const [name, make] of [
    ['cpu', async () => new CpuBackend()],
    ['wasm', async () => WasmBackend.create()],
  ] as const) {
    it(`${name}: one product x A^T and one dy B per projection; log-probs and gradients as the low-rank form`, async () => {
      const be = await make();
      const merged = await pass(be, true);
      const lowRank = await pass(be, false);
      const targets = LORA_TARGETS.length * cfg.numLayers;
      // the products of rank K over the rows: (x A^T) B^T per projection and (dy B) A per projection whose input
      // gradient is needed (not the first layer's q, k, v: the embedding below them is frozen), none when merged
      expect(lowRank.rowProductsOfRankK).toBe(2 * targets - 3);
      expect(merged.rowProductsOfRankK).toBe(0);
      expect(relMaxErr(merged.logprobs, lowRank.logprobs)).toBeLessThan(1e-5);
      expect(relMaxErr(merged.entropy, lowRank.entropy)).toBeLessThan(1e-5);
      expect(merged.grads.size).toBe(2 * targets);
      for (const [key, g] of lowRank.grads) {
        expect(
          g.some((x) => x !== 0),
          key,
        ).toBe(true);
        expect(relMaxErr(merged.grads.get(key)!, g), key).toBeLessThan(1e-4);
      }
      be.destroy();
    });
  }

  it("merges into the inference copy's bits", async () => {
    const be = new CpuBackend();
    const w = loraWeightsOn(be, cfg, weights, false);
    const scope = new TensorScope(be);
    const merged = mergeForTraining(be, scope, cfg, w.params, w.lora!)!;
    const copy = allocMerged(be, cfg, w.params, w.lora!);
    const { hiddenSize: D, numHeads: H, numKvHeads: Hkv, headDim: Dh, intermediateSize: F } = cfg;
    for (let l = 0; l < cfg.numLayers; l++) {
      const qkv = be.f32(copy.fused[l].qkv),
        gateUp = be.f32(copy.fused[l].gateUp);
      expect(be.f32(merged[l].q!)).toEqual(qkv.subarray(0, H * Dh * D));
      expect(be.f32(merged[l].v!)).toEqual(qkv.subarray((H + Hkv) * Dh * D));
      expect(be.f32(merged[l].up!)).toEqual(gateUp.subarray(F * D));
      expect(be.f32(merged[l].down!)).toEqual(be.f32(copy.fused[l].down));
    }
    scope.freeAll();
  });

  it('merges only an f32 base whose targeted weights per layer are small', () => {
    const all = [...LORA_TARGETS];
    const tinyRema = tinyConfig({ hiddenSize: 64, intermediateSize: 176, numHeads: 4, numKvHeads: 2, headDim: 16 });
    const smol = tinyConfig({ hiddenSize: 576, intermediateSize: 1536, numHeads: 9, numKvHeads: 3, headDim: 64 });
    expect(mergesInTraining(tinyRema, all, true)).toBe(true);
    expect(mergesInTraining(tinyRema, all, false)).toBe(false);
    expect(mergesInTraining(smol, all, true)).toBe(false);
    expect(mergesInTraining(smol, ['q'], true)).toBe(false);
  });
});
