// @vitest-environment happy-dom
// Picking a local folder that holds no files: the page says which files a model folder (or an ONNX folder)
// must hold, instead of doing nothing, and nothing starts loading.
import 'fake-indexeddb/auto';
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderApp } from '../helpers/app/render-app.tsx';

afterEach(cleanup);

/** What a folder <input> hands over for a folder with nothing in it. */
function pickEmptyFolder(testId: string) {
  fireEvent.change(screen.getByTestId(testId), { target: { files: [] } });
}

describe('an empty local folder', () => {
  it('for the model: a message naming config.json, tokenizer.json and *.safetensors, and no load', async () => {
    const { store } = await renderApp('source-picker');
    const before = store.getState().modelSpec;
    pickEmptyFolder('folder-input');
    const message = screen.getByTestId('source-message').textContent ?? '';
    expect(message).toContain('is empty');
    for (const name of ['config.json', 'tokenizer.json', '.safetensors']) expect(message).toContain(name);
    expect(store.getState().modelSpec).toBe(before);
  });

  it('for the frozen ONNX agent: a message naming onnx/model.onnx, and the source stays', async () => {
    const { store } = await renderApp('source-picker');
    const before = store.getState().onnxModel;
    pickEmptyFolder('onnx-folder-input');
    const message = screen.getByTestId('onnx-source-message').textContent ?? '';
    expect(message).toContain('is empty');
    for (const name of ['config.json', 'tokenizer.json', 'onnx/model.onnx']) expect(message).toContain(name);
    expect(store.getState().onnxModel).toBe(before);
  });
});
