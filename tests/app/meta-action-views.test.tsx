// @vitest-environment happy-dom
// Meta-action JSON mode on the page: the rollout inspector shows a meta-thinking turn that is a JSON answer as its
// action (a badge) and its output, and the plan intervention edits the action and the output, sending the worker
// an answer the grammar accepts (so the reasoning agent executes it as in training).
import 'fake-indexeddb/auto';
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkerRequest } from '../../src/app/worker/protocol.ts';
import { parseMetaAction } from '../../src/rl/protocol/json-actions/grammar.ts';
import { metrics, rollout } from '../helpers/app/records.ts';
import { renderApp } from '../helpers/app/render-app.tsx';

afterEach(cleanup);

const decompose = '{"action": "DECOMPOSE", "output": "First add 2, then subtract 1."}';

function jsonRollout(sample: number, plan: string) {
  return rollout(1, 0, sample, {
    turns: [
      { role: 'meta', text: plan, tokens: 20, truncated: false },
      { role: 'reasoning', text: '\\boxed{5}', tokens: 4, truncated: false },
    ],
  });
}

describe('meta-action JSON mode views', () => {
  it('the inspector shows each JSON plan as its action and output; a plain plan stays as written', async () => {
    const { emit, store } = await renderApp('meta-action-inspector');
    emit({
      type: 'step',
      metrics: metrics(1),
      rollouts: [
        jsonRollout(0, decompose),
        jsonRollout(1, '{"action": "EMPTY", "output": ""}'),
        jsonRollout(2, 'Add the two amounts.'),
      ],
    });
    act(() => store.getState().setView('rollouts'));
    const shown = screen.getAllByTestId('meta-action');
    expect(shown.map((e) => e.dataset.action)).toEqual(['DECOMPOSE', 'EMPTY']);
    expect(shown[0].textContent).toContain('First add 2, then subtract 1.');
    expect(shown[0].textContent).not.toContain('"action"');
    expect(shown[1].textContent).toContain('no guidance');
    expect(screen.getAllByTestId('sample')[2].textContent).toContain('Add the two amounts.');
  });

  it('the intervention edits the action and its output and sends the JSON answer', async () => {
    const { emit, store, sent } = await renderApp('meta-action-intervene');
    emit({ type: 'status', status: 'idle' });
    emit({ type: 'step', metrics: metrics(1), rollouts: [jsonRollout(0, decompose)] });
    act(() => store.getState().setView('intervene'));
    const action = screen.getByTestId('plan-action') as HTMLSelectElement;
    const editor = screen.getByTestId('plan-editor') as HTMLTextAreaElement;
    expect(action.value).toBe('DECOMPOSE');
    expect(editor.value).toBe('First add 2, then subtract 1.');
    fireEvent.change(action, { target: { value: 'REWRITE' } });
    fireEvent.change(screen.getByTestId('plan-editor'), { target: { value: 'Ann has "5" apples.\nHow many?' } });
    fireEvent.click(screen.getByTestId('run-plan'));
    const request = sent.find((r) => r.type === 'intervene') as Extract<WorkerRequest, { type: 'intervene' }>;
    expect(request?.type).toBe('intervene');
    expect(parseMetaAction(request.plan)).toEqual({ action: 'REWRITE', output: 'Ann has "5" apples.\nHow many?' });
    expect(request.originalPlan).toBe(decompose);
  });
});
