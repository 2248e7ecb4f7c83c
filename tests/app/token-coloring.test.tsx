// @vitest-environment happy-dom
// The rollout inspector's token colouring: choosing a token mode in "colour by" renders one tinted span per
// token piece (different values, different colours, the values in the tooltip); turns without per-token data
// (older runs, evaluations) stay plain text with KaTeX.
import 'fake-indexeddb/auto';
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { tokenColor } from '../../src/app/components/TokenText.tsx';
import type { TurnRecord } from '../../src/rl/metrics.ts';
import { metrics, rollout } from '../helpers/app/records.ts';
import { renderApp } from '../helpers/app/render-app.tsx';

afterEach(cleanup);

const tokenTurn: TurnRecord = {
  role: 'meta',
  text: 'Add 3 and 2.',
  tokens: 5,
  truncated: false,
  pieces: ['Add', ' 3', ' and', ' 2', '.', '<|im_end|>'],
  logprobs: [-0.5, -1.2, -0.1, -2, -0.3, -0.01],
  ratio: [1, 1.5, 0.6, 1, 1.1, 1],
  clip: [0, 1, -1, 0, 0, 0],
  advantage: [1, 1, 1, 1, 1, 1],
};

describe('inspector token colouring', () => {
  it('token modes render one span per piece, coloured by value, with a tooltip; turns without data stay KaTeX', async () => {
    const { emit, store } = await renderApp('tokens');
    const withTokens = rollout(1, 0, 0, {
      turns: [tokenTurn, { role: 'reasoning', text: '3 + 2 = \\boxed{5}', tokens: 8, truncated: false }],
    });
    emit({ type: 'step', metrics: metrics(1), rollouts: [withTokens, rollout(1, 0, 1)] });
    act(() => store.getState().setView('rollouts'));
    expect(screen.queryAllByTestId('token')).toHaveLength(0); // card-level colouring by default

    fireEvent.change(screen.getByTestId('colouring'), { target: { value: 'token-ratio' } });
    expect(store.getState().coloring).toBe('token-ratio'); // in the store, so in the URL
    const spans = screen.getAllByTestId('token');
    expect(spans.map((s) => s.textContent)).toEqual(tokenTurn.pieces);
    const ratioColors = spans.map((s) => s.style.background);
    expect(new Set(ratioColors).size).toBe(4); // ratios 1 (twice), 1.5, 0.6, 1.1
    expect(ratioColors[0]).toBe(ratioColors[3]);
    expect(spans[1].title).toContain('ratio 1.5000');
    expect(spans[1].title).toContain('clipped high');
    expect(spans.map((s) => s.classList.contains('token-special'))).toEqual([false, false, false, false, false, true]);
    // the reasoning turn (no per-token data) and the other sample stay typeset
    expect(screen.getAllByTestId('sample')[0].querySelector('.katex')).not.toBeNull();
    expect(screen.getAllByTestId('sample')[1].querySelectorAll('[data-testid="token"]')).toHaveLength(0);

    fireEvent.change(screen.getByTestId('colouring'), { target: { value: 'token-clip' } });
    const clipColors = screen.getAllByTestId('token').map((s) => s.style.background);
    expect(new Set(clipColors).size).toBe(3);
    expect(clipColors[1]).not.toBe(clipColors[2]);

    fireEvent.change(screen.getByTestId('colouring'), { target: { value: 'reward' } });
    expect(screen.queryAllByTestId('token')).toHaveLength(0);
    expect(store.getState().coloring).toBe('reward');
  });

  it('a run without per-token data says so in token mode and shows plain text', async () => {
    const { emit, store } = await renderApp('tokens');
    emit({ type: 'step', metrics: metrics(1), rollouts: [rollout(1, 0, 0), rollout(1, 0, 1)] });
    act(() => store.getState().setView('rollouts'));
    fireEvent.change(screen.getByTestId('colouring'), { target: { value: 'token-advantage' } });
    expect(screen.queryAllByTestId('token')).toHaveLength(0);
    expect(screen.getByTestId('token-legend').textContent).toContain('no per-token data');
    expect(screen.getAllByTestId('sample')[0].querySelector('.katex')).not.toBeNull();
  });

  it('colour scales: neutral values are transparent, opposite signs differ, strength grows with size', () => {
    expect(tokenColor('token-ratio', 1)).toBe('transparent');
    expect(tokenColor('token-advantage', 0)).toBe('transparent');
    expect(tokenColor('token-clip', 0)).toBe('transparent');
    expect(tokenColor('token-advantage', 0.5)).not.toBe(tokenColor('token-advantage', -0.5));
    expect(tokenColor('token-advantage', 0.3)).not.toBe(tokenColor('token-advantage', 0.9));
    expect(tokenColor('token-ratio', 1.1)).not.toBe(tokenColor('token-ratio', 1 / 1.1));
  });
});
