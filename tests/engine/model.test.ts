// The decoder on the CPU backend with tiny random models: fused log-probs agree with full logits, batching and
// padding do not change results, full-weight gradients agree with finite differences, LoRA gradients obey the
// chain rule against full-weight gradients, and KV-cache decoding gives the same log-probs as a full forward.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import type { ModelConfig, ModelWeights } from '../../src/engine/model/config.ts';
import { packSequences, type SequenceInput } from '../../src/engine/model/batch.ts';
import { computeLogits, runSequences } from '../../src/engine/model/decoder.ts';
import { decodeBatch } from '../../src/engine/model/generate.ts';
import { createLoraAdapter, namedLoraParameters, zerosLikeAdapter } from '../../src/engine/model/lora.ts';
import { namedParameters, uploadParams, zerosLikeParams } from '../../src/engine/model/params.ts';
import { Rng } from '../../src/util/rng.ts';
import { randomWeights, tinyConfig } from '../helpers/engine/model-random.ts';
import { centralDifference } from '../helpers/finite-difference.ts';

const variants: Array<[string, ModelConfig]> = [
  ['llama untied GQA 2:1', tinyConfig()],
  [
    'qwen2 tied + bias, MHA',
    tinyConfig({ architecture: 'qwen2', tieWordEmbeddings: true, attentionBias: true, numKvHeads: 4 }),
  ],
  [
    'llama3 RoPE scaling, GQA 4:1',
    tinyConfig({
      numKvHeads: 1,
      ropeTheta: 500000,
      ropeScaling: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8 },
    }),
  ],
];

function randomSequences(cfg: ModelConfig, seed: number, lengths: number[]): SequenceInput[] {
  const rng = new Rng(seed);
  return lengths.map((n) => {
    const tokens = Array.from({ length: n }, () => rng.int(0, cfg.vocabSize - 1));
    const positions = Array.from({ length: n - 1 }, (_, i) => i + 1).filter((t) => t > 1 || n < 4);
    return { tokens, positions };
  });
}

function logSoftmaxRow(logits: Float32Array, row: number, V: number): Float64Array {
  let max = -Infinity;
  for (let v = 0; v < V; v++) max = Math.max(max, logits[row * V + v]);
  let sum = 0;
  for (let v = 0; v < V; v++) sum += Math.exp(logits[row * V + v] - max);
  return Float64Array.from({ length: V }, (_, v) => logits[row * V + v] - max - Math.log(sum));
}

function maxAbs(a: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]));
  return m;
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

