// verl scores log-probs (old, reference, current) and entropies of softmax(logits / T) at the
// rollout temperature T (dp_actor._forward_micro_batch: logits.div_(temperature)). The engine's decoder on the CPU
// backend with a tiny random model: forward against log-softmax of the full logits / T, gradients against central
// finite differences of the scaled objective; then the trainer passes the rollout temperature to every scoring
// pass with logprobTemperature "rollout" (the default) and 1 with "one".
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { packSequences } from '../../../src/engine/model/batch.ts';
import { computeLogits, runSequences } from '../../../src/engine/model/decoder.ts';
import { namedParameters, uploadParams, zerosLikeParams } from '../../../src/engine/model/params.ts';
import type { TrainablePolicy } from '../../../src/engine/policy/policy.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { validateConfig } from '../../../src/rl/config.ts';
import { Rng } from '../../../src/util/rng.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';
import { centralDifference } from '../../helpers/finite-difference.ts';
import { makeTrainer, smallConfig } from '../../helpers/rl/trainer-setup.ts';

const cfg = tinyConfig();
const T = 0.6;

function sequences() {
  const rng = new Rng(4);
  return [9, 6].map((n) => ({
    tokens: Array.from({ length: n }, () => rng.int(0, cfg.vocabSize - 1)),
    positions: Array.from({ length: n - 2 }, (_, i) => i + 2),
  }));
}

describe('log-probs at the rollout temperature', () => {
  it('the decoder gives log-softmax(logits / T) and its entropy', async () => {
    const be = new CpuBackend();
    const params = uploadParams(be, cfg, randomWeights(cfg, 7));
    const batch = packSequences(sequences(), cfg.vocabSize);
    const r = await runSequences(be, cfg, { params, lora: null }, batch, null, { temperature: T });
    const plain = await runSequences(be, cfg, { params, lora: null }, batch, null);
    const logits = await computeLogits(be, cfg, { params, lora: null }, batch);
    const V = cfg.vocabSize;
    for (let q = 0; q < batch.selectedRows.length; q++) {
      const row = Array.from(logits.subarray(batch.selectedRows[q] * V, (batch.selectedRows[q] + 1) * V), (x) => x / T);
      const max = Math.max(...row);
      const lse = max + Math.log(row.reduce((s, x) => s + Math.exp(x - max), 0));
      expect(Math.abs(r.logprobs[q] - (row[batch.targets[q]] - lse))).toBeLessThan(1e-5);
      const h = -row.reduce((s, x) => s + Math.exp(x - lse) * (x - lse), 0);
      expect(Math.abs(r.entropy[q] - h)).toBeLessThan(1e-5);
      expect(Math.abs(r.logprobs[q] - plain.logprobs[q])).toBeGreaterThan(1e-6);
    }
    await expect(runSequences(be, cfg, { params, lora: null }, batch, null, { temperature: 0 })).rejects.toThrow(
      /temperature must be a positive number/,
    );
  });

  it('its gradients agree with central finite differences of sum coef * logp_T + entCoef * H_T', async () => {
    const be = new CpuBackend();
    const params = uploadParams(be, cfg, randomWeights(cfg, 9));
    const grads = zerosLikeParams(be, cfg, 'grad');
    const batch = packSequences(sequences(), cfg.vocabSize);
    const rng = new Rng(5);
    const Rq = batch.selectedRows.length;
    const coef = Float32Array.from({ length: Rq }, () => rng.normal());
    const entCoef = Float32Array.from({ length: Rq }, () => 0.3 * rng.normal());
    const loss = async () => {
      const r = await runSequences(be, cfg, { params, lora: null }, batch, null, { temperature: T });
      let L = 0;
      for (let q = 0; q < Rq; q++) L += coef[q] * r.logprobs[q] + entCoef[q] * r.entropy[q];
      return L;
    };
    await runSequences(
      be,
      cfg,
      { params, lora: null },
      batch,
      { coef, entropyCoef: entCoef, sinks: { full: grads, lora: null } },
      { temperature: T },
    );
    const named = new Map(namedParameters(params));
    const gradNamed = new Map(namedParameters(grads));
    const h = 1e-2;
    for (const name of [
      'model.norm.weight',
      'lm_head.weight',
      'model.layers.1.mlp.down_proj.weight',
      'model.layers.0.self_attn.q_proj.weight',
    ]) {
      const data = be.f32(named.get(name)!);
      const g = be.f32(gradNamed.get(name)!);
      const scale = Math.max(...Array.from(g, Math.abs));
      const idx = Array.from(g.keys())
        .toSorted((a, b) => Math.abs(g[b]) - Math.abs(g[a]))
        .slice(0, 3);
      for (const i of idx) {
        const fd = await centralDifference(data, i, h, loss);
        expect(Math.abs(fd - g[i]), `${name}[${i}]`).toBeLessThan(2e-2 * scale + 1e-4);
      }
    }
  });

  it('the trainer scores old, reference and current log-probs at the rollout temperature ("rollout") or at 1 ("one")', async () => {
    for (const [mode, want] of [
      ['rollout', 0.7],
      ['one', 1],
    ] as const) {
      const config = smallConfig('rema-multiturn', {
        temperature: 0.7,
        logprobTemperature: mode,
        miniBatches: 2,
        klBeta: 0.01,
      });
      const { trainer, policy } = makeTrainer(config);
      const seen: (number | undefined)[] = [];
      const real: TrainablePolicy = policy;
      const score = real.score.bind(real);
      const grad = real.accumulateGradients.bind(real);
      real.score = (r, o) => (seen.push(o?.temperature), score(r, o));
      real.accumulateGradients = (r, o) => (seen.push(o?.temperature), grad(r, o));
      await trainer.step();
      // old pass, reference pass, 2 mini-batches of backward, the second also re-scored
      expect(seen.length).toBeGreaterThanOrEqual(4);
      expect(new Set(seen)).toEqual(new Set([want]));
    }
  });

  it('is "rollout" in the presets and reads as "one" in configs saved before it', () => {
    expect(getPreset('rema-multiturn').logprobTemperature).toBe('rollout');
    const { logprobTemperature: _dropped, ...old } = getPreset('rema-multiturn');
    expect(validateConfig(old, 'old config.json').logprobTemperature).toBe('one');
  });
});
