// @vitest-environment happy-dom
// The page's views rendered with React against a store fed with protocol events: the header names the
// backend, every config knob has its hover note, the inspector interleaves MTA and RA turns, the Echo Trap
// banner appears, and a render error in one view shows a message instead of a blank page.
import 'fake-indexeddb/auto';
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { knobs } from '../../src/app/config/knobs.ts';
import { FIELD_SPECS } from '../../src/rl/config.ts';
import { metrics, rollout } from '../helpers/app/records.ts';
import { renderApp } from '../helpers/app/render-app.tsx';

afterEach(cleanup);

describe('playground views', () => {
  it('every config field except version has a knob with a note', () => {
    const keys = new Set(knobs.map((k) => k.key));
    const missing = Object.keys(FIELD_SPECS).filter(
      (k) => k !== 'version' && k !== 'model' && k !== 'modelSource' && !keys.has(k as never),
    );
    expect(missing).toEqual([]);
    for (const k of knobs) expect(k.note.length).toBeGreaterThan(15);
  });

  it('every knob offers only values the config accepts (enum options and number ranges from the field specs)', () => {
    const problems: string[] = [];
    for (const k of knobs) {
      const spec = FIELD_SPECS[k.key];
      const c = k.control;
      if (c.kind === 'select') {
        if (spec.kind !== 'enum' || c.options.join('|') !== spec.values.join('|'))
          problems.push(`${k.key}: options ${c.options.join('|')}`);
      } else if (c.kind === 'number' || c.kind === 'nullable-number') {
        if (!('min' in spec)) {
          problems.push(`${k.key}: a number control for a ${spec.kind} field`);
          continue;
        }
        const max = 'max' in spec ? spec.max : undefined;
        if (c.min < spec.min || (max !== undefined && c.max > max))
          problems.push(`${k.key}: range [${c.min}, ${c.max}] outside the field's`);
        if (c.kind === 'number' && c.integer !== (spec.kind === 'int'))
          problems.push(`${k.key}: integer control ${c.integer} for a ${spec.kind} field`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('shows the CPU fallback notice and the model in the header', async () => {
    const { emit } = await renderApp('views');
    emit({
      type: 'ready',
      backend: {
        kind: 'cpu',
        description: 'JavaScript',
        f16: false,
        adapter: 'google / swiftshader (software fallback)',
        cpuReason: 'the only WebGPU adapter is a software fallback',
      },
      model: {
        name: 'tiny-rema',
        architecture: 'llama',
        parameters: 2_500_000,
        layers: 4,
        hiddenSize: 128,
        vocabSize: 512,
      },
      dataset: { name: 'tiny-arith', train: 2000, heldOut: 64 },
    });
    expect(screen.getByTestId('backend').textContent).toContain('CPU backend');
    expect(screen.getByTestId('cpu-notice').textContent).toContain('software fallback');
    expect(screen.getByTestId('model').textContent).toContain('2.5M params');
  });

  it('the inspector shows each sample with MTA and RA turns interleaved, reward and finish reason', async () => {
    const { emit, store } = await renderApp('views');
    emit({
      type: 'step',
      metrics: metrics(1),
      rollouts: [0, 1, 2].flatMap((g) => [0, 1].map((s) => rollout(1, g, s))),
    });
    act(() => store.getState().setView('rollouts'));
    const samples = screen.getAllByTestId('sample');
    expect(samples).toHaveLength(2);
    const roles = [...samples[0].querySelectorAll('[data-role]')].map((el) => el.getAttribute('data-role'));
    expect(roles).toEqual(['meta', 'reasoning', 'meta', 'reasoning']);
    expect(samples[1].textContent).toContain('r=1.00');
    expect(samples[1].textContent).toContain('finished');
    expect(samples[0].querySelector('.katex')).not.toBeNull();
    fireEvent.click(screen.getAllByTestId('group-row')[2]);
    expect(document.querySelector('.question')?.textContent).toContain('Ann has 5 apples');
    expect(store.getState().selectedGroup).toBe(2);
  });

  it('raises the Echo Trap alarm when reward std, entropy and length collapse', async () => {
    const { emit } = await renderApp('views');
    for (const s of [1, 2, 3]) emit({ type: 'step', metrics: metrics(s), rollouts: [] });
    expect(screen.queryByTestId('echo-trap')).toBeNull();
    for (const s of [4, 5, 6])
      emit({
        type: 'step',
        metrics: metrics(s, { reward_std: 0, entropy: 0.05, len_meta_mean: 1, len_reason_mean: 2 }),
        rollouts: [],
      });
    expect(screen.getByTestId('echo-trap').textContent).toContain('since step 4');
  });

  it('the curves offer smoothing and an x axis in minutes, kept in the store (and so the link)', async () => {
    const { store, emit } = await renderApp('views');
    for (const s of [1, 2, 3]) emit({ type: 'step', metrics: metrics(s), rollouts: [] });
    const smoothing = screen.getByTestId('chart-smoothing') as HTMLSelectElement;
    expect([...smoothing.options].map((o) => o.textContent)).toEqual(['off', '0.6', '0.9']);
    fireEvent.change(smoothing, { target: { value: '0.9' } });
    fireEvent.change(screen.getByTestId('chart-x'), { target: { value: 'minutes' } });
    expect(store.getState()).toMatchObject({ chartSmoothing: 0.9, chartX: 'minutes' });
    expect((screen.getByTestId('chart-smoothing') as HTMLSelectElement).value).toBe('0.9');
  });

  it('a knob edit that fails validation shows the message next to the knob', async () => {
    await renderApp('views');
    const input = document.getElementById('knob-groupSize') as HTMLInputElement;
    fireEvent.blur(input, { target: { value: '0' } });
    expect(document.querySelector('[data-knob="groupSize"] [role="alert"]')?.textContent).toMatch(/groupSize/);
  });

  it('a fatal error shows the message and a restart button', async () => {
    const { emit } = await renderApp('views');
    emit({
      type: 'error',
      message: 'could not load the model "x": config.json: file not found',
      fatal: true,
      requestId: null,
    });
    expect(screen.getByTestId('error-banner').textContent).toContain('config.json');
    expect(screen.getByTestId('restart-worker')).toBeTruthy();
  });
});
