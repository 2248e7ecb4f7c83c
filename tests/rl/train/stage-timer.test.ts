// The step's stage timer: each timed call announces its stage before it runs, adds its own seconds to that stage
// (a stage timed twice adds up), leaves the other stages at 0, and passes the stage's result and errors through.
import { describe, expect, it } from 'vitest';
import { stageTimer } from '../../../src/rl/train/stage-timer.ts';
import type { TrainerEvent } from '../../../src/rl/trainer.ts';

/** busy-waits `ms` milliseconds of wall time (the timer reads the monotonic clock) */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('stageTimer', () => {
  it('announces each stage, sums a stage timed twice and leaves the others at 0', async () => {
    const events: TrainerEvent[] = [];
    const { times, timed } = stageTimer(7, (e) => events.push(e));
    const seen: number[] = [];
    expect(
      await timed('rollout', () => {
        seen.push(events.length);
        spin(20);
        return 'a';
      }),
    ).toBe('a');
    await timed('rollout', async () => spin(20));
    await timed('update', async () => spin(5));
    // the event precedes the stage's work
    expect(seen).toEqual([1]);
    expect(events).toEqual([
      { type: 'stage', step: 7, stage: 'rollout' },
      { type: 'stage', step: 7, stage: 'rollout' },
      { type: 'stage', step: 7, stage: 'update' },
    ]);
    expect(times.rollout).toBeGreaterThanOrEqual(0.04);
    expect(times.update).toBeGreaterThanOrEqual(0.005);
    expect({ ...times, rollout: 0, update: 0 }).toEqual({
      rollout: 0,
      reward: 0,
      old: 0,
      ref: 0,
      adv: 0,
      update: 0,
      eval: 0,
    });
  });

  it('passes a failing stage through without adding its time', async () => {
    const { times, timed } = stageTimer(1, () => {});
    await expect(timed('reward', () => Promise.reject(new Error('grading failed')))).rejects.toThrow('grading failed');
    expect(times.reward).toBe(0);
  });
});
