// @vitest-environment happy-dom
// After a lost GPU device moved the run to another backend, the worker's error event is `continuable`: the page
// shows what happened as a warning (not the fatal alarm) and offers to continue training, which sends Train.
import 'fake-indexeddb/auto';
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderApp } from '../helpers/app/render-app.tsx';

afterEach(cleanup);

describe('the error banner after a lost GPU device', () => {
  it('says what happened and offers to continue training on the new backend', async () => {
    const { emit, sent, store } = await renderApp('device-loss-banner');
    const message =
      'The GPU device was lost during step 5 (WebGPU device lost (unknown)). The run moved to the CPU backend ' +
      '(wasm) and continues from step 4, the last step shown: press Train (or Step) to go on.';
    emit({ type: 'error', message, fatal: false, requestId: null, continuable: true });
    const banner = screen.getByTestId('error-banner');
    expect(banner.textContent).toContain('continues from step 4');
    expect(banner.className).toBe('warning');
    expect(screen.queryByTestId('restart-worker')).toBeNull();
    fireEvent.click(screen.getByTestId('continue-training'));
    expect(sent.at(-1)).toEqual({ type: 'train' });
    expect(store.getState().error).toBeNull();
    expect(screen.queryByTestId('error-banner')).toBeNull();
  });

  it('an ordinary error offers no such button', async () => {
    const { emit } = await renderApp('device-loss-banner');
    emit({ type: 'error', message: 'no trainer: load a model first', fatal: false, requestId: null });
    expect(screen.getByTestId('error-banner')).toBeTruthy();
    expect(screen.queryByTestId('continue-training')).toBeNull();
  });
});
