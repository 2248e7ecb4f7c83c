// The page's SFT mode in the worker's session (in-process, the real engine on the embedded tiny-rema model loaded as
// a local folder): `sft` reports one loss per step and the checksums of the weights before and after; `sftAdopt`
// rebuilds the RL trainer on the SFT'd weights (its checksum is the SFT run's, and the greedy rollout of the followed
// problem is the SFT'd model's, not the loaded model's); `sftStop` ends a run early with its weights kept; a bad
// chat file is named with its line.
import { resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { WorkerEvent } from '../../../src/app/worker/protocol.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { folderFiles, startSession } from '../../helpers/app/session-driver.ts';

const TINY = resolve(import.meta.dirname, '../../../public/models/tiny-rema');
const config = {
  ...getPreset('tiny-default'),
  problemsPerStep: 1,
  groupSize: 2,
  evalBeforeTrain: false,
  evalEvery: 0,
  evalSize: 2,
  steps: 5,
};

async function loaded() {
  const s = startSession();
  s.request({ type: 'follow', index: -1, every: 0, minIntervalMs: 0 }, 'followed').catch(() => {});
  await s.request(
    { type: 'load', model: { kind: 'local', name: 'tiny-rema', files: folderFiles(TINY) }, backend: 'wasm', config },
    'ready',
  );
  return s;
}
const followed = (events: WorkerEvent[]) =>
  events.flatMap((e) => (e.type === 'followed' && e.rollout.correct !== null ? [e.rollout] : []));

describe('SFT mode in the worker', () => {
  it("trains with a loss per step, then the RL run starts from the SFT'd weights", async () => {
    const s = await loaded();
    const settings = { data: { kind: 'tiny-meta' as const }, problems: 16, steps: 4, batchSize: 4, lr: 2e-2, seed: 0 };
    const done = await s.request({ type: 'sft', requestId: 7, settings }, 'sftDone');
    // the loaded model's greedy rollout of the followed problem (queued at load, before the SFT run)
    const before = followed(s.events);
    const steps = s.events.flatMap((e) => (e.type === 'sftStep' ? [e] : []));
    expect(steps.map((e) => e.step)).toEqual([1, 2, 3, 4]);
    expect(
      steps.every((e) => e.requestId === 7 && e.total === 4 && Number.isFinite(e.loss) && e.loss > 0 && e.tokens > 0),
    ).toBe(true);
    expect(done).toMatchObject({ steps: 4, chats: 32 });
    expect(done.checksum).toMatch(/^[0-9a-f]{8}$/);
    expect(done.checksum).not.toBe(done.baseChecksum);

    const adopted = await s.request({ type: 'sftAdopt', config }, 'sftAdopted');
    expect(adopted.checksum).toBe(done.checksum);
    expect(adopted.model.name).toContain('SFT');
    const after = await s.request({ type: 'step' }, 'step');
    expect(after.metrics.step).toBe(1);
    const rollouts = followed(s.events);
    expect(before.length).toBe(1);
    expect(rollouts.length).toBe(2);
    expect(rollouts[1].step).toBe(0);
    expect(rollouts[1].turns).not.toEqual(before[0].turns);
    // Reset starts from the SFT'd weights too: the same greedy rollout as right after adopting
    await s.request({ type: 'reset', config }, 'activity');
    await vi.waitFor(() => expect(followed(s.events).length).toBe(3), { timeout: 20_000 });
    const again = followed(s.events)[2];
    expect(again.step).toBe(0);
    expect(again.turns).toEqual(rollouts[1].turns);
  });

  it('stops after the running step on sftStop and keeps the weights so far', async () => {
    const s = await loaded();
    const settings = { data: { kind: 'tiny-cot' as const }, problems: 16, steps: 50, batchSize: 4, lr: 1e-3, seed: 1 };
    const first = s.request({ type: 'sft', requestId: 3, settings }, 'sftStep');
    await first;
    const done = await s.request({ type: 'sftStop' }, 'sftDone');
    expect(done.steps).toBeGreaterThanOrEqual(1);
    expect(done.steps).toBeLessThan(50);
    expect(s.events.filter((e) => e.type === 'sftStep').length).toBe(done.steps);
  });

  it('names the file and line of a bad chat', async () => {
    const s = await loaded();
    const text =
      '{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}\n{"messages": [{"role": "bot", "content": "x"}]}\n';
    const settings = {
      data: { kind: 'file' as const, name: 'chats.jsonl', text },
      problems: 1,
      steps: 2,
      batchSize: 1,
      lr: 1e-3,
      seed: 0,
    };
    const err = await s.request({ type: 'sft', requestId: 9, settings }, 'error');
    expect(err).toMatchObject({ type: 'error', fatal: false, requestId: 9 });
    if (err.type === 'error') expect(err.message).toContain('chats.jsonl:2');
  });
});
