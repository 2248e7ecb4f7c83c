// "Explain this step" (src/rl/train/explain.ts) on the REAL engine (CPU backend) with the shipped tiny-rema model:
// a trainer step with TrainerOptions.explain records one group's rewards, statistics, advantages, per-token ratio /
// clip / coefficient and the log-probs of the same tokens before and after the update. The record agrees with
// the trainer's own numbers: advantages are (r - mean) / (std + eps) of the recorded rewards, the per-layer gradient
// norms' root-sum-square is each optimiser step's norm (and their mean the step's grad_norm metric), the rows the
// update favoured (A > 0) gained log-prob against those it penalised, and explain off records nothing.
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../../src/cli/fs-source.ts';
import { loadHfTokenizer } from '../../../src/data/hf-tokenizer.ts';
import type { ChatTokenizer } from '../../../src/data/tokenizer.ts';
import { tinyArithProblems } from '../../../src/data/tiny-task/dataset.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { loadHfCheckpoint, type HfCheckpoint } from '../../../src/engine/io/hf-model.ts';
import { validateConfig, type ExperimentConfig } from '../../../src/rl/config.ts';
import { policyForConfig } from '../../../src/rl/policy-setup.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { createTrainer, type StepResult } from '../../../src/rl/trainer.ts';
import { layerNorms, layerOf, type ExplainGroups, type ExplainRecord } from '../../../src/rl/train/explain.ts';

const files = directoryFileSource(resolve(import.meta.dirname, '../../../public/models/tiny-rema'), 'tiny-rema');
let checkpoint: HfCheckpoint;
let tokenizer: ChatTokenizer;

beforeAll(async () => {
  [checkpoint, tokenizer] = await Promise.all([loadHfCheckpoint(files), loadHfTokenizer(files)]);
});

function small(over: Partial<ExperimentConfig>): ExperimentConfig {
  return validateConfig(
    { problemsPerStep: 2, groupSize: 4, evalSize: 2, evalEvery: 0, evalBeforeTrain: false, ...over },
    'test',
    getPreset('tiny-default'),
  );
}

async function step(config: ExperimentConfig, explain?: ExplainGroups): Promise<StepResult> {
  const policy = policyForConfig(config, { backend: new CpuBackend(), checkpoint, decoder: tokenizer });
  const trainer = createTrainer({
    config,
    policy,
    tokenizer,
    train: tinyArithProblems({ split: 'train', count: 12, seed: 5 }),
    eval: tinyArithProblems({ split: 'heldout', count: 2, seed: 4 }),
    ...(explain ? { explain } : {}),
  });
  return trainer.step();
}

const rss = (xs: readonly number[]) => Math.sqrt(xs.reduce((a, x) => a + x * x, 0));

function checkAdvantages(record: ExplainRecord): void {
  const eps = record.settings.advEps;
  for (const g of record.groups)
    for (const s of g.stats) {
      expect(s.rewards.length).toBe(g.rollouts.length);
      const mean = s.rewards.reduce((a, b) => a + b, 0) / s.rewards.length;
      const std = Math.sqrt(s.rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / (s.rewards.length - 1));
      expect(s.mean).toBeCloseTo(mean, 12);
      expect(s.std).toBeCloseTo(std, 12);
      s.advantages.forEach((a, i) => expect(a).toBeCloseTo((s.rewards[i] - mean) / (std + eps), 9));
    }
}

function checkGradNorms(record: ExplainRecord, metric: number): void {
  expect(record.optimizerSteps.length).toBeGreaterThan(0);
  for (const s of record.optimizerSteps) {
    expect(s.layers.map((l) => l.name)).toEqual(['layer 0', 'layer 1', 'layer 2']);
    expect(rss(s.layers.map((l) => l.norm))).toBeCloseTo(s.gradNorm, 4);
  }
  expect(record.optimizerSteps.reduce((a, s) => a + s.gradNorm, 0) / record.optimizerSteps.length).toBeCloseTo(
    metric,
    6,
  );
}

