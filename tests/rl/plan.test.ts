// The planner from a config (src/rl/plan.ts) against real trainer steps on the real engine: the embedded tiny
// model with its tokenizer, the tiny-default protocol (multi-turn ReMA) and VRP_RL, on the CPU backend. The plan
// sizes the step's worst case (every message at its token cap, every prompt at its longest, every row trained whole),
// so its total must bound the allocation ledger's measured peak, and stay near it (within 2.5x: the real messages stop
// early), also when the step ends with a held-out evaluation of more problems than the rollout's group, and when
// decodeBatch splits the decode into smaller calls. Rows that share their prompt train it once (EnginePolicy
// sharePrefixes, model/prefix-train.ts) in less memory than whole: the plan must bound that peak too, and stays near
// the peak of the same step trained whole.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { loadHfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { loadHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import { tinyArithProblems } from '../../src/data/tiny-task/dataset.ts';
import { directoryFileSource } from '../../src/cli/fs-source.ts';
import type { ExperimentConfig } from '../../src/rl/config.ts';
import { planConfig, rolloutsPerStep, rowsPerStep } from '../../src/rl/plan.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { policyForConfig } from '../../src/rl/policy-setup.ts';
import { createTrainer } from '../../src/rl/trainer.ts';
import { TINY_MODEL_DIR } from '../helpers/rl/tiny-tokenizer.ts';

async function measuredPeak(
  config: ExperimentConfig,
  evalCount = 8,
  sharePrefixes?: boolean,
  keepKvBytes?: number,
): Promise<{ peak: number; planned: number }> {
  const source = directoryFileSource(TINY_MODEL_DIR);
  const [checkpoint, tokenizer] = await Promise.all([loadHfCheckpoint(source), loadHfTokenizer(source)]);
  const backend = new CpuBackend();
  const policy = policyForConfig(config, {
    backend,
    checkpoint,
    decoder: tokenizer,
    seed: 0,
    sharePrefixes,
    keepKvBytes,
  });
  const problems = tinyArithProblems({ split: 'train', count: 8, seed: 7 });
  const held = tinyArithProblems({ split: 'train', count: evalCount, seed: 11 });
  const trainer = createTrainer({ config, policy, tokenizer, train: problems, eval: held });
  await trainer.step();
  const plan = planConfig(
    config,
    { config: checkpoint.config, name: 'tiny-rema' },
    { backend: 'cpu', ...(keepKvBytes !== undefined ? { keepKvBytes } : {}) },
  );
  return { peak: backend.ledger().peakBytes, planned: plan.bytes.total };
}

