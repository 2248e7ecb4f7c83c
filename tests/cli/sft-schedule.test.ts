// The learning-rate schedule of short runs: cosine never spends a step at lr 0 (a 1-step `rema sft` changes the
// weights), and a run whose weights did not change (lr 0) says so instead of passing the base model off as trained.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSft, sftFromFlags } from '../../src/cli/sft.ts';
import { learningRate, type LrSchedule } from '../../src/engine/optim/schedule.ts';

const cosine = (totalSteps: number, warmupSteps = 0): LrSchedule => ({
  kind: 'warmup-cosine',
  warmupSteps,
  totalSteps,
});

describe('cosine schedule of short runs', () => {
  it('gives every step of a 1..12-step run a positive rate, the first after warm-up the full one', () => {
    for (let total = 1; total <= 12; total++)
      for (const warm of [0, 1, 2]) {
        if (warm >= total) continue;
        const lrs = Array.from({ length: total }, (_, k) => learningRate(0.1, cosine(total, warm), k + 1));
        expect(lrs.every((x) => x > 0)).toBe(true);
        expect(lrs[warm]).toBeCloseTo(0.1, 12);
        for (let k = warm + 1; k < total; k++) expect(lrs[k]).toBeLessThan(lrs[k - 1]);
      }
    expect(learningRate(0.1, cosine(1), 1)).toBe(0.1);
    expect([1, 2].map((k) => learningRate(0.1, cosine(2), k))).toEqual([0.1, 0.05]);
  });

  it('a 1-step rema sft run trains at the full rate and changes the weights; lr 0 says the weights are unchanged', async () => {
    const set = ['finetune="full"', 'sft.tinyProblems=4', 'sft.batchSize=4'];
    const one = await runSft({
      ...sftFromFlags({ preset: 'tiny-sft-cot', set }),
      out: mkdtempSync(join(tmpdir(), 'rema-sft1-')),
      backend: 'wasm',
      progress: 'none',
    });
    expect(one.totalSteps).toBe(1);
    expect(one.metrics[0].lr).toBe(1e-3);
    expect(one.unchanged).toBeUndefined();
    const still = await runSft({
      ...sftFromFlags({ preset: 'tiny-sft-cot', set: [...set, 'lr=0'] }),
      out: mkdtempSync(join(tmpdir(), 'rema-sft0-')),
      backend: 'wasm',
      progress: 'none',
    });
    expect(still.unchanged).toBe(true);
  });
});
