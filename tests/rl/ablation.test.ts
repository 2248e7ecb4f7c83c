// The ablation spec shared by the page and `rema sweep` (src/rl/ablation.ts): runs in order with their configs,
// errors that name the field or value, the value / seed text the page reads, the link form, the stable id, and
// the per-run summary and summary CSV on real metrics records.
import { describe, expect, it } from 'vitest';
import { CONFIG_FIELDS } from '../../src/rl/config.ts';
import {
  ablationFieldList,
  ablationFields,
  ablationId,
  ablationRuns,
  decodeAblation,
  encodeAblation,
  parseSeeds,
  parseValueList,
  summarizeRun,
  summaryCsv,
  validateAblation,
} from '../../src/rl/ablation.ts';
import { getPreset } from '../../src/rl/presets.ts';

const base = getPreset('tiny-default');
const spec = { axes: [{ field: 'ratio', values: ['token', 'turn-geometric'] }], seeds: [0, 1] };

describe('ablation runs', () => {
  it('runs every config of a seed before the next seed, each config = base + point + seed', () => {
    const runs = ablationRuns(spec, base);
    expect(runs.map((r) => r.key)).toEqual([
      'ratio=token#0',
      'ratio=turn-geometric#0',
      'ratio=token#1',
      'ratio=turn-geometric#1',
    ]);
    expect(runs.map((r) => [r.config.ratio, r.config.seed])).toEqual([
      ['token', 0],
      ['turn-geometric', 0],
      ['token', 1],
      ['turn-geometric', 1],
    ]);
    expect(runs[0].config.groupSize).toBe(base.groupSize);
  });

  it('two fields make their product', () => {
    const runs = ablationRuns(
      {
        axes: [
          { field: 'ratio', values: ['token', 'turn-geometric'] },
          { field: 'groupSize', values: [2, 4] },
        ],
        seeds: [3],
      },
      base,
    );
    expect(runs.map((r) => r.label)).toEqual([
      'ratio=token,groupSize=2',
      'ratio=token,groupSize=4',
      'ratio=turn-geometric,groupSize=2',
      'ratio=turn-geometric,groupSize=4',
    ]);
  });

  it('names what is wrong', () => {
    expect(() => validateAblation({ axes: [{ field: 'nope', values: [1] }], seeds: [0] }, base)).toThrow(
      '"nope" is not a config field',
    );
    expect(() => validateAblation({ axes: [{ field: 'model', values: ['x'] }], seeds: [0] }, base)).toThrow(
      '"model" is not a config field an ablation can vary',
    );
    expect(() => validateAblation({ axes: [{ field: 'ratio', values: ['sideways'] }], seeds: [0] }, base)).toThrow(
      /ablation ratio=sideways[\s\S]*field "ratio"/,
    );
    expect(() => validateAblation({ axes: [], seeds: [0] }, base)).toThrow('one or two fields');
    expect(() => validateAblation({ axes: [{ field: 'lr', values: [1e-3] }], seeds: [0, 0] }, base)).toThrow(
      'a seed is listed twice',
    );
    expect(() => validateAblation({ axes: [{ field: 'lr', values: [1e-3, 1e-3] }], seeds: [0] }, base)).toThrow(
      '"lr" lists a value twice',
    );
    expect(ablationFields()).toContain('ratio');
    expect(ablationFields()).not.toContain('seed');
  });

  it('offers the fields of the config field table that have a knob, with its label and group', () => {
    const list = ablationFieldList();
    expect(list.find((f) => f.field === 'ratio')).toEqual({
      field: 'ratio',
      label: CONFIG_FIELDS.ratio.ui.label,
      group: CONFIG_FIELDS.ratio.ui.group,
    });
    const withKnob = Object.entries(CONFIG_FIELDS)
      .filter(([, d]) => 'ui' in d)
      .map(([k]) => k);
    expect(list.map((f) => f.field)).toEqual([
      'preset',
      ...withKnob.filter((k) => !['name', 'seed', 'trainFile', 'evalFile'].includes(k)),
    ]);
    expect(list.map((f) => f.field)).not.toContain('model');
  });
});

