// The status the worker's session reports for each request, on the real engine (the committed tiny Qwen2.5
// folder, CPU backend): a busy status while the work runs, then exactly one resting status, also when the work
// throws; an intervention and an adapter export leave the status alone. The statuses of one request are those
// between sending it and the event of an adapter export queued behind it (the session runs requests in order).
import { describe, expect, it } from 'vitest';
import type { WorkerEvent, WorkerRequest } from '../../../src/app/worker/protocol.ts';
import { fixtureConfig, folderFiles, startSession, TINY_QWEN_FOLDER } from '../../helpers/app/session-driver.ts';

type Session = ReturnType<typeof startSession>;

let barrierId = 1000;

/**
 * The statuses and the other event types `request` led to, up to the end of everything it queued (Train queues
 * its steps one by one: `until` waits for its stopped event before the barrier is queued).
 */
async function run(
  s: Session,
  request: WorkerRequest,
  until?: WorkerEvent['type'],
): Promise<{ statuses: string[]; types: string[] }> {
  const from = s.events.length;
  const requestId = barrierId++;
  const done = new Promise<void>((resolve) => {
    const poll = () =>
      s.events.slice(from).some((e) => e.type === 'lora' && e.requestId === requestId)
        ? resolve()
        : setTimeout(poll, 5);
    poll();
  });
  const send = (r: WorkerRequest) => void s.request(r, 'lora').catch(() => undefined);
  if (until) await s.request(request, until);
  else send(request);
  send({ type: 'exportLora', requestId });
  await done;
  const events = s.events.slice(from).filter((e) => !(e.type === 'lora' && e.requestId === requestId));
  return statusesOf(events);
}

function statusesOf(events: readonly WorkerEvent[]): { statuses: string[]; types: string[] } {
  return {
    statuses: events.flatMap((e) => (e.type === 'status' ? [e.status] : [])),
    types: [...new Set(events.map((e) => e.type))].filter(
      (t) => !['status', 'activity', 'progress', 'followed'].includes(t),
    ),
  };
}

describe('session status per request', () => {
  it('busy, then one resting status, for each request on a loaded model', async () => {
    const config = fixtureConfig({ maxTurns: 1, maxTokensPerTurn: 4, steps: 2, evalBeforeTrain: true });
    const s = startSession();
    const load = await run(s, {
      type: 'load',
      model: { kind: 'local', name: 'tiny-qwen', files: folderFiles(TINY_QWEN_FOLDER) },
      backend: 'wasm',
      config,
    });
    // the load, then the baseline evaluation (evalBeforeTrain) queued behind it
    expect(load.statuses).toEqual(['loading', 'idle', 'evaluating', 'idle']);
    expect(load.types).toEqual(expect.arrayContaining(['backend', 'ready', 'frozen', 'evaluation']));

    expect(await run(s, { type: 'step' })).toMatchObject({ statuses: ['stepping', 'idle'], types: ['step'] });
    expect(await run(s, { type: 'evaluate' })).toMatchObject({
      statuses: ['evaluating', 'idle'],
      types: ['evaluation'],
    });

    const rollout = s.events.findLast((e) => e.type === 'evaluation');
    if (rollout?.type !== 'evaluation') throw new Error('no evaluation');
    const r = rollout.rollouts[0];
    const iv = await run(s, {
      type: 'intervene',
      requestId: 1,
      question: r.question,
      gold: r.gold,
      plan: 'Add.',
      originalPlan: 'Add them.',
    });
    expect(iv).toEqual({ statuses: [], types: ['intervention'] });

    // Train: busy for the step it runs (steps: 2), then idle once when it stops at the step count
    expect(await run(s, { type: 'train' }, 'stopped')).toEqual({
      statuses: ['training', 'idle'],
      types: ['step', 'evaluation', 'stopped'],
    });

    // a Reset that works, and one that fails: the trainer stays, the error is not fatal, idle again
    expect(await run(s, { type: 'reset', config: { ...config, evalBeforeTrain: false } })).toEqual({
      statuses: ['idle'],
      types: ['frozen'],
    });
    const bad = await run(s, {
      type: 'reset',
      config: { ...config, evalBeforeTrain: false, trainSet: 'file', trainFile: '/nowhere.jsonl' },
    });
    expect(bad).toEqual({ statuses: ['idle'], types: ['error'] });
    expect(s.events.some((e) => e.type === 'error' && e.fatal)).toBe(false);
  });

  it('a step without a model: the error, then idle once', async () => {
    const s = startSession();
    const from = s.events.length;
    const err = await s.request({ type: 'step' }, 'error');
    expect(err).toMatchObject({ fatal: false, message: 'no trainer: load a model first' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(statusesOf(s.events.slice(from))).toEqual({ statuses: ['stepping', 'idle'], types: ['error'] });
  });

  it('a load that fails: fatal error and failed, once', async () => {
    const s = startSession();
    const config = fixtureConfig();
    const from = s.events.length;
    const bad = new Map([['config.json', new File(['{ not json'], 'config.json')]]);
    await s.request(
      {
        type: 'load',
        model: { kind: 'local', name: 'broken', files: bad },
        backend: 'wasm',
        config: { ...config, evalBeforeTrain: false },
      },
      'error',
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(statusesOf(s.events.slice(from))).toEqual({ statuses: ['loading', 'failed'], types: ['backend', 'error'] });
  });
});
