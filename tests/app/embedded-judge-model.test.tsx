// @vitest-environment happy-dom
// The page can pick the judge-trained embedded model (public/models/tiny-rema-judge): the model panel's "Tiny judge"
// button loads it as an embedded model, a link with the tiny-judge preset opens it at start-up (main.tsx:
// modelSpecFromConfig), and the folder the page fetches from its own origin (public/ is served at /) holds a
// checkpoint that loads with its tokenizer.
import 'fake-indexeddb/auto';
import { join } from 'node:path';
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { directoryFileSource } from '../../src/cli/fs-source.ts';
import { loadHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import { loadHfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { decodeUrlState, modelSpecFromConfig } from '../../src/app/url/url-state.ts';
import { renderApp } from '../helpers/app/render-app.tsx';

afterEach(cleanup);

it('the model panel loads the embedded judge model', async () => {
  const { store, sent } = await renderApp('embedded-judge');
  await act(async () => store.setState({ status: 'idle' }));
  fireEvent.click(screen.getByTestId('load-tiny-judge'));
  expect(store.getState().modelSpec).toEqual({ kind: 'embedded', name: 'tiny-rema-judge' });
  expect(store.getState().config).toMatchObject({ modelSource: 'embedded', model: 'tiny-rema-judge' });
  expect(sent.filter((r) => r.type === 'load').at(-1)).toMatchObject({
    model: { kind: 'embedded', name: 'tiny-rema-judge' },
  });
});

it('a tiny-judge link opens the embedded judge model, whose folder loads', async () => {
  const s = decodeUrlState('#preset=tiny-judge');
  expect(s.errors).toEqual([]);
  expect(modelSpecFromConfig(s.config)).toEqual({ kind: 'embedded', name: 'tiny-rema-judge' });
  const source = directoryFileSource(join(import.meta.dirname, '../../public/models/tiny-rema-judge'));
  const { config } = await loadHfCheckpoint(source);
  const tok = await loadHfTokenizer(source);
  expect(config.vocabSize).toBe(tok.vocabSize);
});
