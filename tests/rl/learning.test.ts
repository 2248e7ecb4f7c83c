// The whole RL stack learns: the embedded tiny model, trained by the tiny-default protocol (multi-turn ReMA,
// GRPO, turn-level ratio) on four fixed problems, raises its sampled success rate on them within 12 steps.
// Every step samples all four problems x 8, so reward_mean estimates the sampled accuracy from 32 episodes.
// A sign error in the advantages or in dL/dlogp would make it fall instead. All four problems have a loss event,
// which the shipped model's plans misread as a gain (see its model card), so there is a plan to fix.
// (Measured on the shipped weights at lr 3e-3: seed 3 goes from 0.17 over the first three steps to 0.41 over the
// last three, seed 5 from 0.09 to 0.40; seed 4 collapses to 0 instead, and lr 2e-3 stays flat for 8 steps, so
// this fixed seed and lr are a learning signal, not a claim that every seed learns on four problems.)
import { describe, expect, it } from 'vitest';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { loadHfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { loadHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import { tinyArithProblems } from '../../src/data/tiny-task/dataset.ts';
import { directoryFileSource } from '../../src/cli/fs-source.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { policyForConfig } from '../../src/rl/policy-setup.ts';
import { createTrainer } from '../../src/rl/trainer.ts';
import { TINY_MODEL_DIR } from '../helpers/rl/tiny-tokenizer.ts';

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('learning on the embedded model', () => {
  it('raises the reward on a fixed set of four problems', async () => {
    const source = directoryFileSource(TINY_MODEL_DIR);
    const [checkpoint, tokenizer] = await Promise.all([loadHfCheckpoint(source), loadHfTokenizer(source)]);
    const config = { ...getPreset('tiny-default'), problemsPerStep: 4, groupSize: 8, lr: 3e-3, evalEvery: 0, seed: 3 };
    const policy = policyForConfig(config, {
      backend: await WasmBackend.create(),
      checkpoint,
      decoder: tokenizer,
      seed: 0,
    });
    const problems = tinyArithProblems({ split: 'train', count: 4, seed: 7 });
    const trainer = createTrainer({ config, policy, tokenizer, train: problems, eval: problems });
    const rewards: number[] = [];
    for (let i = 0; i < 12; i++) rewards.push((await trainer.step()).metrics.reward_mean);
    expect(mean(rewards.slice(-3))).toBeGreaterThan(mean(rewards.slice(0, 3)) + 0.2);
  });
});
