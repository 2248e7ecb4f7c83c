// Reset while a step is running: the running step still finishes in the worker (a step is not interrupted), but
// its events belong to the run the page has left, so they must not become a one-step "run" in the runs list nor
// the new run's first step. The store on the real worker session in-process (tiny Qwen2.5 fixture, CPU backend),
// and the worker's run ids on its own.
import 'fake-indexeddb/auto';
import { expect, it } from 'vitest';
import { openRunsDb } from '../../../src/app/persist/runs-db.ts';
import { createPlaygroundStore } from '../../../src/app/store/create-store.ts';
import { createInProcessClient } from '../../../src/app/worker/client.ts';
import type { WorkerEvent } from '../../../src/app/worker/protocol.ts';
import { createSession } from '../../../src/app/worker/session.ts';
import { fixtureConfig, folderFiles, startSession, TINY_QWEN_FOLDER } from '../../helpers/app/session-driver.ts';

const config = fixtureConfig({ evalBeforeTrain: false, steps: 5 });

async function until(test: () => boolean, what: string, ms = 60_000): Promise<void> {
  const t0 = Date.now();
  while (!test()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

it('a step that was running when Reset was pressed is not saved as a run, and the new run starts at its own step 1', async () => {
  const events: WorkerEvent[] = [];
  const store = createPlaygroundStore(
    {
      createClient: () => {
        const c = createInProcessClient((emit) =>
          createSession(emit, {
            gpu: undefined,
            modelsUrl: 'http://127.0.0.1:1/models/',
            dataUrl: 'http://127.0.0.1:1/data',
          }),
        );
        c.subscribe((e) => events.push(e));
        return c;
      },
      openDb: () => openRunsDb('reset-during-step'),
    },
    {
      config,
      preset: 'tiny-default',
      view: 'curves',
      backendPreference: 'wasm',
      modelSpec: { kind: 'local', name: 'tiny-qwen', files: folderFiles(TINY_QWEN_FOLDER) },
    },
  );
  await store.getState().start();
  await until(() => store.getState().status === 'idle' && store.getState().model !== null, 'the model');
  expect(store.getState().runs).toEqual([]);

  // Reset as soon as the worker says the step is running (the step may run to its end without a macrotask, so
  // the store's own subscription presses it, the moment the status changes)
  let pressed = false;
  const unsubscribe = store.subscribe((state) => {
    if (state.status === 'stepping' && !pressed) {
      pressed = true;
      state.reset();
    }
  });
  store.getState().step();
  await until(() => pressed, 'the step to start');
  unsubscribe();
  await until(
    () => events.some((e) => e.type === 'activity' && e.text.startsWith('reset')) && store.getState().status === 'idle',
    'the reset',
  );
  // the old trainer's step did finish after the Reset (the case this test is about) ...
  const stepEvents = events.filter((e) => e.type === 'step');
  expect(stepEvents).toHaveLength(1);
  const resetAt = events.findIndex((e) => e.type === 'activity' && e.text.startsWith('reset'));
  expect(events.indexOf(stepEvents[0])).toBeLessThan(resetAt);
  // ... and it is not a run
  expect(store.getState().currentRun).toBeNull();
  expect(store.getState().runs).toEqual([]);
  expect((await (await openRunsDb('reset-during-step')).list()).length).toBe(0);

  // the new run's first step is its own step 1, in a run of its own
  store.getState().step();
  await until(
    () => store.getState().currentRun !== null && store.getState().status === 'idle',
    "the new run's first step",
  );
  expect(store.getState().runs).toHaveLength(1);
  expect(store.getState().currentRun!.metrics.map((m) => m.step)).toEqual([1]);
}, 120_000);

it('a Reset whose trainer cannot be built leaves the running trainer, which takes the new run id', async () => {
  const s = startSession();
  await s.request(
    {
      type: 'load',
      model: { kind: 'local', name: 'tiny-qwen', files: folderFiles(TINY_QWEN_FOLDER) },
      backend: 'wasm',
      config,
      run: 1,
    },
    'ready',
  );
  expect((await s.request({ type: 'step' }, 'step')).run).toBe(1);
  await s.request(
    { type: 'reset', config: { ...config, trainSet: 'file', trainFile: '/home/me/train.jsonl' }, run: 2 },
    'error',
  );
  const step = await s.request({ type: 'step' }, 'step');
  expect(step.metrics.step).toBe(2);
  expect(step.run).toBe(2);
  const evaluation = await s.request({ type: 'evaluate' }, 'evaluation');
  expect(evaluation.run).toBe(2);
}, 120_000);