describe('planConfig vs a real trainer step', () => {
  it('counts the episodes and rows of a shared single-turn step with 3 answers per plan (metaFollowers)', async () => {
    const config: ExperimentConfig = {
      ...getPreset('rema-singleturn'),
      paramMode: 'shared',
      filterGroups: false,
      phaseEpochs: 0,
      planSamples: 0,
      evalEvery: 0,
      evalBeforeTrain: false,
      steps: 1,
      problemsPerStep: 2,
      groupSize: 2,
      metaFollowers: 3,
    };
    const source = directoryFileSource(TINY_MODEL_DIR);
    const [checkpoint, tokenizer] = await Promise.all([loadHfCheckpoint(source), loadHfTokenizer(source)]);
    const policy = policyForConfig(config, { backend: new CpuBackend(), checkpoint, decoder: tokenizer, seed: 0 });
    const train = tinyArithProblems({ split: 'train', count: 2, seed: 7 });
    const trainer = createTrainer({ config, policy, tokenizer, train, eval: train });
    const { rollouts, metrics } = await trainer.step();
    expect(rollouts.length).toBe(12); // 2 problems x 2 plans x 3 answers
    expect(rolloutsPerStep(config)).toBe(rollouts.length);
    const plan = planConfig(config, { config: checkpoint.config, name: 'tiny-rema' }, { backend: 'cpu' });
    expect(plan.shape.decode.sequences).toBe(Math.min(config.decodeBatch, rollouts.length));
    // shared weights: one meta row per plan, one reasoning row per answer (rows without trained tokens included)
    expect(rowsPerStep(config)).toBeGreaterThanOrEqual(metrics.rows_trained ?? 0);
    expect(rowsPerStep(config)).toBe(4 + 12);
  });

  const cases: Array<[string, Partial<ExperimentConfig> & { preset: string }]> = [
    ['tiny-default (multi-turn, 2 problems x G 4)', { preset: 'tiny-default', problemsPerStep: 2, groupSize: 4 }],
    [
      'tiny-default with 2 mini-batches and 3 rounds',
      { preset: 'tiny-default', problemsPerStep: 2, groupSize: 4, miniBatches: 2, maxTurns: 3 },
    ],
    ['vrp-rl', { preset: 'vrp-rl', problemsPerStep: 2, groupSize: 4, prompts: 'tiny' }],
  ];
  it('a held-out evaluation of 64 problems after a step of 1 problem x G 4: the plan bounds the ledger peak', async () => {
    // the last step evaluates: 64 distinct prompts decoded together, 16 times the rollout's 4 sequences
    const config: ExperimentConfig = {
      ...getPreset('tiny-default'),
      evalEvery: 1,
      evalBeforeTrain: false,
      steps: 1,
      problemsPerStep: 1,
      groupSize: 4,
      miniBatches: 4,
      evalSize: 64,
    };
    const { peak, planned } = await measuredPeak(config, 64);
    const { peak: trainingOnly } = await measuredPeak({ ...config, evalSize: 1 }, 1);
    console.info(
      `with the evaluation: planned ${planned} B, ledger peak ${peak} B (${(planned / peak).toFixed(2)}x); without: ledger peak ${trainingOnly} B`,
    );
    expect(peak).toBeGreaterThan(trainingOnly); // the evaluation is the step's peak
    expect(planned).toBeGreaterThanOrEqual(peak);
    expect(planned).toBeLessThanOrEqual(1.15 * peak); // greedy messages of the tiny model run near their caps
  });

  it('the same evaluation decoded 16 at a time (decodeBatch): the plan follows the smaller ledger peak within 15%', async () => {
    const config: ExperimentConfig = {
      ...getPreset('tiny-default'),
      evalEvery: 1,
      evalBeforeTrain: false,
      steps: 1,
      problemsPerStep: 1,
      groupSize: 4,
      miniBatches: 4,
      evalSize: 64,
      decodeBatch: 16,
    };
    // nothing kept between calls, so every turn's prompt is prefilled whole, as the plan counts it (kept, the later
    // turns prefill less and the first turns' prompts, at full length in the plan, set the peak: bounded above)
    const { peak, planned } = await measuredPeak(config, 64, undefined, 0);
    const uncapped = planConfig(
      { ...config, decodeBatch: 64 },
      { config: (await loadHfCheckpoint(directoryFileSource(TINY_MODEL_DIR))).config, name: 'tiny-rema' },
      { backend: 'cpu', keepKvBytes: 0 },
    );
    console.info(
      `decodeBatch 16: planned ${planned} B, ledger peak ${peak} B (${(planned / peak).toFixed(2)}x); planned at 64: ${uncapped.bytes.total} B`,
    );
    expect(uncapped.bytes.total).toBeGreaterThan(1.15 * peak); // the cap matters here
    expect(planned).toBeGreaterThanOrEqual(peak);
    expect(planned).toBeLessThanOrEqual(1.15 * peak);
  });

  it.each(cases)('%s: the plan bounds the ledger peak', async (_label, { preset, ...over }) => {
    const config: ExperimentConfig = { ...getPreset(preset), evalEvery: 0, evalBeforeTrain: false, steps: 1, ...over };
    const { peak, planned } = await measuredPeak(config);
    const { peak: whole } = await measuredPeak(config, 8, false);
    console.info(
      `${_label}: planned ${planned} B, ledger peak ${peak} B (${(planned / peak).toFixed(2)}x), trained whole ${whole} B (${(planned / whole).toFixed(2)}x)`,
    );
    expect(planned).toBeGreaterThanOrEqual(peak);
    expect(planned).toBeGreaterThanOrEqual(whole);
    expect(planned).toBeLessThanOrEqual(2.5 * whole);
  });
  it('activationBudgetMiB: recomputing the layers (0) lowers the training peak, in the ledger and in the plan', async () => {
    const config: ExperimentConfig = {
      ...getPreset('tiny-default'),
      evalBeforeTrain: false,
      evalEvery: 1000,
      problemsPerStep: 2,
      groupSize: 4,
    };
    const kept = await measuredPeak(config, 1);
    const recomputed = await measuredPeak({ ...config, activationBudgetMiB: 0 }, 1);
    expect(recomputed.peak).toBeLessThan(kept.peak);
    expect(recomputed.planned).toBeLessThan(kept.planned);
    for (const r of [kept, recomputed]) expect(r.planned).toBeGreaterThanOrEqual(r.peak);
  });
});
