// The ablation's place in the link (url/ablation-url.ts): read from ?ablation=, written back when the spec
// changes with the other query parameters and the hash kept, removed when the ablation is cleared; a bad value
// is an error naming the parameter, not a crash. A long spec (many values on an axis) stays out of the query,
// which servers refuse past about 16 KB (HTTP 431, the page never loads): it is written after the # and read back
// from there, short specs keep their ?ablation= form, and a link too long to share is said to be.
import { expect, it } from 'vitest';
import { createPlaygroundStore } from '../../../src/app/store/create-store.ts';
import {
  QUERY_LIMIT,
  SHARE_LIMIT,
  linkLengthNote,
  readAblationParam,
  splitAblationHash,
  syncAblationUrl,
  withAblationParam,
} from '../../../src/app/url/ablation-url.ts';
import { syncUrl } from '../../../src/app/url/url-sync.ts';
import { decodeUrlState } from '../../../src/app/url/url-state.ts';
import type { TrainerClient } from '../../../src/app/worker/protocol.ts';
import { getPreset } from '../../../src/rl/presets.ts';

const spec = { axes: [{ field: 'groupSize', values: [4, 8] }], seeds: [0, 1, 2] };
const longSpec = {
  axes: [{ field: 'lr', values: Array.from({ length: 2_000 }, (_, i) => 1e-4 + i * 1e-7) }],
  seeds: [0, 1],
};
const shortSpec = { axes: [{ field: 'groupSize', values: [4, 8] }], seeds: [0] };

/** The page's store on the tiny preset, with a worker client that does nothing. */
function testStore() {
  const client: TrainerClient = { send: () => {}, subscribe: () => () => {}, terminate: () => {} };
  return createPlaygroundStore(
    { createClient: () => client, openDb: () => Promise.reject(new Error('no database in this test')) },
    {
      config: getPreset('tiny-default'),
      preset: 'tiny-default',
      view: 'curves',
      backendPreference: 'auto',
      modelSpec: { kind: 'embedded', name: 'tiny-rema' },
    },
  );
}

it('reads, writes and removes the ablation parameter', () => {
  const search = withAblationParam('?debug=1', spec);
  expect(new URLSearchParams(search).get('debug')).toBe('1');
  expect(readAblationParam(search)).toEqual({ spec, error: null });
  expect(withAblationParam(search, null)).toBe('?debug=1');
  expect(readAblationParam('')).toEqual({ spec: null, error: null });
  expect(readAblationParam('?ablation=%7Bnope').error).toContain('URL: ablation is not JSON');
});

it('keeps the query in step with the store', () => {
  const store = testStore();
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

it('keeps a long spec out of the query and in the hash, next to the config, and reads it back', () => {
  const store = testStore();
  const query = {
    search: '?debug=1',
    replace(s: string) {
      this.search = s;
    },
  };
  const hash = {
    hash: '',
    replace(h: string) {
      this.hash = h;
    },
  };
  syncUrl(store, hash);
  syncAblationUrl(store, query, () => `http://localhost:5173/${query.search}${hash.hash}`);

  store.getState().setAblationSpec(longSpec);
  expect(query.search).toBe('?debug=1');
  expect(query.search.length).toBeLessThan(QUERY_LIMIT);
  const split = splitAblationHash(hash.hash);
  expect(split.spec).toEqual(longSpec);
  expect(split.error).toBeNull();
  // the config part of the hash reads as before, with no unknown key
  expect(decodeUrlState(split.rest).errors).toEqual([]);
  const href = `http://localhost:5173/${query.search}${hash.hash}`;
  expect(href.length).toBeGreaterThan(SHARE_LIMIT);
  expect(store.getState().error?.message).toBe(linkLengthNote(href));
  expect(store.getState().error?.message).toMatch(/too long to share reliably/);

  store.getState().setAblationSpec(shortSpec);
  expect(readAblationParam(query.search).spec).toEqual(shortSpec);
  expect(splitAblationHash(hash.hash).spec).toBeNull();
  expect(withAblationParam('', longSpec)).toBe('');
});