describe('ablation text', () => {
  it('reads values as JSON or plain strings, split outside brackets', () => {
    expect(parseValueList('token, turn-geometric')).toEqual(['token', 'turn-geometric']);
    expect(parseValueList('4, 0.5, true, null, ["q_proj","v_proj"]')).toEqual([
      4,
      0.5,
      true,
      null,
      ['q_proj', 'v_proj'],
    ]);
    expect(parseSeeds('0, 2')).toEqual([0, 2]);
    expect(parseSeeds('1-3')).toEqual([1, 2, 3]);
    expect(() => parseSeeds('0, x')).toThrow('"x" is not a whole number');
  });

  it('round-trips through the link form and keeps one id for one ablation', () => {
    const text = encodeAblation(spec);
    expect(decodeAblation(text)).toEqual(spec);
    expect(ablationId(decodeAblation(text), base)).toBe(ablationId(spec, base));
    expect(ablationId(spec, { ...base, lr: base.lr * 2 })).not.toBe(ablationId(spec, base));
    // a reloaded page cannot name a local folder: the id holds without the model
    expect(ablationId(spec, { ...base, modelSource: 'local', model: 'my-folder' })).toBe(ablationId(spec, base));
    expect(() => decodeAblation('{"axes":[]}')).toThrow('URL: ablation must be');
    expect(() => decodeAblation('nope')).toThrow('URL: ablation is not JSON');
  });
});

describe('ablation summary', () => {
  const time_s = { rollout: 1, reward: 0.5, old: 0, ref: 0, adv: 0, update: 0.5, eval: 0 };
  const log = (rewards: number[], evals: number[]) => ({
    metrics: rewards.map((reward_mean, i) => ({ step: i + 1, reward_mean, time_s })),
    evals: evals.map((accuracy, i) => ({ step: i * 2, accuracy })),
  });

  it('summarises a run: area under the reward curve, first / last / best evaluation, time', () => {
    const r = summarizeRun('ratio=token', { ratio: 'token' }, 0, log([0, 1, 1], [0.2, 0.6, 0.4]));
    expect(r.reward_auc).toBeCloseTo((0.5 + 1) / 2);
    expect([r.eval_first, r.eval_last, r.eval_best, r.steps, r.train_time_s]).toEqual([0.2, 0.4, 0.6, 3, 6]);
    expect([r.eval_n, r.tokens_trained]).toEqual([null, 0]);
  });

  it("counts the trained tokens over the steps and the last evaluation's size", () => {
    const r = summarizeRun('preset=vrp-rl', { preset: 'vrp-rl' }, 0, {
      metrics: [
        { step: 1, reward_mean: 0, time_s, tokens_trained: 120 },
        { step: 2, reward_mean: 1, time_s, tokens_trained: 80 },
      ],
      evals: [
        { step: 0, accuracy: 0.5, n: 64 },
        { step: 2, accuracy: 0.25, n: 32 },
      ],
    });
    expect([r.tokens_trained, r.eval_n]).toEqual([200, 32]);
  });

  it('writes one row per run and one per config with the spread over seeds', () => {
    const points = [{ ratio: 'token' }, { ratio: 'turn-geometric' }];
    const rows = [
      summarizeRun('ratio=token', points[0], 0, log([0, 1], [0.2])),
      summarizeRun('ratio=token', points[0], 1, log([1, 1], [0.4])),
      summarizeRun('ratio=turn-geometric', points[1], 0, log([0, 0], [0])),
    ];
    const lines = summaryCsv(['ratio'], points, rows).trim().split('\n');
    expect(lines[0].split(',').slice(0, 4)).toEqual(['label', 'ratio', 'seed', 'steps']);
    expect(lines).toHaveLength(1 + 3 + 2);
    const tokenAll = lines[4].split(',');
    expect(tokenAll.slice(0, 3)).toEqual(['ratio=token', 'token', 'all']);
    const header = lines[0].split(',');
    expect(Number(tokenAll[header.indexOf('eval_best')])).toBeCloseTo(0.3);
    expect(Number(tokenAll[header.indexOf('eval_best_min')])).toBeCloseTo(0.2);
    expect(Number(tokenAll[header.indexOf('eval_best_max')])).toBeCloseTo(0.4);
    expect(tokenAll[header.indexOf('seeds')]).toBe('2');
  });
});
