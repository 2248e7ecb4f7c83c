// The status line's progress during an evaluation and a rollout, from the worker's session on the real engine:
// "eval d/N episodes done" with N the held-out episodes (it read "eval 381/0": generated tokens over nothing).
import { describe, expect, it } from 'vitest';
import { fixtureConfig, loadFixture, startSession } from '../../helpers/app/session-driver.ts';

const config = fixtureConfig({ evalSize: 3 });

describe('evaluation and rollout progress', () => {
  it('reads done / total episodes, never a total of 0', async () => {
    const s = startSession();
    await loadFixture(s, config);
    if (!s.events.some((e) => e.type === 'evaluation')) await s.request({ type: 'pause' }, 'evaluation');
    await s.request({ type: 'step' }, 'step');
    const lines = s.events.flatMap((e) => (e.type === 'activity' ? [e.text] : []));
    const evalLines = lines.filter((l) => l.startsWith('eval '));
    const rolloutLines = lines.filter((l) => l.startsWith('rollout '));
    expect(evalLines.length).toBeGreaterThan(0);
    // (the session sends at most one activity line per 100 ms, so a fast rollout may show none)
    for (const l of evalLines) expect(l).toMatch(/^eval [0-3]\/3 episodes done \(\d+ tokens this turn\)$/);
    for (const l of rolloutLines) expect(l).toMatch(/^rollout [0-2]\/2 episodes done \(\d+ tokens this turn\)$/);
    expect(lines.filter((l) => /\/0\b/.test(l))).toEqual([]);
  });
});
