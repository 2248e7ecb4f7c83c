// @vitest-environment happy-dom
// The model panel offers the catalog's models by name with download size, chat template and licence, and loads
// one through the hub (a catalog name typed as a repo id resolves to its repo; other repo ids stay as they are);
// the planner sizes the chosen model with the current config before any download, as `rema plan` does, and
// names the nearest config that fits when it does not.
import 'fake-indexeddb/auto';
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { findCatalogModel } from '../../src/data/models/catalog.ts';
import { modelConfigFor, planConfig } from '../../src/rl/plan.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { renderApp } from '../helpers/app/render-app.tsx';

afterEach(cleanup);

it('offers the catalog by name with size, template and licence, and loads a choice through the hub', async () => {
  const { store } = await renderApp('model-catalog');
  await act(async () => store.setState({ status: 'idle' }));
  const options = [...screen.getByTestId('catalog-model').querySelectorAll('option')].map((o) => o.textContent ?? '');
  expect(options).toHaveLength(1 + 7);
  expect(options).toContain('qwen2.5-0.5b-instruct · 942.3 MiB · chatml · apache-2.0');
  expect(options.some((o) => o.startsWith('llama-3.2-1b-instruct') && o.endsWith('llama3 · llama3.2'))).toBe(true);
  fireEvent.change(screen.getByTestId('catalog-model'), { target: { value: 'smollm2-360m-instruct' } });
  expect(screen.getByTestId('catalog-details').textContent).toContain('HuggingFaceTB/SmolLM2-360M-Instruct');
  fireEvent.click(screen.getByTestId('catalog-load'));
  expect(store.getState().modelSpec).toEqual({
    kind: 'hub',
    repo: 'HuggingFaceTB/SmolLM2-360M-Instruct',
    revision: 'main',
  });
  expect(store.getState().config.model).toBe('HuggingFaceTB/SmolLM2-360M-Instruct');
});

it('a catalog name typed as a repo id loads its repo; any other repo id loads as it is', async () => {
  const { store } = await renderApp('model-catalog-typed');
  await act(async () => store.setState({ status: 'idle' }));
  fireEvent.change(screen.getByTestId('hf-repo'), { target: { value: 'qwen2.5-1.5b-instruct' } });
  fireEvent.click(screen.getByTestId('hf-load'));
  expect(store.getState().modelSpec).toMatchObject({ kind: 'hub', repo: 'Qwen/Qwen2.5-1.5B-Instruct' });
  await act(async () => store.setState({ status: 'idle' }));
  fireEvent.change(screen.getByTestId('hf-repo'), { target: { value: 'someone/SomeModel-7B' } });
  fireEvent.click(screen.getByTestId('hf-load'));
  expect(store.getState().modelSpec).toMatchObject({ kind: 'hub', repo: 'someone/SomeModel-7B' });
});

it('plans the chosen model with the current config before downloading: parameters, bytes, fits, suggestion', async () => {
  const { store } = await renderApp('planner');
  // all 64 rollouts decoded at once (the preset decodes 32 at a time and fits)
  await act(async () => {
    store.getState().applyPreset('math133-qwen0.5b');
    store.getState().setConfigField('decodeBatch', 64);
  });
  fireEvent.change(screen.getByTestId('catalog-model'), { target: { value: 'qwen2.5-0.5b-instruct' } });
  expect(screen.getByTestId('planner-parameters').textContent).toContain('494,032,768 parameters');
  // the same plan as rema plan --preset math133-qwen0.5b --set decodeBatch=64 (wasm: WebAssembly's 4 GiB)
  const config = { ...getPreset('math133-qwen0.5b'), decodeBatch: 64 };
  const plan = planConfig(config, modelConfigFor(config), { backend: 'wasm' });
  expect(plan.fits).toBe(false);
  expect(screen.getByTestId('planner').getAttribute('data-fits')).toBe('false');
  expect(screen.getByTestId('planner-fits').textContent).toContain('fits: no');
  expect(screen.getByTestId('planner-suggestion').textContent).toContain(plan.suggestion!.flags);
  // a smaller model with the tiny default fits
  await act(async () => store.getState().applyPreset('tiny-default'));
  fireEvent.change(screen.getByTestId('catalog-model'), { target: { value: 'smollm2-135m-instruct' } });
  expect(screen.getByTestId('planner-parameters').textContent).toContain(
    `${findCatalogModel('smollm2-135m-instruct')!.parameters.toLocaleString('en-US')} parameters`,
  );
  expect(screen.getByTestId('planner-fits').textContent).toContain('fits: yes');
  expect(screen.queryByTestId('planner-suggestion')).toBeNull();
});

it("on WebGPU names the largest tensor a kernel binds whole and, past the spec's 128 MiB, the change that fits", async () => {
  const { store } = await renderApp('planner-binding');
  await act(async () => {
    store.getState().applyPreset('math133-qwen0.5b');
    store.setState({ backendPreference: 'webgpu' });
    store.getState().setConfigField('decodeBatch', 64);
    store.getState().setConfigField('maxTokensPerTurn', 4096);
  });
  fireEvent.change(screen.getByTestId('catalog-model'), { target: { value: 'qwen2.5-0.5b-instruct' } });
  // no adapter here (no navigator.gpu): the spec's default limit
  const line = screen.getByTestId('planner-binding');
  expect(line.textContent).toContain('largest binding: rollout KV cache [64, 5632, 2, 64], 176.0 MiB of 128.0 MiB');
  expect(line.textContent).toContain('--set decodeBatch=46');
  expect(line.className).toContain('error');
  await act(async () => store.getState().setConfigField('decodeBatch', 46));
  expect(screen.getByTestId('planner-binding').className).not.toContain('error');
});
