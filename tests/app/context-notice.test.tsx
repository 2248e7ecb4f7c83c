// @vitest-environment happy-dom
// The page on the real in-process session with the embedded tiny model loaded as a local folder whose config.json
// claims a short context (max_position_embeddings): the baseline evaluation and a training step whose episodes did
// not fit show the context notice with the context length and the prompt's token count; a context too short for any
// prompt fails the load with an error banner saying so.
import 'fake-indexeddb/auto';
import { resolve } from 'node:path';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { getPreset } from '../../src/rl/presets.ts';
import { folderFiles } from '../helpers/app/session-driver.ts';
import { renderInProcessApp } from '../helpers/app/render-app.tsx';

afterEach(cleanup);

const folder = resolve(import.meta.dirname, '../../public/models/tiny-rema');

async function withContext(context: number): Promise<Map<string, File>> {
  const files = folderFiles(folder, (path) => path.startsWith('onnx'));
  const config = JSON.parse(await files.get('config.json')!.text()) as Record<string, unknown>;
  files.set('config.json', new File([JSON.stringify({ ...config, max_position_embeddings: context })], 'config.json'));
  return files;
}

async function renderPage(context: number, name: string) {
  const config = {
    ...getPreset('tiny-default'),
    problemsPerStep: 2,
    groupSize: 2,
    evalBeforeTrain: true,
    evalEvery: 0,
    trainSize: 8,
    evalSize: 4,
  };
  return renderInProcessApp({ config, files: await withContext(context), modelName: 'tiny-rema', db: name });
}

describe('context notice', () => {
  it('names the context length and the prompt tokens after the baseline evaluation and a step', async () => {
    const store = await renderPage(100, 'context-short');
    const notice = await screen.findByTestId('context-notice', {}, { timeout: 30_000 });
    expect(notice.textContent).toMatch(
      /Evaluation at step 0: 4 of 4 episodes did not fit the model's context of 100 tokens \(prompt up to \d+ tokens \+ \d+ tokens per turn\)/,
    );
    await waitFor(() => expect(screen.getByTestId('status').getAttribute('data-status')).toBe('idle'), {
      timeout: 30_000,
    });
    fireEvent.click(screen.getByTestId('step'));
    await waitFor(() => expect(store.getState().currentRun?.metrics.length).toBe(1), { timeout: 30_000 });
    const m = store.getState().currentRun!.metrics[0];
    expect(m.context_length).toBe(100);
    await waitFor(() =>
      expect(screen.getByTestId('context-notice').textContent).toContain(
        `Step 1: ${m.context_limited} of 4 episodes did not fit the model's context of 100 tokens (prompt up to ${m.context_prompt_tokens} tokens`,
      ),
    );
  });

  it('a context no prompt fits fails the load with the context length and the prompt tokens', async () => {
    await renderPage(20, 'context-none');
    const banner = await screen.findByTestId('error-banner', {}, { timeout: 30_000 });
    expect(banner.textContent).toMatch(
      /the model's context is 20 tokens \(max_position_embeddings\), but the first meta prompt of the shortest problem \("[^"]+"\) already takes \d+ tokens/,
    );
    expect(screen.queryByTestId('context-notice')).toBeNull();
  });
});
