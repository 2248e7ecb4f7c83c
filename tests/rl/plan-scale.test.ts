// `rema plan` at absurd sizes: its time does not grow with the square of the layer count (parameter counts in
// closed form), sizes beyond the field table's ranges are refused, and the plan grows with the step's workload
// (problemsPerStep x groupSize rows in host memory), so 1e9 rollouts never plan as "fits".
import { describe, expect, it } from 'vitest';
import { expectedParameterShapes, parameterCounts } from '../../src/engine/model/params.ts';
import { validateConfig } from '../../src/rl/config.ts';
import { planConfig } from '../../src/rl/plan.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { tinyConfig } from '../helpers/engine/model-random.ts';

describe('plan at scale', () => {
  it('counts parameters in closed form, equal to the per-tensor shapes', () => {
    for (const over of [{}, { attentionBias: true }, { tieWordEmbeddings: true, numLayers: 5 }]) {
      const config = tinyConfig(over);
      const shapes = [...expectedParameterShapes(config).values()];
      expect(parameterCounts(config)).toEqual({
        total: shapes.reduce((s, sh) => s + sh.reduce((a, b) => a * b, 1), 0),
        vectors: shapes.reduce((s, sh) => s + (sh.length < 2 ? sh[0] : 0), 0),
      });
    }
  });

  it('plans a million layers in well under a second, with a suggestion search over them', () => {
    const model = { config: tinyConfig({ numLayers: 1_000_000, hiddenSize: 64, intermediateSize: 128 }), name: 'deep' };
    const t0 = performance.now();
    const plan = planConfig(getPreset('tiny-default'), model, { backend: 'wasm' });
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(plan.fits).toBe(false);
  });

  it('refuses sizes beyond the config ranges, naming the field', () => {
    expect(() => validateConfig({ groupSize: 1e9 }, 'cli', getPreset('tiny-default'))).toThrow(/field "groupSize"/);
    expect(() => validateConfig({ problemsPerStep: 1e5 }, 'cli', getPreset('tiny-default'))).toThrow(
      /field "problemsPerStep"/,
    );
  });

  it("grows with the step's rollouts and refuses a step whose rows do not fit in host memory", () => {
    const base = getPreset('tiny-default');
    const model = { config: tinyConfig(), name: 'tiny' };
    const small = planConfig(base, model, { backend: 'cpu' });
    const twice = planConfig({ ...base, groupSize: base.groupSize * 2 }, model, { backend: 'cpu' });
    expect(twice.hostBytes).toBe(small.hostBytes * 2);
    const huge = planConfig(validateConfig({ problemsPerStep: 10_000, groupSize: 1_024 }, 'cli', base), model, {
      backend: 'cpu',
    });
    expect(huge.fits).toBe(false);
    expect(huge.note).toMatch(
      /one step's training rows take \d+ bytes of host memory \(10000 problems x 1024 rollouts\)/,
    );
  });
});
