// The golden fixtures (scripts/golden/make_golden.py) honour their contract: every folder loads through the real
// HF loader, golden.safetensors has a gradient for exactly the checkpoint's parameters with matching shapes, and
// its log-probs, entropies and loss agree with its own logits (recomputed here in float64).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../../src/cli/fs-source.ts';
import { loadHfCheckpoint } from '../../../src/engine/io/hf-model.ts';
import { parseSafetensors } from '../../../src/engine/io/safetensors.ts';
import { GOLDEN_FIXTURES_MIN, GOLDEN_ROOT as goldenRoot, goldenFixtures } from '../../helpers/golden-fixtures.ts';

const folders = goldenFixtures('config.json');

describe('golden fixtures', () => {
  it('cover the required model families', async () => {
    expect(folders.length).toBeGreaterThanOrEqual(GOLDEN_FIXTURES_MIN);
    const configs = await Promise.all(
      folders.map(async (f) => (await loadHfCheckpoint(directoryFileSource(join(goldenRoot, f)))).config),
    );
    expect(configs.some((c) => c.architecture === 'llama' && !c.tieWordEmbeddings)).toBe(true);
    expect(configs.some((c) => c.architecture === 'qwen2' && c.attentionBias && c.tieWordEmbeddings)).toBe(true);
    expect(configs.some((c) => c.numHeads === c.numKvHeads)).toBe(true);
    expect(configs.some((c) => c.numHeads > c.numKvHeads)).toBe(true);
    expect(configs.some((c) => c.vocabSize >= 4096)).toBe(true);
  });

  for (const folder of folders) {
    it(`${folder}: loads, and golden.safetensors is self-consistent`, async () => {
      const dir = join(goldenRoot, folder);
      const { config, weights, storedDtypes } = await loadHfCheckpoint(directoryFileSource(dir));
      expect(storedDtypes).toEqual(new Set(['F32']));
      expect(existsSync(join(dir, 'model.onnx'))).toBe(true);
      const { tensors } = parseSafetensors(
        new Uint8Array(readFileSync(join(dir, 'golden.safetensors'))),
        `${folder}/golden.safetensors`,
      );
      const get = (n: string) => {
        const t = tensors.get(n);
        if (!t) throw new Error(`${folder}: golden.safetensors lacks ${n}`);
        return t;
      };
      const gradNames = [...tensors.keys()].filter((n) => n.startsWith('grad.')).map((n) => n.slice(5));
      expect(gradNames.toSorted()).toEqual([...weights.keys()].toSorted());
      for (const name of gradNames) {
        expect(get(`grad.${name}`).dtype).toBe('F64');
        expect(get(`grad.${name}`).shape).toEqual(weights.get(name)!.shape);
      }
      const ids = get('input_ids');
      expect(ids.dtype).toBe('I64');
      const [B, T] = ids.shape;
      const V = config.vocabSize;
      const tokens = ids.data as number[];
      expect(tokens.every((t) => t >= 0 && t < V)).toBe(true);
      expect(get('logits').shape).toEqual([B, T, V]);
      expect(get('token_logprobs').shape).toEqual([B, T - 1]);
      expect(get('loss_mask').shape).toEqual([B, T - 1]);
      expect(get('advantages').shape).toEqual([B]);
      const logits = get('logits').data as Float64Array;
      const logprobs = get('token_logprobs').data as Float64Array;
      const entropy = get('token_entropy').data as Float64Array;
      const mask = get('loss_mask').data as Float64Array;
      const adv = get('advantages').data as Float64Array;
      let loss = 0;
      let worst = 0;
      for (let b = 0; b < B; b++) {
        for (let t = 0; t < T - 1; t++) {
          const row = logits.subarray((b * T + t) * V, (b * T + t + 1) * V);
          let max = -Infinity;
          for (const x of row) max = Math.max(max, x);
          let sum = 0;
          for (const x of row) sum += Math.exp(x - max);
          const logZ = max + Math.log(sum);
          let h = 0;
          for (const x of row) h -= Math.exp(x - logZ) * (x - logZ);
          const lp = row[tokens[b * T + t + 1]] - logZ;
          worst = Math.max(worst, Math.abs(lp - logprobs[b * (T - 1) + t]), Math.abs(h - entropy[b * (T - 1) + t]));
          loss += mask[b * (T - 1) + t] * adv[b] * lp;
        }
      }
      expect(worst).toBeLessThan(1e-12);
      expect(Math.abs(loss - (get('loss').data as Float64Array)[0])).toBeLessThan(1e-11);
    });
  }
});
