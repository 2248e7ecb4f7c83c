// Renders the whole page against a store whose trainer client is driven by the test: `emit` feeds worker
// protocol events (steps, rollouts, status) exactly as the Web Worker would post them.
import { act, render } from '@testing-library/react';
import { App } from '../../src/app/App.tsx';
import { openRunsDb } from '../../src/app/persist/runs-db.ts';
import { createPlaygroundStore } from '../../src/app/store/create-store.ts';
import { StoreProvider } from '../../src/app/store/react.ts';
import type { TrainerClient, WorkerEvent } from '../../src/app/worker/protocol.ts';
import { getPreset } from '../../src/rl/presets.ts';

let n = 0;

/** `dbPrefix` keeps each test's IndexedDB database apart. */
export async function renderApp(dbPrefix: string) {
  const listeners = new Set<(e: WorkerEvent) => void>();
  const client: TrainerClient = { send: () => {}, subscribe: (l) => (listeners.add(l), () => listeners.delete(l)), terminate: () => {} };
  const store = createPlaygroundStore(
    { createClient: () => client, openDb: () => openRunsDb(`${dbPrefix}-${n++}`) },
    { config: getPreset('tiny-default'), preset: 'tiny-default', view: 'curves', backendPreference: 'auto', modelSpec: { kind: 'embedded', name: 'tiny-rema' } },
  );
  await store.getState().start();
  render(
    <StoreProvider store={store}>
      <App />
    </StoreProvider>,
  );
  const emit = (e: WorkerEvent) => act(() => listeners.forEach((l) => l(e)));
  return { store, emit };
}
