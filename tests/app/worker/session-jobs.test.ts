// The worker session's job queue (src/app/worker/session-jobs.ts) owns the status: a job's busy statuses, then its
// resting status exactly once, after the error event when the job throws ("failed" when the failure is fatal);
// jobs run one after another; KEEP_STATUS hands the status on; dropQueued skips jobs not yet started.
import { describe, expect, it } from 'vitest';
import type { WorkerEvent } from '../../../src/app/worker/protocol.ts';
import { createJobQueue, KEEP_STATUS, type JobOptions, type Job } from '../../../src/app/worker/session-jobs.ts';

function queue() {
  const events: WorkerEvent[] = [];
  const jobs = createJobQueue((e) => events.push(e));
  /** events as short strings: "status:idle", "error:boom:fatal", ... */
  const log = () =>
    events.map((e) =>
      e.type === 'status'
        ? `status:${e.status}`
        : e.type === 'error'
          ? `error:${e.message}${e.fatal ? ':fatal' : ''}:${e.requestId}`
          : e.type,
    );
  /** enqueue and wait until the job has run (and settled) */
  const run = (job: Job, options?: JobOptions) =>
    new Promise<void>((resolve) => {
      jobs.enqueue(job, options);
      jobs.enqueue(async () => {
        resolve();
        return KEEP_STATUS;
      });
    });
  return { jobs, events, log, run };
}

const boom = async (): Promise<void> => {
  throw new Error('boom');
};

describe('session job queue', () => {
  it('busy statuses, then the resting status once', async () => {
    const q = queue();
    await q.run(async (busy) => {
      busy('loading');
      busy('evaluating');
    });
    expect(q.log()).toEqual(['status:loading', 'status:evaluating', 'status:idle']);
  });

  it('a job that throws: the error event, then the resting status once', async () => {
    const q = queue();
    await q.run(
      async (busy) => {
        busy('stepping');
        await boom();
      },
      { requestId: 4 },
    );
    expect(q.log()).toEqual(['status:stepping', 'error:boom:4', 'status:idle']);
  });

  it('a fatal failure rests at failed; fatal may be decided after the failure', async () => {
    const q = queue();
    let alive = true;
    await q.run(
      async () => {
        alive = false;
        await boom();
      },
      { fatal: () => !alive },
    );
    expect(q.log()).toEqual(['error:boom:fatal:null', 'status:failed']);
  });

  it('rest null leaves the status alone, also on a failure; onError runs between the error and the status', async () => {
    const q = queue();
    await q.run(async () => {}, { rest: null });
    await q.run(boom, { rest: null, requestId: 9 });
    await q.run(boom, { onError: () => q.events.push({ type: 'stopped', reason: 'error' }) });
    expect(q.log()).toEqual(['error:boom:9', 'error:boom:null', 'stopped', 'status:idle']);
  });

  it('a computed resting status is read when the job ends', async () => {
    const q = queue();
    let active = false;
    await q.run(
      async () => {
        active = true;
      },
      { rest: () => (active ? 'idle' : 'failed') },
    );
    await q.run(
      async () => {
        active = false;
        await boom();
      },
      { rest: () => (active ? 'idle' : 'failed') },
    );
    expect(q.log()).toEqual(['status:idle', 'error:boom:null', 'status:failed']);
  });

  it('KEEP_STATUS sends no resting status', async () => {
    const q = queue();
    await q.run(async (busy) => {
      busy('training');
      return KEEP_STATUS;
    });
    expect(q.log()).toEqual(['status:training']);
  });

  it('runs jobs one after another, and dropQueued skips the ones not started', async () => {
    const q = queue();
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    q.jobs.enqueue(async () => {
      order.push('first starts');
      await gate;
      order.push('first ends');
    });
    q.jobs.enqueue(async () => void order.push('dropped'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    q.jobs.dropQueued();
    const after = q.run(async () => void order.push('after the drop'));
    release();
    await after;
    expect(order).toEqual(['first starts', 'first ends', 'after the drop']);
  });
});
