// A Reset to a config whose problems the page cannot open (the train set "file": a path on the user's disk) is a
// recoverable error: the running trainer stays and trains on (it was a fatal error that Restart repeated).
import { describe, expect, it } from 'vitest';
import { fixtureConfig, loadFixture, startSession } from '../../helpers/app/session-driver.ts';

const config = fixtureConfig({ maxTurns: 1, maxTokensPerTurn: 4, evalBeforeTrain: false, steps: 5 });

describe('Reset to a train set the page cannot open', () => {
  it('reports a non-fatal error and the running trainer keeps training', async () => {
    const s = startSession();
    await loadFixture(s, config);
    await s.request({ type: 'step' }, 'step');
    const err = await s.request(
      { type: 'reset', config: { ...config, trainSet: 'file', trainFile: '/home/me/train.jsonl' } },
      'error',
    );
    expect(err).toMatchObject({ type: 'error', fatal: false });
    if (err.type === 'error') expect(err.message).toContain('file');
    const step = await s.request({ type: 'step' }, 'step');
    expect(step.metrics.step).toBe(2);
    expect(s.events.some((e) => e.type === 'status' && e.status === 'failed')).toBe(false);
  });
});
