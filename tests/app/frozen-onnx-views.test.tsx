// @vitest-environment happy-dom
// The page's views of a frozen ONNX agent, fed with worker protocol events: the header badge names the agent, the
// ONNX model and onnxruntime-web's execution provider (and the WebGPU-to-WASM fallback notice); the inspector
// marks the frozen agent's turns and colours only the trained agent's tokens; the model panel shows the VRP
// baseline's accuracy.
import 'fake-indexeddb/auto';
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { OnnxInfo } from '../../src/app/worker/protocol.ts';
import type { TurnRecord } from '../../src/rl/metrics.ts';
import { metrics, rollout } from '../helpers/app/records.ts';
import { renderApp } from '../helpers/app/render-app.tsx';

afterEach(cleanup);

const wasm: OnnxInfo = {
  name: 'tiny-rema (ONNX)',
  architecture: 'llama',
  layers: 3,
  ep: 'wasm',
  runtime: 'onnxruntime-web 1.30.0 WASM EP',
  notice: null,
};

/** A turn as the trainer records it for the trained agent: per-token pieces and advantages. */
function trained(text: string): TurnRecord {
  const pieces = text.split(/(?<= )/);
  return {
    role: 'meta',
    text,
    tokens: pieces.length,
    truncated: false,
    pieces,
    logprobs: pieces.map(() => -1),
    ratio: pieces.map(() => 1),
    clip: pieces.map(() => 0),
    advantage: pieces.map(() => 0.8),
  };
}

/** A training-step rollout whose meta-thinking turns were trained (the reasoning turns are the frozen agent's). */
function withTokens(group: number, sample: number) {
  const r = rollout(1, group, sample);
  return { ...r, turns: r.turns.map((t) => (t.role === 'meta' ? trained(t.text) : t)) };
}

describe('frozen ONNX agent views', () => {
  it('the header names the frozen agent and its EP; a WebGPU fallback is a visible notice', async () => {
    const { emit } = await renderApp('frozen-views');
    expect(screen.queryByTestId('frozen-badge')).toBeNull();
    emit({ type: 'frozen', role: 'reasoning', onnx: wasm });
    expect(screen.getByTestId('frozen-badge').textContent).toBe(
      'frozen reasoning agent: tiny-rema (ONNX) · onnxruntime-web 1.30.0 WASM EP',
    );
    expect(screen.queryByTestId('onnx-notice')).toBeNull();
    const fallback = {
      ...wasm,
      notice:
        "onnxruntime-web's WebGPU execution provider could not open tiny-rema/onnx/model.onnx; it runs on the WASM execution provider instead (slower).",
    };
    emit({ type: 'frozen', role: 'meta', onnx: fallback });
    expect(screen.getByTestId('frozen-badge').textContent).toContain('frozen meta-thinking agent');
    expect(screen.getByTestId('onnx-notice').textContent).toContain('runs on the WASM execution provider instead');
    // loaded for the VRP baseline only: no frozen agent in the header, the model in the panel
    emit({ type: 'frozen', role: null, onnx: wasm });
    expect(screen.queryByTestId('frozen-badge')).toBeNull();
    expect(screen.getByTestId('onnx-loaded').textContent).toContain('onnxruntime-web 1.30.0 WASM EP');
  });

  it("the inspector marks the frozen agent's turns and colours only the trained agent's tokens", async () => {
    const { emit, store } = await renderApp('frozen-views');
    act(() => store.getState().setFrozenAgent('reasoning'));
    emit({ type: 'step', metrics: metrics(1), rollouts: [withTokens(0, 0), withTokens(0, 1)] });
    act(() => store.getState().setView('rollouts'));
    const frozenTurns = document.querySelectorAll('[data-role="reasoning"][data-frozen="true"]');
    expect(frozenTurns.length).toBe(4); // 2 samples x 2 reasoning turns
    expect(document.querySelectorAll('[data-role="meta"][data-frozen="false"]').length).toBe(4);
    expect(document.querySelectorAll('[data-frozen="true"][data-role="meta"]').length).toBe(0);
    expect(frozenTurns[0].textContent).toContain('frozen (ONNX, not trained)');
    fireEvent.change(screen.getByTestId('colouring'), { target: { value: 'token-advantage' } });
    expect(document.querySelectorAll('[data-role="meta"] [data-testid="token"]').length).toBeGreaterThan(0);
    expect(document.querySelectorAll('[data-frozen="true"] [data-testid="token"]').length).toBe(0);
  });

  it('the model panel shows the VRP baseline accuracy of the ONNX model', async () => {
    const { emit } = await renderApp('frozen-views');
    expect(screen.queryByTestId('onnx-eval')).toBeNull();
    emit({
      type: 'onnxEvaluation',
      result: { onnx: wasm, mode: 'vrp', accuracy: 0.25, reward_mean: -0.1, n: 8, rollouts: [] },
    });
    expect(screen.getByTestId('onnx-eval').textContent).toContain(
      'VRP baseline (greedy): 25.0% of 8 held-out problems',
    );
    expect(screen.getByTestId('onnx-eval').textContent).toContain('WASM EP');
  });

  it("the inspector can show the VRP baseline's answers next to the training step", async () => {
    const { emit, store } = await renderApp('frozen-views');
    emit({ type: 'step', metrics: metrics(1), rollouts: [rollout(1, 0, 0), rollout(1, 0, 1)] });
    const answer = {
      ...rollout(0, 0, 0),
      turns: [{ role: 'reasoning' as const, text: 'so \\boxed{5}', tokens: 5, truncated: false }],
    };
    emit({
      type: 'onnxEvaluation',
      result: { onnx: wasm, mode: 'vrp', accuracy: 1, reward_mean: 1, n: 1, rollouts: [answer] },
    });
    act(() => store.getState().setView('rollouts'));
    expect(screen.getByTestId('inspector-source').textContent).toContain('training step 1');
    fireEvent.change(screen.getByTestId('inspector-source-select'), { target: { value: 'onnx' } });
    expect(screen.getByTestId('inspector-source').textContent).toContain('VRP baseline of tiny-rema (ONNX)');
    expect(screen.getAllByTestId('sample')).toHaveLength(1);
  });
});
