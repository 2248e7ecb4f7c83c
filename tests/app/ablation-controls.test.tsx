// @vitest-environment happy-dom
// While an ablation runs it drives the worker itself: Step, Reset and Evaluate wait (Pause stays, and stops the
// ablation); the results show above the views with one table row per config.
import 'fake-indexeddb/auto';
import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import type { AblationRecord } from '../../src/app/persist/ablation-types.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { renderApp } from '../helpers/app/render-app.tsx';

afterEach(cleanup);

const record = (status: AblationRecord['status']): AblationRecord => ({
  id: 'abl-test',
  spec: { axes: [{ field: 'ratio', values: ['token', 'turn-geometric'] }], seeds: [0] },
  base: getPreset('tiny-default'),
  model: 'tiny-rema',
  createdAt: 0,
  updatedAt: 0,
  status,
  runs: [
    {
      key: 'ratio=token#0',
      label: 'ratio=token',
      point: { ratio: 'token' },
      seed: 0,
      status: 'done',
      evals: [{ step: 1, accuracy: 0.5 }],
      wall_s: 3,
      metrics: [
        { step: 1, reward_mean: 0.25, time_s: { rollout: 1, reward: 0, old: 0, ref: 0, adv: 0, update: 1, eval: 0 } },
      ],
    },
    {
      key: 'ratio=turn-geometric#0',
      label: 'ratio=turn-geometric',
      point: { ratio: 'turn-geometric' },
      seed: 0,
      status: 'running',
      evals: [],
      wall_s: 0,
      metrics: [],
    },
  ],
});

it('Step, Reset and Evaluate wait while an ablation runs; the results table has a row per config', async () => {
  const { store } = await renderApp('ablation-controls');
  await act(async () => store.setState({ status: 'idle', ablation: record('running'), wantsTraining: true }));
  for (const id of ['step', 'reset', 'evaluate'])
    expect((screen.getByTestId(id) as HTMLButtonElement).disabled).toBe(true);
  expect(screen.getByTestId('pause')).toBeTruthy();
  const rows = screen.getAllByTestId('ablation-config-row');
  expect(rows.map((r) => r.getAttribute('data-config'))).toEqual(['ratio=token', 'ratio=turn-geometric']);
  expect(rows[0].textContent).toContain('50.0%');
  await act(async () => store.setState({ ablation: record('paused'), wantsTraining: false }));
  for (const id of ['step', 'reset', 'evaluate'])
    expect((screen.getByTestId(id) as HTMLButtonElement).disabled).toBe(false);
});
