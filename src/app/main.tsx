// Entry point of the playground page: read the URL, build the store with the worker client and the runs
// database, render, and keep the URL in step with the config and view from then on.
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { ErrorBoundary } from './components/ErrorBoundary.tsx';
import { openAblationDb } from './persist/ablation-db.ts';
import { storageBackendRates } from './persist/backend-rates.ts';
import { openRunsDb } from './persist/runs-db.ts';
import { browserQuery, readAblationParam, splitAblationHash, syncAblationUrl } from './url/ablation-url.ts';
import { splitPresentState } from './url/present-state.ts';
import { decodeUrlState, modelSpecFromConfig } from './url/url-state.ts';
import { browserHash, syncUrl } from './url/url-sync.ts';
import { createPlaygroundStore } from './store/create-store.ts';
import { StoreProvider } from './store/react.ts';
import './styles.css';
import { markStartup } from './util/startup-marks.ts';
import { createWorkerClient } from './worker/client.ts';

markStartup('script');
const present = splitPresentState(location.hash);
const fromHash = splitAblationHash(present.rest);
const fromUrl = decodeUrlState(fromHash.rest);
const fromQuery = readAblationParam(location.search);
const store = createPlaygroundStore(
  {
    createClient: createWorkerClient,
    openDb: () => openRunsDb(),
    openAblationDb: () => openAblationDb(),
    backendRates: storageBackendRates(globalThis.localStorage),
  },
  {
    config: fromUrl.config,
    preset: fromUrl.preset,
    view: fromUrl.view,
    backendPreference: fromUrl.backend,
    weightPrecision: fromUrl.weights,
    modelSpec: modelSpecFromConfig(fromUrl.config),
    onnxModel: fromUrl.onnxModel,
    coloring: fromUrl.coloring,
    chartSmoothing: fromUrl.smoothing,
    chartX: fromUrl.chartX,
    ablation: fromQuery.spec ?? fromHash.spec,
    presenting: present.state.presenting,
    autoReset: present.state.autoReset,
    followIndex: present.state.followIndex,
    followEvery: present.state.followEvery,
  },
);
const linkErrors = [
  ...fromUrl.errors,
  ...present.errors,
  ...(fromQuery.error ? [fromQuery.error] : []),
  ...(fromHash.error ? [fromHash.error] : []),
];
if (linkErrors.length > 0) store.setState({ error: { message: linkErrors.join('\n'), fatal: false } });

syncUrl(store, browserHash());
syncAblationUrl(store, browserQuery(), () => location.href);

createRoot(document.getElementById('root')!).render(
  <ErrorBoundary label="The playground">
    <StoreProvider store={store}>
      <App />
    </StoreProvider>
  </ErrorBoundary>,
);
requestAnimationFrame(() => markStartup('paint'));
void store
  .getState()
  .start()
  .then(() => store.getState().restoreAblation());
