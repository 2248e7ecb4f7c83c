// @vitest-environment happy-dom
// The page on the real in-process session (the worker's twin) with the embedded tiny model loaded as a local
// folder, at an absurd learning rate: Train runs until the trainer reports maxNonFiniteSteps non-finite steps in a
// row, training stops by itself, and the divergence banner names the step, the quantities and the fix.
import 'fake-indexeddb/auto';
import { resolve } from 'node:path';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { getPreset } from '../../src/rl/presets.ts';
import { folderFiles } from '../helpers/app/session-driver.ts';
import { renderInProcessApp } from '../helpers/app/render-app.tsx';

afterEach(cleanup);

const files = folderFiles(resolve(import.meta.dirname, '../../public/models/tiny-rema'), (path) =>
  path.startsWith('onnx'),
);

it('shows the divergence banner and stops training after maxNonFiniteSteps non-finite steps', async () => {
  const config = {
    ...getPreset('tiny-default'),
    lr: 1e30,
    maxNonFiniteSteps: 2,
    steps: 50,
    problemsPerStep: 2,
    groupSize: 4,
    evalBeforeTrain: false,
    evalEvery: 0,
    trainSize: 8,
    evalSize: 2,
  };
  const store = await renderInProcessApp({ config, files, modelName: 'tiny-rema', db: 'divergence' });
  await waitFor(() => expect(screen.getByTestId('status').getAttribute('data-status')).toBe('idle'), {
    timeout: 30_000,
  });
  expect(screen.queryByTestId('divergence')).toBeNull();
  fireEvent.click(screen.getByTestId('train'));
  const banner = await screen.findByTestId('divergence', {}, { timeout: 60_000 });
  expect(banner.textContent).toMatch(/The run diverged.*diverged at step \d+: non-finite logprobs/);
  // training stops by itself once the streak reaches maxNonFiniteSteps, and the banner says so
  await waitFor(() => expect(store.getState().wantsTraining).toBe(false), { timeout: 60_000 });
  await waitFor(() => expect(screen.getByTestId('status').getAttribute('data-status')).toBe('idle'), {
    timeout: 30_000,
  });
  const metrics = store.getState().currentRun!.metrics;
  const last = metrics.at(-1)!;
  expect(last.nonfinite_streak).toBe(2);
  expect(metrics.length).toBeLessThan(50);
  const text = screen.getByTestId('divergence').textContent!;
  expect(text).toContain(`(since step ${last.step - 1})`);
  expect(text).toContain(`diverged at step ${last.step}`);
  expect(text).toMatch(
    /training stopped after 2 such steps in a row \(maxNonFiniteSteps 2\)\. Lower the learning rate \(lr 1e\+30\)/,
  );
  expect(screen.getByTestId('train')).toBeDefined();
});
