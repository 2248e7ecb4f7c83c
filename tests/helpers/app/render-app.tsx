// Renders the whole page for tests: against a store whose trainer client is driven by the test (renderApp: `emit`
// feeds worker protocol events exactly as the Web Worker would post them), or against the real worker session run
// in-process (renderInProcessApp).
import { act, render } from '@testing-library/react';
import { App } from '../../../src/app/App.tsx';
import { openRunsDb } from '../../../src/app/persist/runs-db.ts';
import { createPlaygroundStore } from '../../../src/app/store/create-store.ts';
import { StoreProvider } from '../../../src/app/store/react.ts';
import { createInProcessClient } from '../../../src/app/worker/client.ts';
import type { BackendRatesStore } from '../../../src/app/persist/backend-rates.ts';
import type { BackendPreference, TrainerClient, WorkerEvent, WorkerRequest } from '../../../src/app/worker/protocol.ts';
import { createSession } from '../../../src/app/worker/session.ts';
import type { ExperimentConfig } from '../../../src/rl/config.ts';
import { getPreset } from '../../../src/rl/presets.ts';

let n = 0;

/** `dbPrefix` keeps each test's IndexedDB database apart. */
export async function renderApp(dbPrefix: string) {
  const listeners = new Set<(e: WorkerEvent) => void>();
  /** every request the page sent to the worker, in order */
  const sent: WorkerRequest[] = [];
  const client: TrainerClient = {
    send: (request) => void sent.push(request),
    subscribe: (l) => (listeners.add(l), () => listeners.delete(l)),
    terminate: () => {},
  };
  const store = createPlaygroundStore(
    { createClient: () => client, openDb: () => openRunsDb(`${dbPrefix}-${n++}`) },
    {
      config: getPreset('tiny-default'),
      preset: 'tiny-default',
      view: 'curves',
      backendPreference: 'auto',
      modelSpec: { kind: 'embedded', name: 'tiny-rema' },
    },
  );
  await store.getState().start();
  render(
    <StoreProvider store={store}>
      <App />
    </StoreProvider>,
  );
  const emit = (e: WorkerEvent) => act(() => listeners.forEach((l) => l(e)));
  return { store, emit, sent };
}

/**
 * Renders the whole page against the real worker session run in-process (createInProcessClient, the Web Worker's
 * twin) with a local model folder on the CPU backend; resolves once the store has started (the model loads after).
 */
export async function renderInProcessApp(opts: {
  config: ExperimentConfig;
  files: Map<string, File>;
  modelName: string;
  db: string;
  view?: 'curves' | 'rollouts';
  /** default 'cpu' */
  backendPreference?: BackendPreference;
  /** where "auto" keeps its measurements (default: nowhere) */
  backendRates?: BackendRatesStore;
}) {
  const store = createPlaygroundStore(
    {
      createClient: () =>
        createInProcessClient((e) =>
          createSession(e, {
            gpu: undefined,
            modelsUrl: 'http://127.0.0.1:1/models/',
            dataUrl: 'http://127.0.0.1:1/data',
          }),
        ),
      openDb: () => openRunsDb(opts.db),
      ...(opts.backendRates ? { backendRates: opts.backendRates } : {}),
    },
    {
      config: opts.config,
      preset: 'tiny-default',
      view: opts.view ?? 'curves',
      backendPreference: opts.backendPreference ?? 'wasm',
      modelSpec: { kind: 'local', name: opts.modelName, files: opts.files },
    },
  );
  await act(() => store.getState().start());
  render(
    <StoreProvider store={store}>
      <App />
    </StoreProvider>,
  );
  return store;
}