describe('explain this step', () => {
  it('two mini-batches: advantages, ratios and coefficients, per-layer gradient norms, log-probs before and after', async () => {
    const result = await step(small({ miniBatches: 2, lr: 2e-2 }), 'all');
    const record = result.explain!;
    expect(record.step).toBe(1);
    expect(record.groups.map((g) => g.group)).toEqual([0, 1]);
    checkAdvantages(record);
    checkGradNorms(record, result.metrics.grad_norm);
    // one optimiser step per mini-batch (shared adapter)
    expect(record.optimizerSteps.map((s) => [s.miniBatch, s.adapter])).toEqual([
      [0, 'shared'],
      [1, 'shared'],
    ]);
    expect(record.rescoreSeconds).toBeGreaterThan(0);

    let trainedTokens = 0;
    let movedRatio = false;
    // first-order change of the objective: Σ A · (mean Δlog pi per token) over the rows; the update raises it
    let gain = 0;
    let rowsWithSignal = 0;
    for (const g of record.groups) {
      expect(g.rollouts.length).toBe(4);
      for (const r of g.rollouts) {
        for (const m of r.messages) {
          if (!m.tokens) continue;
          const t = m.tokens;
          const n = t.pieces.length;
          for (const arr of [t.before, t.after, t.ratio, t.clip, t.coef, t.advantage]) expect(arr.length).toBe(n);
          trainedTokens += n;
          for (const c of t.clip) expect([-1, 0, 1]).toContain(c);
          if (t.ratio.some((x) => Math.abs(x - 1) > 1e-6)) movedRatio = true;
          // a token's loss coefficient has the opposite sign of its advantage (the loss is minimised) unless clipped
          t.coef.forEach((c, k) => {
            if (t.clip[k] === 0 && t.advantage[k] !== 0) expect(Math.sign(c)).toBe(-Math.sign(t.advantage[k]));
          });
        }
        for (const row of r.rows) {
          if (row.tokens === 0 || row.advantage === 0) continue;
          gain += row.advantage * ((row.logpAfter - row.logpBefore) / row.tokens);
          rowsWithSignal += 1;
        }
      }
    }
    expect(trainedTokens).toBeGreaterThan(0);
    // the second mini-batch ran on moved weights: some ratio differs from 1
    expect(movedRatio).toBe(true);
    expect(rowsWithSignal).toBeGreaterThan(0);
    expect(gain).toBeGreaterThan(0);
  }, 120_000);

  it("'one' explains one group whose rewards differ; off records nothing", async () => {
    const config = small({ lr: 2e-2 });
    const one = await step(config, 'one');
    const record = one.explain!;
    expect(record.groups).toHaveLength(1);
    const rewards = record.groups[0].stats[0].rewards;
    expect(new Set(rewards).size).toBeGreaterThan(1);
    checkAdvantages(record);
    checkGradNorms(record, one.metrics.grad_norm);
    const off = await step(config);
    expect(off.explain).toBeUndefined();
    // recording changes no number of the step
    expect(off.metrics.grad_norm).toBe(one.metrics.grad_norm);
    expect(off.metrics.loss).toBe(one.metrics.loss);
  }, 120_000);

  it("separate parameters: the trained agent's adapter, its statistics and per-layer norms", async () => {
    // the agents take turns (switchEvery 10, startAgent meta): step 1 trains the meta-thinking agent's adapter only
    const result = await step(small({ paramMode: 'separate', lr: 2e-2 }), 'one');
    const record = result.explain!;
    expect(record.optimizerSteps.map((s) => s.adapter)).toEqual(['meta']);
    expect(record.groups[0].stats.map((s) => s.role)).toEqual(['meta']);
    checkAdvantages(record);
    checkGradNorms(record, result.metrics.grad_norm);
  }, 120_000);

  it('groups tensor names by layer and sums their norms in squares', () => {
    expect(layerOf('base_model.model.model.layers.12.self_attn.q_proj.lora_A.weight')).toBe('layer 12');
    expect(layerOf('model.embed_tokens.weight')).toBe('embedding');
    expect(layerOf('lm_head.weight')).toBe('head');
    expect(layerOf('model.norm.weight')).toBe('head');
    const layers = layerNorms([
      { name: 'model.layers.0.a', norm: 3 },
      { name: 'model.layers.1.a', norm: 1 },
      { name: 'model.layers.0.b', norm: 4 },
    ]);
    expect(layers).toEqual([
      { name: 'layer 0', norm: 5 },
      { name: 'layer 1', norm: 1 },
    ]);
  });
});
