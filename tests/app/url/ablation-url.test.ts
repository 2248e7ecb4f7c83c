// The ablation's place in the link (url/ablation-url.ts): read from ?ablation=, written back when the spec
// changes with the other query parameters and the hash kept, removed when the ablation is cleared; a bad value
// is an error naming the parameter, not a crash.
import { expect, it } from 'vitest';
import { createPlaygroundStore } from '../../../src/app/store/create-store.ts';
import { readAblationParam, syncAblationUrl, withAblationParam } from '../../../src/app/url/ablation-url.ts';
import type { TrainerClient } from '../../../src/app/worker/protocol.ts';
import { getPreset } from '../../../src/rl/presets.ts';

const spec = { axes: [{ field: 'groupSize', values: [4, 8] }], seeds: [0, 1, 2] };

it('reads, writes and removes the ablation parameter', () => {
  const search = withAblationParam('?debug=1', spec);
  expect(new URLSearchParams(search).get('debug')).toBe('1');
  expect(readAblationParam(search)).toEqual({ spec, error: null });
  expect(withAblationParam(search, null)).toBe('?debug=1');
  expect(readAblationParam('')).toEqual({ spec: null, error: null });
  expect(readAblationParam('?ablation=%7Bnope').error).toContain('URL: ablation is not JSON');
});

it('keeps the query in step with the store', () => {
  const client: TrainerClient = { send: () => {}, subscribe: () => () => {}, terminate: () => {} };
  const store = createPlaygroundStore(
    { createClient: () => client, openDb: () => Promise.reject(new Error('no database in this test')) },
    {
      config: getPreset('tiny-default'),
      preset: 'tiny-default',
      view: 'curves',
      backendPreference: 'auto',
      modelSpec: { kind: 'embedded', name: 'tiny-rema' },
    },
  );
  const target = {
    search: '',
    replace(s: string) {
      this.search = s;
    },
  };
  syncAblationUrl(store, target);
  store.getState().setAblationSpec(spec);
  expect(readAblationParam(target.search).spec).toEqual(spec);
  store.getState().setAblationSpec(null);
  expect(target.search).toBe('');
});
