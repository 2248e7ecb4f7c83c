// @vitest-environment happy-dom
// Presenter mode's booth against the store and the worker protocol (the test plays the worker's side): the page
// asks for the model before the runs database has opened; training starts by itself once the model is ready;
// space pauses and resumes; r starts a new run that trains once the session confirms it; e explains, Escape leaves; and after autoReset
// steps a new run starts, even though the old run's last step reports after the reset (it used to reset twice
// and leave the new run untrained in the page's eyes).
import 'fake-indexeddb/auto';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/app/App.tsx';
import { openRunsDb } from '../../src/app/persist/runs-db.ts';
import { createPlaygroundStore } from '../../src/app/store/create-store.ts';
import { StoreProvider } from '../../src/app/store/react.ts';
import type { TrainerClient, WorkerEvent, WorkerRequest } from '../../src/app/worker/protocol.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { metrics } from '../helpers/app/records.ts';

afterEach(cleanup);
let n = 0;

function setup(autoReset: number) {
  const sent: WorkerRequest[] = [];
  const listeners = new Set<(e: WorkerEvent) => void>();
  const client: TrainerClient = {
    send: (r) => sent.push(r),
    subscribe: (l) => (listeners.add(l), () => listeners.delete(l)),
    terminate: () => {},
  };
  let openDb!: () => void;
  const dbOpened = new Promise<void>((r) => (openDb = r));
  const store = createPlaygroundStore(
    { createClient: () => client, openDb: () => dbOpened.then(() => openRunsDb(`booth-${n++}`)) },
    {
      config: getPreset('tiny-default'),
      preset: 'tiny-default',
      view: 'curves',
      backendPreference: 'wasm',
      modelSpec: { kind: 'embedded', name: 'tiny-rema' },
      presenting: true,
      autoReset,
    },
  );
  const emit = (e: WorkerEvent) => act(() => listeners.forEach((l) => l(e)));
  const ready = () =>
    emit({
      type: 'ready',
      backend: {
        kind: 'cpu',
        description: 'JavaScript',
        f16: false,
        adapter: null,
        cpuReason: 'chosen in the backend menu.',
      },
      model: { name: 'tiny-rema', architecture: 'llama', parameters: 1e5, layers: 3, hiddenSize: 64, vocabSize: 256 },
      dataset: { name: 'tiny-arith', train: 100, heldOut: 20 },
    });
  const step = (k: number) => emit({ type: 'step', metrics: metrics(k), rollouts: [] });
  const resetDone = () => emit({ type: 'activity', step: 0, text: 'reset: new run from the model weights' });
  const types = () => sent.map((r) => r.type);
  return { store, sent, types, emit, ready, step, resetDone, openDb };
}

/** The page started on the booth's store, with its runs database open. */
async function show(b: ReturnType<typeof setup>) {
  b.openDb();
  await b.store.getState().start();
  render(
    <StoreProvider store={b.store}>
      <App />
    </StoreProvider>,
  );
}

describe('presenter mode booth', () => {
  it('asks for the model before the runs database opens', async () => {
    const b = setup(0);
    const started = b.store.getState().start();
    expect(b.types()).toEqual(['load', 'follow']);
    b.openDb();
    await started;
  });

  it('trains by itself, pauses and resumes on space, and r starts a new run that trains', async () => {
    const b = setup(0);
    await show(b);
    expect(screen.getByTestId('presenter')).toBeTruthy();
    expect(b.types()).toEqual(['load', 'follow']);
    b.ready();
    expect(b.types().at(-1)).toBe('train');
    b.step(1);
    fireEvent.keyDown(window, { key: ' ' });
    expect(b.types().at(-1)).toBe('pause');
    expect(screen.getByTestId('presenter').getAttribute('data-training')).toBe('false');
    fireEvent.keyDown(window, { key: ' ' });
    expect(b.types().at(-1)).toBe('train');
    fireEvent.keyDown(window, { key: 'r' });
    expect(b.types().at(-1)).toBe('reset');
    b.resetDone();
    expect(b.types().at(-1)).toBe('train');
    expect(b.store.getState().wantsTraining).toBe(true);
    // e opens the explain view (no record yet: it waits for the next step's); Escape closes it, then leaves
    fireEvent.keyDown(window, { key: 'e' });
    expect(b.store.getState().explainStep).not.toBeNull();
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(b.store.getState().explainStep).toBeNull();
    expect(b.store.getState().presenting).toBe(true);
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(b.store.getState().presenting).toBe(false);
    expect(screen.queryByTestId('presenter')).toBeNull();
  });

  it('starts a new run after autoReset steps, once, although the old run reports a step after the reset', async () => {
    const b = setup(3);
    await show(b);
    b.ready();
    for (const k of [1, 2, 3]) b.step(k);
    expect(b.types().filter((t) => t === 'reset')).toHaveLength(1);
    // the step that was running when the reset was sent reports now, then the session builds the new run
    b.step(4);
    b.emit({ type: 'stopped', reason: 'paused' });
    b.resetDone();
    expect(b.types().filter((t) => t === 'reset')).toHaveLength(1);
    expect(b.types().at(-1)).toBe('train');
    expect(b.store.getState().wantsTraining).toBe(true);
    b.step(1);
    expect(b.types().filter((t) => t === 'reset')).toHaveLength(1);
    expect(screen.getByTestId('presenter').getAttribute('data-training')).toBe('true');
  });

  it('space while an automatic new run is being built pauses it: the new run does not start training', async () => {
    const b = setup(3);
    await show(b);
    b.ready();
    for (const k of [1, 2, 3]) b.step(k);
    expect(b.types().at(-1)).toBe('reset');
    // the presenter presses space before the session has built the new run (training already stopped for it)
    fireEvent.keyDown(window, { key: ' ' });
    b.emit({ type: 'stopped', reason: 'paused' });
    b.resetDone();
    expect(b.types().filter((t) => t === 'train')).toHaveLength(1); // only the first run's
    expect(b.store.getState().wantsTraining).toBe(false);
    expect(screen.getByTestId('presenter').getAttribute('data-training')).toBe('false');
    // space again resumes the new run
    fireEvent.keyDown(window, { key: ' ' });
    expect(b.types().at(-1)).toBe('train');
  });
});
