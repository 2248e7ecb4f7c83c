// Exported run JSON re-imports to the same metrics; CSV flattens nested fields; CLI metrics.jsonl imports
// with line-numbered errors.
import { describe, expect, it } from 'vitest';
import { metricsToCsv, runToJson } from '../../../src/app/io/run-export.ts';
import { importRunFile, parseMetricsJsonl } from '../../../src/app/io/run-import.ts';
import type { SavedRun } from '../../../src/app/persist/run-types.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { metrics, rollout } from '../../helpers/app/records.ts';

const run: SavedRun = {
  id: 'run-1',
  name: 'tiny, "quoted"',
  createdAt: 1,
  updatedAt: 2,
  config: getPreset('tiny-default'),
  model: 'tiny-rema',
  backend: 'cpu: JavaScript',
  status: 'paused',
  metrics: [metrics(1), metrics(2, { eval_accuracy: 0.4 })],
  rollouts: [rollout(2, 0, 0)],
};

describe('run export and import', () => {
  it('JSON round-trips config, metrics and rollouts', () => {
    const back = importRunFile(runToJson(run), 'x.json');
    expect(back.metrics).toEqual(run.metrics);
    expect(back.config).toEqual(run.config);
    expect(back.rollouts).toEqual(run.rollouts);
    expect(back.status).toBe('imported');
    expect(back.name).toBe('tiny, "quoted" (imported)');
    expect(back.id).not.toBe(run.id);
  });

  it('CSV has one row per step and dotted columns, eval_accuracy blank where absent', () => {
    const lines = metricsToCsv(run.metrics).trim().split('\n');
    expect(lines).toHaveLength(3);
    const header = lines[0].split(',');
    expect(header[0]).toBe('step');
    expect(header).toContain('finish_reasons.finished');
    expect(header).toContain('time_s.rollout');
    const col = header.indexOf('eval_accuracy');
    expect(lines[1].split(',')[col]).toBe('');
    expect(lines[2].split(',')[col]).toBe('0.4');
  });

  it('imports a CLI metrics.jsonl and names the bad line', () => {
    const jsonl = `${JSON.stringify({ step: 1, reward_mean: 0.1, accuracy: 0.2 })}\n\n${JSON.stringify({ step: 2, reward_mean: 0.3 })}\n`;
    const imported = importRunFile(jsonl, 'metrics.jsonl');
    expect(imported.metrics.map((m) => m.reward_mean)).toEqual([0.1, 0.3]);
    expect(imported.metrics[0].finish_reasons.finished).toBe(0);
    expect(() => parseMetricsJsonl('{"step":1,"reward_mean":0}\n{oops', 'm.jsonl')).toThrow(
      /m\.jsonl line 2: not valid JSON/,
    );
    expect(() => parseMetricsJsonl('{"step":"one","reward_mean":0}', 'm.jsonl')).toThrow(
      /line 1: field "step" must be a number/,
    );
    expect(() => importRunFile('{"format":"something-else"}', 'r.json')).toThrow();
  });
});
