// The experiment config: every preset is valid and survives JSON, errors name the source and the field,
// `extends` picks a preset base, and the presets carry the paper / code settings they claim.
import { describe, expect, it } from 'vitest';
import { CONFIG_VERSION, FIELD_SPECS, validateConfig } from '../../../src/rl/config.ts';
import { getPreset, PRESET_NAMES, resolveConfig } from '../../../src/rl/presets.ts';

describe('presets', () => {
  it('every preset validates and round-trips through JSON', () => {
    for (const name of PRESET_NAMES) {
      const p = getPreset(name);
      expect(validateConfig(JSON.parse(JSON.stringify(p)), name)).toEqual(p);
      expect(Object.keys(p).toSorted()).toEqual(Object.keys(FIELD_SPECS).toSorted());
    }
  });
  it('include the ones the paper and the issues name', () => {
    for (const name of [
      'tiny-default',
      'rema-multiturn',
      'rema-singleturn',
      'vrp',
      'vrp-rl',
      'mrp-rl',
      'ablation-token-ratio',
      'ablation-separate-params',
    ])
      expect(PRESET_NAMES).toContain(name);
  });
  it('rema-multiturn keeps the released code algorithm settings', () => {
    const c = getPreset('rema-multiturn');
    expect(c).toMatchObject({
      mode: 'multi-turn',
      paramMode: 'shared',
      advantage: 'grpo',
      stdScaling: 'group',
      advEps: 1e-6,
      ratio: 'turn-geometric',
      aggregation: 'trajectory',
      clipLow: 0.2,
      clipHigh: 0.2,
      dualClip: 3,
      logRatioClip: 3,
      klBeta: 0,
      entropyCoef: 0,
      ppoEpochs: 1,
      miniBatches: 1,
      temperature: 1,
      stopWhenTruncated: true,
      maskUnfinishedReward: true,
    });
    const paper = getPreset('paper-multiturn-7b');
    expect(paper).toMatchObject({
      problemsPerStep: 128,
      groupSize: 16,
      maxTurns: 30,
      maxTokensPerTurn: 512,
      maxPromptTokens: 4096,
      lr: 1e-6,
    });
  });
  it('tiny-default is 8 problems x group 8, multi-turn, on the embedded model', () => {
    expect(getPreset('tiny-default')).toMatchObject({
      problemsPerStep: 8,
      groupSize: 8,
      mode: 'multi-turn',
      modelSource: 'embedded',
      prompts: 'tiny',
    });
  });
  it('the ablations change only what they name', () => {
    const base = getPreset('rema-multiturn');
    const diff = (name: string) =>
      Object.entries(getPreset(name))
        .filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(base[k as keyof typeof base]))
        .map(([k]) => k)
        .toSorted();
    expect(diff('ablation-token-ratio')).toEqual(['aggregation', 'name', 'ratio']);
    expect(diff('ablation-separate-params')).toEqual(['name', 'paramMode']);
  });
  it('returns copies and lists the names of an unknown preset', () => {
    getPreset('vrp').loraTargets.push('x');
    expect(getPreset('vrp').loraTargets).not.toContain('x');
    expect(() => getPreset('nope')).toThrow(/unknown preset "nope"; presets: tiny-default/);
  });
});

describe('validateConfig', () => {
  it('names the source and each bad field', () => {
    const bad = { ...getPreset('tiny-default'), clipLow: '0.2', mode: 'multi', groupSize: 0, bogus: 1 };
    let message = '';
    try {
      validateConfig(bad, 'runs/a.json');
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^runs\/a\.json: invalid config/);
    expect(message).toMatch(/field "clipLow" must be a number in \[0, 1\), got "0\.2"/);
    expect(message).toMatch(/field "mode" must be one of multi-turn \| single-turn/);
    expect(message).toMatch(/field "groupSize" must be an integer in \[1, 1024\], got 0/);
    expect(message).toMatch(/unknown field "bogus"/);
  });
  it('requires every field without a base and checks the version', () => {
    expect(() => validateConfig({ version: CONFIG_VERSION }, 'x')).toThrow(/missing field "seed"/);
    expect(() => validateConfig({ ...getPreset('vrp'), version: 99 }, 'x')).toThrow(/field "version" must be 1/);
    expect(() => validateConfig('nope', 'x')).toThrow(/x: a config must be a JSON object/);
  });
  it('checks rules across fields', () => {
    const base = getPreset('rema-multiturn');
    expect(() => validateConfig({ filterEpsMin: 0.9, filterEpsMax: 0.1 }, 'x', base)).toThrow(
      /filterEpsMin.*must be <= filterEpsMax/,
    );
    expect(() => validateConfig({ trainSet: 'file' }, 'x', base)).toThrow(/field "trainFile" must name a JSONL file/);
    expect(() => validateConfig({ mode: 'vrp-rl', paramMode: 'separate', maxTurns: 1 }, 'x', base)).toThrow(
      /paramMode" must be "shared"/,
    );
    expect(() => validateConfig({ mode: 'single-turn' }, 'x', base)).toThrow(/field "maxTurns" must be 1/);
    expect(() => validateConfig({ mode: 'vrp', maxTurns: 1 }, 'x', base)).toThrow(/"steps" must be 0 for mode "vrp"/);
    expect(() => validateConfig({ dualClip: 1 }, 'x', base)).toThrow(
      /dualClip" must be null or a number in \(1, inf\)/,
    );
    expect(validateConfig({ dualClip: null }, 'x', base).dualClip).toBeNull();
  });
});

describe('resolveConfig', () => {
  it('fills missing fields from the preset named by "extends" (default tiny-default)', () => {
    const c = resolveConfig({ extends: 'ablation-token-ratio', seed: 5 }, 'f.json');
    expect(c.ratio).toBe('token');
    expect(c.seed).toBe(5);
    expect(resolveConfig({}, 'f.json')).toEqual(getPreset('tiny-default'));
    expect(() => resolveConfig({ extends: 'zzz' }, 'f.json')).toThrow(/f\.json: field "extends": unknown preset "zzz"/);
  });
});
