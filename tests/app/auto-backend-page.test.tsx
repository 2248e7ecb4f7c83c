// @vitest-environment happy-dom
// The page's "auto" backend on the real session in-process: the line under the backend menu says the model runs on
// wasm for now until the measurement (after the first rollout) has chosen, then what was measured and which won, the measurement is kept in localStorage and a second page ("reload") reuses it
// without measuring (the line says "cached"), and Re-measure measures again. No WebGPU in this environment, so the
// CPU backend is measured alone and the line says why WebGPU was not.
import 'fake-indexeddb/auto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { storageBackendRates } from '../../src/app/persist/backend-rates.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { renderInProcessApp } from '../helpers/app/render-app.tsx';

afterEach(cleanup);

const folder = resolve(import.meta.dirname, '../fixtures/hf/tiny-qwen2.5-instruct');
const files = new Map(readdirSync(folder).map((name) => [name, new File([readFileSync(join(folder, name))], name)]));
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

async function openPage(db: string) {
  const backendRates = storageBackendRates(localStorage);
  await renderInProcessApp({ config, files, modelName: 'tiny-qwen', db, backendPreference: 'auto', backendRates });
  const seen: string[] = [];
  // the measurement's result (not the provisional "for now" line) with the session idle
  await waitFor(
    () => {
      const text = screen.getByTestId('auto-backend').textContent ?? '';
      if (seen.at(-1) !== text) seen.push(text);
      expect(text).toMatch(/^auto -> wasm: /);
      expect(screen.getByTestId('status').getAttribute('data-status')).toBe('idle');
    },
    { timeout: 30_000, interval: 5 },
  );
  return { line: screen.getByTestId('auto-backend').textContent ?? '', seen };
}

it('shows what auto measured, keeps it, reuses it after a reload and measures again on request', async () => {
  localStorage.clear();
  const { line: first, seen } = await openPage('auto-1');
  // the model was ready on wasm before the measurement: the line said so, and Re-measure waited for the result
  expect(seen).toContain('auto -> wasm for now; measuring wasm on this model…');
  expect(first).toMatch(
    /^auto -> wasm: [0-9.]+ ms\/token, [0-9.]+ m?s\/step \(webgpu not measured: this browser has no WebGPU \(navigator\.gpu is missing\); measured [0-9.]+ m?s\)$/,
  );
  expect(screen.getByTestId('cpu-notice').textContent).toContain(first);
  const kept = storageBackendRates(localStorage).list();
  expect(kept).toHaveLength(1);
  expect(kept[0].key).toContain('model=local: tiny-qwen#');
  expect(kept[0].rates.map((r) => r.backend)).toEqual(['wasm']);
  cleanup();

  // a reload: the same numbers, nothing measured
  const { line: second, seen: seenAgain } = await openPage('auto-2');
  expect(seenAgain.filter((t) => t.includes('for now'))).toEqual([]);
  expect(second).toBe(first.replace(/\)$/, ', cached)'));

  fireEvent.click(screen.getByTestId('remeasure-backend'));
  await waitFor(
    () => {
      const text = screen.getByTestId('auto-backend').textContent ?? '';
      expect(text).toMatch(/^auto -> wasm: .*measured [0-9.]+ m?s\)$/);
      expect(screen.getByTestId('status').getAttribute('data-status')).toBe('idle');
    },
    { timeout: 30_000 },
  );
  expect(storageBackendRates(localStorage).list()).toHaveLength(1);
}, 90_000);
