// Presenter mode and the followed problem in the link: present=1 (the booth view), autoReset=N (a new run every N
// steps; 0 = never), follow=I (held-out problem I; default: the first with a loss) and followEvery=K (its greedy
// rollout refreshed every K steps; default 5). Kept apart from url-state.ts (the config and views): the keys are
// taken out of the hash before the config is read, and written after it, only where they differ from the default.

export interface PresentState {
  presenting: boolean;
  autoReset: number;
  followIndex: number;
  followEvery: number;
}

export const PRESENT_DEFAULTS: PresentState = { presenting: false, autoReset: 0, followIndex: -1, followEvery: 5 };

const MAX_COUNT = 1_000_000;

/** A whole number in [min, MAX_COUNT], or an error naming the key. */
function count(key: string, text: string, min: number): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < min || n > MAX_COUNT) {
    throw new Error(
      `URL: ${key} must be a whole number from ${min} to ${MAX_COUNT} (got ${JSON.stringify(text.slice(0, 40))})`,
    );
  }
  return n;
}

/** The present keys of a hash, and the hash without them (for url-state's decodeUrlState). */
export function splitPresentState(hash: string): { rest: string; state: PresentState; errors: string[] } {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const state = { ...PRESENT_DEFAULTS };
  const errors: string[] = [];
  const read = (key: string, apply: (text: string) => void) => {
    const text = params.get(key);
    params.delete(key);
    if (text === null) return;
    try {
      apply(text);
    } catch (e) {
      errors.push((e as Error).message);
    }
  };
  read('present', (t) => {
    if (!['1', '0', 'true', 'false'].includes(t))
      throw new Error(`URL: present must be 1 or 0 (got ${JSON.stringify(t.slice(0, 40))})`);
    state.presenting = t === '1' || t === 'true';
  });
  read('autoReset', (t) => (state.autoReset = count('autoReset', t, 0)));
  read('follow', (t) => (state.followIndex = count('follow', t, 0)));
  read('followEvery', (t) => (state.followEvery = count('followEvery', t, 1)));
  const rest = params.toString();
  return { rest: rest === '' ? '' : `#${rest}`, state, errors };
}

/** `hash` (url-state's encoding) with the present keys that differ from the defaults appended. */
export function withPresentState(hash: string, state: PresentState): string {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  if (state.presenting) params.set('present', '1');
  if (state.autoReset !== PRESENT_DEFAULTS.autoReset) params.set('autoReset', String(state.autoReset));
  if (state.followIndex >= 0) params.set('follow', String(state.followIndex));
  if (state.followEvery !== PRESENT_DEFAULTS.followEvery) params.set('followEvery', String(state.followEvery));
  return `#${params.toString()}`;
}
