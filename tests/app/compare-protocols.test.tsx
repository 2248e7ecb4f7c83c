// @vitest-environment happy-dom
// Compare protocols in the page: the button runs the protocol presets as the ablation's axis with 3 seeds on the
// current config (each arm sent to the worker with that config's steps and held-out evaluation, VRP with none),
// and the results name the arms by the paper's Table 1 rows, with the evaluation size and trained tokens.
import 'fake-indexeddb/auto';
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import type { AblationRecord, AblationRunState } from '../../src/app/persist/ablation-types.ts';
import type { ExperimentConfig } from '../../src/rl/config.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { renderApp } from '../helpers/app/render-app.tsx';

afterEach(cleanup);

const model = { name: 'tiny-rema', architecture: 'llama', parameters: 1, layers: 1, hiddenSize: 1, vocabSize: 1 };

it('Compare protocols starts VRP, VRP_RL, MRP_RL and ReMA x 3 seeds on the current config', async () => {
  const { store, sent } = await renderApp('compare-protocols');
  const config = { ...store.getState().config, steps: 5, evalSize: 16 };
  await act(async () => store.setState({ status: 'idle', model, config, wantsTraining: false }));
  await act(async () => fireEvent.click(screen.getByTestId('compare-protocols')));
  expect(store.getState().ablationSpec).toEqual({
    axes: [{ field: 'preset', values: ['vrp', 'vrp-rl', 'mrp-rl', 'tiny-default'] }],
    seeds: [0, 1, 2],
  });
  const runs = store.getState().ablation!.runs;
  expect(runs.map((r) => r.key).slice(0, 4)).toEqual([
    'preset=vrp#0',
    'preset=vrp-rl#0',
    'preset=mrp-rl#0',
    'preset=tiny-default#0',
  ]);
  expect(runs).toHaveLength(12);
  // the first arm went to the worker: VRP, evaluated only, on the config's held-out problems
  const reset = sent.find((r) => r.type === 'reset') as { config: ExperimentConfig } | undefined;
  expect(reset?.config).toMatchObject({ mode: 'vrp', steps: 0, evalSize: 16, evalBeforeTrain: true, seed: 0 });
  expect(sent.at(-1)?.type).toBe('train');
  expect(screen.getAllByTestId('ablation-run-row')[0].textContent).toMatch(/^VRP \(CoT\) · seed 0: running/);
});

const time_s = { rollout: 1, reward: 0, old: 0, ref: 0, adv: 0, update: 1, eval: 0 };
const run = (preset: string, steps: number, accuracy: number, tokens: number): AblationRunState => ({
  key: `preset=${preset}#0`,
  label: `preset=${preset}`,
  point: { preset },
  seed: 0,
  status: 'done',
  evals: [{ step: 0, accuracy: 0.25, n: 16 }, ...(steps > 0 ? [{ step: steps, accuracy, n: 16 }] : [])],
  wall_s: 3,
  metrics: Array.from({ length: steps }, (_, i) => ({ step: i + 1, reward_mean: 0.5, time_s, tokens_trained: tokens })),
});

it("names the arms by Table 1's rows, with the evaluated-only VRP, eval size and tokens", async () => {
  const { store } = await renderApp('compare-protocols-table');
  const record: AblationRecord = {
    id: 'abl-compare',
    spec: { axes: [{ field: 'preset', values: ['vrp', 'vrp-rl', 'tiny-default'] }], seeds: [0] },
    base: { ...getPreset('tiny-default'), steps: 2, evalSize: 16 },
    model: 'tiny-rema',
    createdAt: 0,
    updatedAt: 0,
    status: 'done',
    runs: [run('vrp', 0, 0.25, 0), run('vrp-rl', 2, 0.5, 300), run('tiny-default', 2, 0.75, 1000)],
  };
  await act(async () => store.setState({ status: 'idle', ablation: record }));
  const rows = screen.getAllByTestId('ablation-config-row');
  expect(rows.map((r) => r.querySelector('td')!.textContent)).toEqual(['VRP (CoT)', 'VRP_RL', 'ReMA (multi-turn)']);
  expect(rows[0].textContent).toContain('25.0%');
  expect(rows[1].textContent).toContain('50.0%');
  expect(rows[2].textContent).toContain('75.0%');
  expect(rows[2].textContent).toContain('2,000');
  expect(rows.every((r) => r.textContent!.includes('16'))).toBe(true);
  const legend = [...screen.getByTestId('ablation-chart').querySelectorAll('g.legend')].map((g) =>
    g.getAttribute('data-config'),
  );
  expect(legend).toEqual(['VRP (CoT)', 'VRP_RL', 'ReMA (multi-turn)']);
});
