// A Reset to a config whose problems the page cannot open (the train set "file": a path on the user's disk) is a
// recoverable error: the running trainer stays and trains on (it was a fatal error that Restart repeated).
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/rl/presets.ts';
import { folderFiles, startSession } from './session-driver.ts';

const folder = resolve(import.meta.dirname, '../fixtures/hf/tiny-qwen2.5-instruct');

const config = {
  ...getPreset('tiny-default'),
  prompts: 'tiny' as const,
  maxPromptTokens: 4096,
  problemsPerStep: 1,
  groupSize: 2,
  maxTurns: 1,
  maxTokensPerTurn: 4,
  evalEvery: 0,
  evalBeforeTrain: false,
  trainSize: 8,
  steps: 5,
};

describe('Reset to a train set the page cannot open', () => {
  it('reports a non-fatal error and the running trainer keeps training', async () => {
    const s = startSession();
    await s.request({ type: 'load', model: { kind: 'local', name: 'tiny-qwen', files: folderFiles(folder) }, backend: 'cpu', config }, 'ready');
    await s.request({ type: 'step' }, 'step');
    const err = await s.request({ type: 'reset', config: { ...config, trainSet: 'file', trainFile: '/home/me/train.jsonl' } }, 'error');
    expect(err).toMatchObject({ type: 'error', fatal: false });
    if (err.type === 'error') expect(err.message).toContain('file');
    const step = await s.request({ type: 'step' }, 'step');
    expect(step.metrics.step).toBe(2);
    expect(s.events.some((e) => e.type === 'status' && e.status === 'failed')).toBe(false);
  });
});
