// Protocols as an ablation axis (src/rl/protocol-arms.ts): each arm runs its preset's protocol and algorithm with
// the base config's model, data, evaluation and step budget; VRP is evaluated only; the arms carry Table 1's names.
import { describe, expect, it } from 'vitest';
import { ablationRuns, validateAblation } from '../../src/rl/ablation.ts';
import { getPreset } from '../../src/rl/presets.ts';
import {
  COMPARE_PRESETS,
  MODEL_SIZED_ARM_FIELDS,
  pointConfig,
  presetArm,
  protocolRowName,
  SHARED_ARM_FIELDS,
} from '../../src/rl/protocol-arms.ts';

const base = { ...getPreset('tiny-default'), steps: 7, evalSize: 32, evalEvery: 3, trainSize: 50 };

describe('protocol arms', () => {
  it('take the protocol from the preset and the budget, data and evaluation from the base', () => {
    for (const name of ['vrp-rl', 'mrp-rl', 'tiny-default', 'rema-singleturn']) {
      const arm = presetArm(name, base);
      const preset = getPreset(name);
      for (const k of SHARED_ARM_FIELDS) expect(arm[k], `${name}.${k}`).toEqual(base[k]);
      for (const k of ['mode', 'advantage', 'ratio', 'maxTurns', 'maxTokensPerTurn', 'groupSize', 'lr'] as const)
        expect(arm[k], `${name}.${k}`).toEqual(preset[k]);
    }
    // the presets differ from the base where a protocol differs
    expect(presetArm('vrp-rl', base)).toMatchObject({ mode: 'vrp-rl', advantage: 'reinforce++', steps: 7 });
    expect(presetArm('mrp-rl', base).maxTokensPerTurn).toBe(96);
  });

  it("on another model than the preset's, take the base's learning rate, caps and batch shape too", () => {
    const real = getPreset('math133-qwen0.5b');
    for (const name of ['vrp-rl', 'mrp-rl', 'tiny-default']) {
      const arm = presetArm(name, real);
      const preset = getPreset(name);
      for (const k of [...SHARED_ARM_FIELDS, ...MODEL_SIZED_ARM_FIELDS])
        expect(arm[k], `${name}.${k}`).toEqual(real[k]);
      for (const k of ['mode', 'advantage', 'ratio', 'maxTurns', 'klBeta', 'aggregation'] as const)
        expect(arm[k], `${name}.${k}`).toEqual(preset[k]);
    }
    expect(presetArm('tiny-default', real)).toMatchObject({ lr: 2e-5, maxTokensPerTurn: 256, mode: 'multi-turn' });
  });

  it('VRP is the untrained baseline: no steps, one evaluation before them', () => {
    expect(presetArm('vrp', { ...base, evalBeforeTrain: false })).toMatchObject({
      mode: 'vrp',
      steps: 0,
      evalBeforeTrain: true,
      evalSize: 32,
    });
  });

  it("a point's other keys override its arm; a point without a preset overrides the base", () => {
    const c = pointConfig({ preset: 'vrp-rl', lr: 0.01 }, { preset: 'vrp-rl', lr: 0.01 }, base, 'p');
    expect([c.mode, c.lr, c.evalSize]).toEqual(['vrp-rl', 0.01, 32]);
    expect(pointConfig({ lr: 0.01 }, { lr: 0.01 }, base, 'p')).toMatchObject({ mode: 'multi-turn', lr: 0.01 });
    expect(() => pointConfig({ preset: 'nope' }, { preset: 'nope' }, base, 'sweep grid point preset=nope')).toThrow(
      /sweep grid point preset=nope: unknown preset "nope"/,
    );
    expect(() => pointConfig({ preset: 3 }, { preset: 3 }, base, 'p')).toThrow(/"preset" must be a preset name/);
  });

  it("names the arms as the paper's Table 1 does", () => {
    expect(COMPARE_PRESETS.map((p) => protocolRowName(getPreset(p)))).toEqual([
      'VRP (CoT)',
      'VRP_RL',
      'MRP_RL',
      'ReMA (multi-turn)',
    ]);
    expect(protocolRowName(getPreset('rema-singleturn'))).toBe('ReMA (single-turn)');
  });

  it("is an axis of the page's ablation: every arm and seed with the same evaluation and step budget", () => {
    const spec = { axes: [{ field: 'preset', values: [...COMPARE_PRESETS] }], seeds: [0, 1, 2] };
    expect(validateAblation(spec, base)).toHaveLength(4);
    const runs = ablationRuns(spec, base);
    expect(runs).toHaveLength(12);
    expect(new Set(runs.map((r) => `${r.config.evalSet}/${r.config.evalSize}/${r.config.evalEvery}`))).toEqual(
      new Set(['tiny-arith/32/3']),
    );
    expect(runs.map((r) => r.config.steps)).toEqual([0, 7, 7, 7, 0, 7, 7, 7, 0, 7, 7, 7]);
    expect(runs.map((r) => r.config.mode).slice(0, 4)).toEqual(['vrp', 'vrp-rl', 'mrp-rl', 'multi-turn']);
    expect(() => validateAblation({ axes: [{ field: 'preset', values: ['vrp', 'x'] }], seeds: [0] }, base)).toThrow(
      /unknown preset "x"/,
    );
  });
});
