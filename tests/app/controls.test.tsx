// @vitest-environment happy-dom
// Train is open while an evaluation runs (the start-up baseline takes seconds): pressing it asks the worker to
// train, which queues the steps after the evaluation, and the status line says so.
import 'fake-indexeddb/auto';
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderApp } from '../helpers/app/render-app.tsx';

afterEach(cleanup);

describe('Train during the start-up evaluation', () => {
  it('is enabled, starts training and the status says training follows the evaluation', async () => {
    const { emit, store } = await renderApp('controls');
    emit({ type: 'status', status: 'evaluating' });
    emit({ type: 'activity', step: 0, text: 'eval 0/64 episodes done (12 tokens this turn)' });
    const train = screen.getByTestId('train') as HTMLButtonElement;
    expect(train.disabled).toBe(false);
    // Step and Evaluate stay closed until the evaluation ends
    expect((screen.getByTestId('step') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(train);
    expect(store.getState().wantsTraining).toBe(true);
    expect(screen.getByTestId('pause')).toBeTruthy();
    expect(screen.getByTestId('status').textContent).toContain('evaluating (training starts after it): eval 0/64');
  });

  it('stays closed while the model loads', async () => {
    await renderApp('controls');
    expect((screen.getByTestId('train') as HTMLButtonElement).disabled).toBe(true);
  });
});
