// Algorithm 1's "#Update Iteration" as a stopping rule of its own: after updateIterations pairs of phases the
// trainer says the run is over (finished()), evaluates on that step and refuses a further step, whatever `steps`
// says; the CLI ends the run there. Real engine, random tiny model.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/rl/config.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { makeTrainer, smallConfig } from '../../helpers/rl/trainer-setup.ts';

const config = smallConfig('rema-singleturn', {
  startAgent: 'reasoning',
  phaseEpochs: 1,
  planSamples: 2,
  filterGroups: false,
  updateIterations: 1,
  stopWhenTruncated: false,
  steps: 300,
  evalSize: 2,
});

describe('update iterations', () => {
  it('ends the run after one reasoning phase (8 problems x 2 plans, 2 prompts per step) and one meta phase', async () => {
    const { trainer } = makeTrainer(validateConfig(config, 'test'));
    const trained: string[] = [];
    let last = null;
    while (trainer.finished() === null) {
      last = await trainer.step();
      trained.push(last.metrics.trained ?? '');
      expect(trained.length).toBeLessThan(20);
    }
    // 16 (question, plan) prompts / 2 per step, then 8 questions / 2 per step
    expect(trained).toEqual([...Array(8).fill('reasoning'), ...Array(4).fill('meta')]);
    expect(trainer.finished()).toBe('Algorithm 1: 1 update iteration done (2 phases) at step 12');
    expect(last?.eval?.n).toBe(2);
    await expect(trainer.step()).rejects.toThrow(/the run is over: Algorithm 1: 1 update iteration done/);
  });

  it('needs Algorithm 1 phases; the paper preset runs 10 iterations', () => {
    expect(() => validateConfig({ updateIterations: 3 }, 'f.json', getPreset('rema-multiturn'))).toThrow(
      /field "updateIterations" \(3\) counts Algorithm 1's phases and needs phaseEpochs > 0/,
    );
    expect(getPreset('paper-singleturn-7b')).toMatchObject({ updateIterations: 10, phaseEpochs: 4, planSamples: 4 });
  });
});
