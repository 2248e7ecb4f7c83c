// @vitest-environment happy-dom
// The line under the backend menu while "auto" has not chosen yet (the worker measures after the first rollout):
// it says the model runs on wasm for now, Train stays open (the worker queues the steps after the measurement) and
// Re-measure is hidden until there is a result; a failed measurement says why and offers Re-measure.
import 'fake-indexeddb/auto';
import { cleanup, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import type { BackendInfo } from '../../src/app/worker/protocol.ts';
import { renderApp } from '../helpers/app/render-app.tsx';

afterEach(cleanup);

const wasm = (over: Partial<BackendInfo>): BackendInfo => ({
  kind: 'wasm',
  description: 'wasm (WebAssembly relaxed SIMD kernels, 1 thread)',
  f16: false,
  adapter: 'google / swiftshader (software fallback)',
  cpuReason: null,
  ...over,
});
const model = { name: 'tiny-rema', architecture: 'qwen2', parameters: 1, layers: 1, hiddenSize: 1, vocabSize: 1 };
const dataset = { name: 'tiny', train: 8, heldOut: 2 };

it('says wasm runs for now while measuring, keeps Train open, and offers Re-measure after a failure', async () => {
  const { emit } = await renderApp('auto-line');
  const line = 'auto -> wasm for now; measuring webgpu and wasm on this model…';
  emit({ type: 'ready', backend: wasm({ cpuReason: line, autoPending: { line, measuring: true } }), model, dataset });
  emit({ type: 'status', status: 'idle' });
  expect(screen.getByTestId('auto-backend').textContent).toBe(line);
  expect(screen.queryByTestId('remeasure-backend')).toBeNull();
  expect((screen.getByTestId('train') as HTMLButtonElement).disabled).toBe(false);

  const failed = 'auto -> wasm: the backends could not be measured (device lost)';
  emit({
    type: 'backend',
    backend: wasm({ cpuReason: `${failed}.`, autoPending: { line: failed, measuring: false } }),
  });
  expect(screen.getByTestId('auto-backend').textContent).toBe(failed);
  expect(screen.getByTestId('cpu-notice').textContent).toContain(failed);
  expect(screen.getByTestId('remeasure-backend')).toBeTruthy();
});
