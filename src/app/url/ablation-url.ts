// The ablation set up in the page lives in the link's query (?ablation={"axes":{...},"seeds":[...]}), next to
// the hash that holds the config, so a link reproduces the ablation on the same config; the page finds the
// ablation's stored progress by the two together (ablationId). A spec longer than QUERY_LIMIT characters goes in
// the hash instead (#...&ablation=...): a query is sent to the server, which refuses one over about 16 KB
// (HTTP 431) and the page never loads; the hash is not sent. A link longer than SHARE_LIMIT is said to be too
// long to share.
import { decodeAblation, encodeAblation, type AblationSpec } from '../../rl/ablation.ts';
import type { PlaygroundStore } from '../store/create-store.ts';

/** Longest ablation text kept in the query (far below the ~8-16 KB request limits of common servers). */
export const QUERY_LIMIT = 2_000;
/** Longest link the page calls shareable (chat apps and mail cut longer ones). */
export const SHARE_LIMIT = 16_000;

/** True when the spec's link text is too long for the query and goes in the hash. */
export function ablationInHash(spec: AblationSpec | null): boolean {
  return spec !== null && encodeURIComponent(encodeAblation(spec)).length > QUERY_LIMIT;
}

/** The hash's `ablation` key read and removed: the spec (or an error naming the key) and the hash without it. */
export function splitAblationHash(hash: string): { rest: string; spec: AblationSpec | null; error: string | null } {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const text = params.get('ablation');
  params.delete('ablation');
  const rest = params.toString();
  const out = { rest: rest === '' ? '' : `#${rest}` };
  if (text === null || text === '') return { ...out, spec: null, error: null };
  try {
    return { ...out, spec: decodeAblation(text), error: null };
  } catch (e) {
    return { ...out, spec: null, error: (e as Error).message };
  }
}

/** `hash` with the `ablation` key set when the spec goes in the hash (ablationInHash), removed otherwise. */
export function withAblationHash(hash: string, spec: AblationSpec | null): string {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  if (spec !== null && ablationInHash(spec)) params.set('ablation', encodeAblation(spec));
  else params.delete('ablation');
  return `#${params.toString()}`;
}

/** A note when `href` is longer than SHARE_LIMIT characters, else null. */
export function linkLengthNote(href: string): string | null {
  if (href.length <= SHARE_LIMIT) return null;
  return `This page's link is ${href.length} characters long, too long to share reliably (over ${SHARE_LIMIT}); the ablation is kept after the # of the link, so the page still opens from it here.`;
}

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
  if (spec && !ablationInHash(spec)) params.set('ablation', encodeAblation(spec));
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

/**
 * Rewrites the query whenever the ablation spec changes (a long spec leaves it: url-sync.ts writes it in the hash),
 * and says so when the whole link (`href`) grows too long to share; returns the unsubscribe function.
 */
export function syncAblationUrl(store: PlaygroundStore, target: QueryTarget, href?: () => string): () => void {
  return store.subscribe((s, prev) => {
    if (s.ablationSpec === prev.ablationSpec) return;
    const search = withAblationParam(target.search, s.ablationSpec);
    if (search !== target.search) target.replace(search);
    const note = href ? linkLengthNote(href()) : null;
    if (note !== null) store.setState({ error: { message: note, fatal: false } });
  });
}
