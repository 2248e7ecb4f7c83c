// `rema train` (runTrain, in process) ends an Algorithm 1 run after its updateIterations, before `steps`: the
// summary says why, the last step is evaluated and checkpointed, and running the same folder again adds nothing.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTrain } from '../../src/cli/train.ts';
import { validateConfig } from '../../src/rl/config.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { writeRandomModel } from '../helpers/cli/random-model.ts';

const config = validateConfig(
  {
    ...getPreset('rema-singleturn'),
    modelSource: 'local',
    model: writeRandomModel(),
    trainSize: 4,
    problemsPerStep: 2,
    groupSize: 2,
    maxTokensPerTurn: 6,
    maxPromptTokens: 200,
    stopWhenTruncated: false,
    filterGroups: false,
    phaseEpochs: 1,
    planSamples: 1,
    updateIterations: 1,
    steps: 100,
    evalSize: 2,
    evalEvery: 0,
    evalBeforeTrain: false,
  },
  'test',
);

describe('rema train with updateIterations', () => {
  it('stops after one reasoning and one meta phase, not at steps', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rema-iter-')), 'run');
    const s = await runTrain({ config, out, backend: 'cpu', progress: 'none', saveEvery: 100 });
    // 4 problems x 1 plan / 2 per step, then 4 questions / 2 per step
    expect(s.metrics.map((m) => m.trained)).toEqual(['reasoning', 'reasoning', 'meta', 'meta']);
    expect(s.steps).toBe(4);
    expect(s.finished).toBe('Algorithm 1: 1 update iteration done (2 phases) at step 4');
    expect(s.stopped).toBeUndefined();
    expect(s.evals.map((e) => e.step)).toEqual([4]);
    const again = await runTrain({ config, out, backend: 'cpu', progress: 'none', saveEvery: 100 });
    expect([again.resumedFrom, again.steps, again.metrics.length]).toEqual([4, 4, 4]);
    expect(again.finished).toBe(s.finished);
  });
});
