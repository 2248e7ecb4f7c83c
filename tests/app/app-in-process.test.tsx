// @vitest-environment happy-dom
// The whole page on the real session in-process (createInProcessClient, the worker's twin): load a local model
// folder (the tiny Qwen2.5 fixture), press Step, and find the step in the header counter, the run list and the
// rollout inspector. Same protocol, same engine and trainer as the Web Worker runs.
import 'fake-indexeddb/auto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { getPreset } from '../../src/rl/presets.ts';
import { renderInProcessApp } from '../helpers/app/render-app.tsx';

afterEach(cleanup);

const folder = resolve(import.meta.dirname, '../fixtures/hf/tiny-qwen2.5-instruct');
const files = new Map(readdirSync(folder).map((name) => [name, new File([readFileSync(join(folder, name))], name)]));

it('loads a local folder and shows a real training step', async () => {
  const config = {
    ...getPreset('tiny-default'),
    problemsPerStep: 1,
    groupSize: 2,
    maxTurns: 2,
    maxTokensPerTurn: 6,
    maxPromptTokens: 4096,
    evalBeforeTrain: false,
    evalEvery: 0,
    trainSize: 8,
    evalSize: 2,
  };
  const store = await renderInProcessApp({ config, files, modelName: 'tiny-qwen', db: 'in-process', view: 'rollouts' });
  await waitFor(() => expect(screen.getByTestId('status').getAttribute('data-status')).toBe('idle'), {
    timeout: 30_000,
  });
  expect(screen.getByTestId('model').textContent).toContain('local: tiny-qwen');
  expect(screen.getByTestId('backend').textContent).toContain('CPU backend');
  fireEvent.click(screen.getByTestId('step'));
  await waitFor(() => expect(screen.getByTestId('step-count').textContent).toContain('step 1 /'), { timeout: 30_000 });
  await waitFor(() => expect(screen.getAllByTestId('sample')).toHaveLength(2));
  expect(screen.getAllByTestId('sample')[0].querySelector('[data-role="meta"]')).not.toBeNull();
  expect(store.getState().runs).toHaveLength(1);
  expect(store.getState().runs[0].metrics[0].step).toBe(1);
});
