// config.decodeBatch splits generation into calls of at most that many sequences (EnginePolicy maxDecodeBatch):
// on the real engine (CPU backend, the shipped tiny-rema checkpoint), a training step's sampled rollouts and a
// greedy held-out evaluation are the same with a cap of 3 as with the default 64 (each sequence samples from the
// stream of its index in the whole call), while the evaluation's peak memory is smaller.
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../src/cli/fs-source.ts';
import { loadHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import type { ChatTokenizer } from '../../src/data/tokenizer.ts';
import { tinyArithProblems } from '../../src/data/tiny-task/dataset.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { loadHfCheckpoint, type HfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { validateConfig, type ExperimentConfig } from '../../src/rl/config.ts';
import type { RolloutRecord } from '../../src/rl/metrics.ts';
import { policyForConfig } from '../../src/rl/policy-setup.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { createTrainer } from '../../src/rl/trainer.ts';

const files = directoryFileSource(resolve(import.meta.dirname, '../../public/models/tiny-rema'), 'tiny-rema');
let checkpoint: HfCheckpoint;
let tokenizer: ChatTokenizer;

beforeAll(async () => {
  [checkpoint, tokenizer] = await Promise.all([loadHfCheckpoint(files), loadHfTokenizer(files)]);
});

function config(decodeBatch: number): ExperimentConfig {
  return validateConfig(
    {
      problemsPerStep: 4,
      groupSize: 2,
      maxTurns: 2,
      maxTokensPerTurn: 24,
      evalSize: 5,
      evalEvery: 0,
      evalBeforeTrain: false,
      temperature: 1,
      seed: 7,
      decodeBatch,
    },
    'test',
    getPreset('tiny-default'),
  );
}

/** One greedy evaluation, the backend's peak bytes so far (the evaluation's decode), then one sampled training step. */
async function run(decodeBatch: number) {
  const backend = new CpuBackend();
  const c = config(decodeBatch);
  const policy = policyForConfig(c, { backend, checkpoint, decoder: tokenizer });
  const trainer = createTrainer({
    config: c,
    policy,
    tokenizer,
    train: tinyArithProblems({ split: 'train', count: 8, seed: 3 }),
    eval: tinyArithProblems({ split: 'heldout', count: 5, seed: 3 }),
  });
  const held = await trainer.evaluate();
  const peak = backend.ledger().peakBytes;
  const step = await trainer.step();
  policy.dispose();
  return { step, held, peak };
}

const episodes = (rs: readonly RolloutRecord[]) =>
  rs.map((r) => ({ reward: r.reward, turns: r.turns.map((t) => `${t.role}: ${t.text}`) }));

describe('config.decodeBatch', () => {
  it('a cap of 3 sequences gives the same sampled rollouts and greedy evaluation as the default, with a smaller peak', async () => {
    const [all, capped] = [await run(64), await run(3)];
    expect(all.step.rollouts.length).toBe(8);
    expect(all.step.rollouts.some((r) => r.turns.some((t) => t.text.length > 0))).toBe(true);
    expect(episodes(capped.step.rollouts)).toEqual(episodes(all.step.rollouts));
    expect(capped.step.metrics.loss).toBe(all.step.metrics.loss);
    expect(episodes(capped.held.rollouts)).toEqual(episodes(all.held.rollouts));
    expect(capped.peak).toBeLessThan(all.peak);
  }, 60_000);

  it('refuses a cap below 1 or not an integer, naming the field', () => {
    expect(() => config(0)).toThrow(/decodeBatch/);
    expect(() => config(2.5)).toThrow(/decodeBatch/);
    // past the validator (a hand-made config), the engine refuses it instead of looping forever
    expect(() =>
      policyForConfig({ ...config(3), decodeBatch: 0 }, { backend: new CpuBackend(), checkpoint, decoder: tokenizer }),
    ).toThrow('createEnginePolicy: maxDecodeBatch must be a positive integer, got 0');
  });
});
