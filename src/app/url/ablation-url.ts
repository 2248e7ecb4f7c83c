// The ablation set up in the page lives in the link's query (?ablation={"axes":{...},"seeds":[...]}), next to
// the hash that holds the config, so a link reproduces the ablation on the same config; the page finds the
// ablation's stored progress by the two together (ablationId). Kept out of the hash so the config's link
// format stays as it is.
import { decodeAblation, encodeAblation, type AblationSpec } from '../../rl/ablation.ts';
import type { PlaygroundStore } from '../store/create-store.ts';

export function readAblationParam(search: string): { spec: AblationSpec | null; error: string | null } {
  const text = new URLSearchParams(search).get('ablation');
  if (text === null || text === '') return { spec: null, error: null };
  try {
    return { spec: decodeAblation(text), error: null };
  } catch (e) {
    return { spec: null, error: (e as Error).message };
  }
}

/** The query string with `ablation` set to the spec (or removed), other parameters kept. */
export function withAblationParam(search: string, spec: AblationSpec | null): string {
  const params = new URLSearchParams(search);
  if (spec) params.set('ablation', encodeAblation(spec));
  else params.delete('ablation');
  const text = params.toString();
  return text ? `?${text}` : '';
}

export interface QueryTarget {
  readonly search: string;
  replace(search: string): void;
}

export function browserQuery(): QueryTarget {
  return {
    get search() {
      return location.search;
    },
    replace: (search) => history.replaceState(null, '', `${location.pathname}${search}${location.hash}`),
  };
}

/** Rewrites the query whenever the ablation spec changes; returns the unsubscribe function. */
export function syncAblationUrl(store: PlaygroundStore, target: QueryTarget): () => void {
  return store.subscribe((s, prev) => {
    if (s.ablationSpec === prev.ablationSpec) return;
    const search = withAblationParam(target.search, s.ablationSpec);
    if (search !== target.search) target.replace(search);
  });
}