describe.each(variants)('decoder (%s)', (_name, cfg) => {
  const weights = randomWeights(cfg, 7);

  it('fused log-probs and entropies equal log-softmax of the full logits; padding does not change them', async () => {
    const be = new CpuBackend();
    const params = uploadParams(be, cfg, weights);
    const seqs = randomSequences(cfg, 1, [9, 5, 12]);
    const batch = packSequences(seqs, cfg.vocabSize);
    const fused = await runSequences(be, cfg, { params, lora: null }, batch, null);
    const logits = await computeLogits(be, cfg, { params, lora: null }, batch);
    const V = cfg.vocabSize;
    for (let q = 0; q < batch.selectedRows.length; q++) {
      const ls = logSoftmaxRow(logits, batch.selectedRows[q], V);
      expect(Math.abs(fused.logprobs[q] - ls[batch.targets[q]])).toBeLessThan(1e-5);
      let h = 0;
      for (let v = 0; v < V; v++) h -= Math.exp(ls[v]) * ls[v];
      expect(Math.abs(fused.entropy[q] - h)).toBeLessThan(1e-5);
    }
    // the middle sequence scored alone (no padding, B = 1) gives the same numbers
    const alone = await runSequences(be, cfg, { params, lora: null }, packSequences([seqs[1]], V), null);
    const s = batch.selectedStart;
    expect(maxAbsDiff(alone.logprobs, fused.logprobs.subarray(s[1], s[2]))).toBeLessThan(1e-5);
  });

  it('full-weight gradients agree with central finite differences', async () => {
    const be = new CpuBackend();
    const params = uploadParams(be, cfg, weights);
    const grads = zerosLikeParams(be, cfg, 'grad');
    const seqs = randomSequences(cfg, 2, [7, 10]);
    const batch = packSequences(seqs, cfg.vocabSize);
    const rng = new Rng(3);
    const Rq = batch.selectedRows.length;
    const coef = Float32Array.from({ length: Rq }, () => rng.normal());
    const entCoef = Float32Array.from({ length: Rq }, () => 0.3 * rng.normal());
    const loss = async (): Promise<number> => {
      const r = await runSequences(be, cfg, { params, lora: null }, batch, null);
      let L = 0;
      for (let q = 0; q < Rq; q++) L += coef[q] * r.logprobs[q] + entCoef[q] * r.entropy[q];
      return L;
    };
    await runSequences(be, cfg, { params, lora: null }, batch, {
      coef,
      entropyCoef: entCoef,
      sinks: { full: grads, lora: null },
    });
    const named = new Map(namedParameters(params));
    const gradNamed = new Map(namedParameters(grads));
    const probes = [
      'model.embed_tokens.weight',
      'model.layers.0.self_attn.q_proj.weight',
      'model.layers.0.self_attn.k_proj.weight',
      'model.layers.1.self_attn.v_proj.weight',
      'model.layers.0.self_attn.o_proj.weight',
      'model.layers.1.mlp.gate_proj.weight',
      'model.layers.0.mlp.up_proj.weight',
      'model.layers.1.mlp.down_proj.weight',
      'model.layers.0.input_layernorm.weight',
      'model.layers.1.post_attention_layernorm.weight',
      'model.norm.weight',
      ...(cfg.tieWordEmbeddings ? [] : ['lm_head.weight']),
      ...(cfg.attentionBias ? ['model.layers.0.self_attn.q_proj.bias', 'model.layers.1.self_attn.k_proj.bias'] : []),
    ];
    const h = 1e-2;
    for (const name of probes) {
      const p = named.get(name)!;
      const data = be.f32(p);
      const g = be.f32(gradNamed.get(name)!);
      const scale = maxAbs(g);
      expect(scale, name).toBeGreaterThan(0);
      // probe the 3 largest-gradient entries (well-conditioned) and one random entry
      const idx = Array.from(g.keys())
        .toSorted((a, b) => Math.abs(g[b]) - Math.abs(g[a]))
        .slice(0, 3);
      idx.push(rng.int(0, g.length - 1));
      for (const i of idx) {
        const fd = await centralDifference(data, i, h, loss);
        expect(Math.abs(fd - g[i]), `${name}[${i}] fd ${fd} vs ${g[i]}`).toBeLessThan(2e-2 * scale + 1e-4);
      }
    }
  });

  it("keeping every layer's activations gives the same gradients as recomputing them", async () => {
    const be = new CpuBackend();
    const params = uploadParams(be, cfg, weights);
    const adapter = createLoraAdapter(be, cfg, { name: 'a', rank: 2, alpha: 2, targets: ['q', 'o', 'up'], seed: 3 });
    const batch = packSequences(randomSequences(cfg, 5, [6, 9]), cfg.vocabSize);
    const coef = Float32Array.from({ length: batch.selectedRows.length }, (_, i) => Math.sin(i + 1));
    const run = async (budget: number) => {
      const full = zerosLikeParams(be, cfg, `g${budget}`);
      const lora = zerosLikeAdapter(be, cfg, adapter, `l${budget}`);
      await runSequences(
        be,
        cfg,
        { params, lora: adapter },
        batch,
        { coef, entropyCoef: null, sinks: { full, lora } },
        { activationBudgetBytes: budget },
      );
      return [...namedParameters(full), ...namedLoraParameters(lora)].map(([n, t]) => [n, be.f32(t)] as const);
    };
    const before = be.ledger().peakBytes;
    const recomputed = await run(0);
    const recomputePeak = be.ledger().peakBytes - before;
    const kept = await run(Infinity);
    expect(be.ledger().peakBytes - before).toBeGreaterThan(recomputePeak);
    recomputed.forEach(([name, g], i) => expect(Array.from(kept[i][1]), name).toEqual(Array.from(g)));
  });

  it('LoRA gradients equal the chain rule applied to full-weight gradients (dB = s·dW·Aᵀ, dA = s·Bᵀ·dW)', async () => {
    const be = new CpuBackend();
    const base = uploadParams(be, cfg, weights);
    const adapter = createLoraAdapter(be, cfg, {
      name: 'a',
      rank: 3,
      alpha: 6,
      targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'],
      seed: 5,
    });
    // give B non-zero values so every term is exercised
    const rng = new Rng(11);
    for (const [name, t] of namedLoraParameters(adapter)) {
      if (name.endsWith('lora_B.weight'))
        be.upload(
          t,
          Float32Array.from({ length: t.size }, () => 0.3 * rng.normal()),
        );
    }
    // the merged model W' = W + s·B·A as plain weights
    const merged: ModelWeights = new Map([...weights].map(([k, v]) => [k, { shape: v.shape, data: v.data.slice() }]));
    const s = adapter.scale;
    const loraHost = new Map<string, Float32Array>();
    for (const [name, t] of namedLoraParameters(adapter)) loraHost.set(name, be.f32(t).slice());
    for (const [name, A] of loraHost) {
      if (!name.endsWith('lora_A.weight')) continue;
      const mod = name.slice('base_model.model.'.length, -'.lora_A.weight'.length);
      const B = loraHost.get(name.replace('lora_A', 'lora_B'))!;
      const W = merged.get(`${mod}.weight`)!;
      const [nOut, nIn] = W.shape;
      const r = adapter.rank;
      for (let o = 0; o < nOut; o++)
        for (let i = 0; i < nIn; i++) {
          let acc = 0;
          for (let k = 0; k < r; k++) acc += B[o * r + k] * A[k * nIn + i];
          W.data[o * nIn + i] += s * acc;
        }
    }
    const mergedParams = uploadParams(be, cfg, merged, 'merged');
    const batch = packSequences(randomSequences(cfg, 4, [8, 6]), cfg.vocabSize);
    const coef = Float32Array.from({ length: batch.selectedRows.length }, () => rng.normal());
    const fullGrads = zerosLikeParams(be, cfg, 'gfull');
    const loraGrads = zerosLikeAdapter(be, cfg, adapter, 'glora');
    const viaLora = await runSequences(be, cfg, { params: base, lora: adapter }, batch, {
      coef,
      entropyCoef: null,
      sinks: { full: null, lora: loraGrads },
    });
    const viaMerged = await runSequences(be, cfg, { params: mergedParams, lora: null }, batch, {
      coef,
      entropyCoef: null,
      sinks: { full: fullGrads, lora: null },
    });
    expect(maxAbsDiff(viaLora.logprobs, viaMerged.logprobs)).toBeLessThan(1e-5);
    const fullByName = new Map(namedParameters(fullGrads));
    const loraGradByName = new Map(namedLoraParameters(loraGrads));
    for (const [name, A] of loraHost) {
      if (!name.endsWith('lora_A.weight')) continue;
      const mod = name.slice('base_model.model.'.length, -'.lora_A.weight'.length);
      const B = loraHost.get(name.replace('lora_A', 'lora_B'))!;
      const dW = be.f32(fullByName.get(`${mod}.weight`)!);
      const W = merged.get(`${mod}.weight`)!;
      const [nOut, nIn] = W.shape;
      const r = adapter.rank;
      const dA = new Float64Array(r * nIn);
      const dB = new Float64Array(nOut * r);
      for (let o = 0; o < nOut; o++)
        for (let i = 0; i < nIn; i++) {
          const g = dW[o * nIn + i];
          for (let k = 0; k < r; k++) {
            dB[o * r + k] += s * g * A[k * nIn + i];
            dA[k * nIn + i] += s * B[o * r + k] * g;
          }
        }
      const gotA = be.f32(loraGradByName.get(name)!);
      const gotB = be.f32(loraGradByName.get(name.replace('lora_A', 'lora_B'))!);
      expect(maxAbsDiff(gotA, dA), `${name}`).toBeLessThan(1e-4 * maxAbs(dA) + 1e-6);
      expect(maxAbsDiff(gotB, dB), `${name} (B)`).toBeLessThan(1e-4 * maxAbs(dB) + 1e-6);
    }
  });

  it('KV-cache decoding (batched, left-padded, shared prompts) gives the log-probs of a full forward', async () => {
    const be = new CpuBackend();
    const params = uploadParams(be, cfg, weights);
    const adapter = createLoraAdapter(be, cfg, { name: 'a', rank: 2, alpha: 4, targets: ['q', 'v', 'down'], seed: 9 });
    const rng = new Rng(13);
    for (const [name, t] of namedLoraParameters(adapter)) {
      if (name.endsWith('lora_B.weight'))
        be.upload(
          t,
          Float32Array.from({ length: t.size }, () => 0.3 * rng.normal()),
        );
    }
    const w = { params, lora: adapter };
    const prompts = [
      [3, 5, 7, 9, 11],
      [2, 4],
      [3, 5, 7, 9, 11],
      [8, 1, 6],
    ];
    const liveBefore = be.ledger().liveTensors;
    const maxNew = 6;
    // sequences 1 and 2 finish early: once half the rows are done the caches are compacted
    const stopAfter = [6, 2, 3, 6];
    const gen: number[][] = prompts.map(() => []);
    const lp: number[][] = prompts.map(() => []);
    await decodeBatch(
      be,
      cfg,
      w,
      prompts,
      (b, logits, step) => {
        if (step >= stopAfter[b]) return null;
        // deterministic but varied choice: the (b + step) % 3 -th most likely token
        const order = Array.from(logits.keys()).toSorted((x, y) => logits[y] - logits[x]);
        const tok = order[(b + step) % 3];
        const row = Float32Array.from(logits);
        const ls = logSoftmaxRow(row, 0, cfg.vocabSize);
        gen[b].push(tok);
        lp[b].push(ls[tok]);
        return tok;
      },
      { maxNewTokens: maxNew },
    );
    expect(be.ledger().liveTensors).toBe(liveBefore);
    const seqs = prompts.map((p, b) => ({ tokens: [...p, ...gen[b]], positions: gen[b].map((_, i) => p.length + i) }));
    const full = await runSequences(be, cfg, w, packSequences(seqs, cfg.vocabSize), null);
    expect(gen.map((g) => g.length)).toEqual(stopAfter);
    expect(maxAbsDiff(full.logprobs, lp.flat())).toBeLessThan(1e-4);
  });
});

describe('device helpers', () => {
  it('zeroTensor clears tensors larger than its host block, piece by piece', async () => {
    const { zeroTensor } = await import('../../src/engine/model/device-ops.ts');
    const be = new CpuBackend();
    const t = be.alloc([3, (1 << 20) - 5], 'f32', 'big');
    be.f32(t).fill(7);
    zeroTensor(be, t);
    expect(be.f32(t).every((x) => x === 0)).toBe(true);
  });
});
