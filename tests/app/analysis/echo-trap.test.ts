// The Echo Trap alarm fires only when reward std, entropy and length all collapse together.
import { describe, expect, it } from 'vitest';
import { detectEchoTrap } from '../../../src/app/analysis/echo-trap.ts';
import { metrics } from '../../helpers/app/records.ts';

const healthy = [0, 1, 2].map((s) => metrics(s));

describe('detectEchoTrap', () => {
  it('stays quiet on a healthy run and on too few steps', () => {
    expect(detectEchoTrap(healthy).alarm).toBe(false);
    expect(detectEchoTrap([...healthy, ...[3, 4, 5].map((s) => metrics(s))]).alarm).toBe(false);
    const collapsed = [3, 4].map((s) =>
      metrics(s, { reward_std: 0, entropy: 0.1, len_meta_mean: 1, len_reason_mean: 1 }),
    );
    expect(detectEchoTrap([...healthy.slice(0, 2), ...collapsed]).alarm).toBe(false);
  });

  it('fires when all three collapse, naming the first step of the window', () => {
    const collapsed = [3, 4, 5].map((s) =>
      metrics(s, { reward_std: 0.02, entropy: 0.1, len_meta_mean: 2, len_reason_mean: 3 }),
    );
    const report = detectEchoTrap([...healthy, ...collapsed]);
    expect(report.alarm).toBe(true);
    expect(report.sinceStep).toBe(3);
    expect(report.rewardStd.ratio).toBeCloseTo(0.02 / 0.4);
    expect(report.length.ratio).toBeCloseTo(5 / 50);
  });

  it('does not fire when only two of the three collapse', () => {
    const entropyKept = [3, 4, 5].map((s) => metrics(s, { reward_std: 0.01, len_meta_mean: 1, len_reason_mean: 1 }));
    expect(detectEchoTrap([...healthy, ...entropyKept]).alarm).toBe(false);
    const lengthKept = [3, 4, 5].map((s) => metrics(s, { reward_std: 0.01, entropy: 0.05 }));
    expect(detectEchoTrap([...healthy, ...lengthKept]).alarm).toBe(false);
  });
});
