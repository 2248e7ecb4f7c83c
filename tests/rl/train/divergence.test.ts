// Divergence on the real engine with the embedded tiny model (tiny-default protocol): an absurd learning rate
// blows the LoRA weights up in one update, and the next steps' log-probs, entropy, loss and gradient norm are NaN
// or infinite. Each such step is flagged in its metrics (which quantities, the streak, skipped updates) instead of
// a silent 0 / null, and the trainer asks to stop after config.maxNonFiniteSteps such steps in a row.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { loadHfCheckpoint } from '../../../src/engine/io/hf-model.ts';
import { loadHfTokenizer } from '../../../src/data/hf-tokenizer.ts';
import { tinyArithProblems } from '../../../src/data/tiny-task/dataset.ts';
import { directoryFileSource } from '../../../src/cli/fs-source.ts';
import type { ExperimentConfig } from '../../../src/rl/config.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { policyForConfig } from '../../../src/rl/policy-setup.ts';
import { createTrainer, type StepResult, type TrainerEvent } from '../../../src/rl/trainer.ts';
import { TINY_MODEL_DIR } from '../../helpers/rl/tiny-tokenizer.ts';

async function runUntilStop(over: Partial<ExperimentConfig>, maxSteps: number) {
  const source = directoryFileSource(TINY_MODEL_DIR);
  const [checkpoint, tokenizer] = await Promise.all([loadHfCheckpoint(source), loadHfTokenizer(source)]);
  const config: ExperimentConfig = {
    ...getPreset('tiny-default'),
    problemsPerStep: 2,
    groupSize: 4,
    evalEvery: 0,
    steps: 50,
    ...over,
  };
  const policy = policyForConfig(config, { backend: new CpuBackend(), checkpoint, decoder: tokenizer, seed: 0 });
  const events: TrainerEvent[] = [];
  const problems = tinyArithProblems({ split: 'train', count: 8, seed: 7 });
  const trainer = createTrainer({
    config,
    policy,
    tokenizer,
    train: problems,
    eval: problems,
    onEvent: (e) => events.push(e),
  });
  const results: StepResult[] = [];
  for (let i = 0; i < maxSteps; i++) {
    const r = await trainer.step();
    results.push(r);
    if (r.stop) break;
  }
  return { results, events, trainer };
}

describe('trainer divergence', () => {
  it('an absurd lr flags every non-finite step and stops after maxNonFiniteSteps of them', async () => {
    const { results, events, trainer } = await runUntilStop({ lr: 1e30, maxNonFiniteSteps: 2 }, 8);
    const first = results[0].metrics;
    expect(first.nonfinite).toBeUndefined();
    expect(Number.isFinite(first.grad_norm)).toBe(true);
    expect(results.filter((r) => r.metrics.nonfinite).length).toBe(2);
    const last = results[results.length - 1];
    expect(last.metrics.nonfinite).toBe(true);
    expect(last.metrics.nonfinite_streak).toBe(2);
    expect(last.metrics.nonfinite_quantities).toEqual(['logprobs', 'entropy', 'loss', 'grad_norm']);
    expect(last.metrics.updates_skipped).toBe(1);
    // honest numbers: the loss is NaN (null in metrics.jsonl, explained by nonfinite_quantities), not the
    // placeholder 0 the fully on-policy ratio of 1 used to give
    expect(Number.isNaN(last.metrics.loss)).toBe(true);
    expect(Number.isNaN(last.metrics.grad_norm)).toBe(true);
    const json = JSON.parse(JSON.stringify(last.metrics)) as Record<string, unknown>;
    expect([json.loss, json.grad_norm, json.entropy]).toEqual([null, null, null]);
    expect(last.stop).toMatch(new RegExp(`diverged at step ${last.metrics.step}: non-finite `));
    expect(last.stop).toMatch(/training stopped after 2 such steps in a row \(maxNonFiniteSteps 2\)/);
    expect(last.stop).toMatch(/Lower the learning rate \(lr 1e\+30\)/);
    expect(results.slice(0, -1).every((r) => r.stop === undefined)).toBe(true);
    expect(events.some((e) => e.type === 'log' && /diverged at step/.test(e.message))).toBe(true);
    expect(trainer.state().nonfiniteStreak).toBe(2);
  });

  it('maxNonFiniteSteps 0 never stops but still flags the steps', async () => {
    const { results } = await runUntilStop({ lr: 1e30, maxNonFiniteSteps: 0 }, 4);
    expect(results.length).toBe(4);
    expect(results.every((r) => r.stop === undefined)).toBe(true);
    expect(results.map((r) => r.metrics.nonfinite_streak ?? 0)).toEqual([0, 1, 2, 3]);
    expect(results[3].metrics.nonfinite).toBe(true);
  });
});
