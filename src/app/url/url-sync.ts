// Keeps the URL hash in step with the store: whenever the config, preset, view, backend preference, ONNX model or
// the inspector's colouring
// changes, the hash is rewritten (replaceState: no history entry per knob edit), so the address bar is always a
// link that reproduces the current setup.
import type { PlaygroundStore } from '../store/create-store.ts';
import { encodeUrlState } from './url-state.ts';

export interface HashTarget {
  readonly hash: string;
  replace(hash: string): void;
}

export function browserHash(): HashTarget {
  return {
    get hash() {
      return location.hash;
    },
    replace: (hash) => history.replaceState(null, '', hash),
  };
}

/** Returns the unsubscribe function. */
export function syncUrl(store: PlaygroundStore, target: HashTarget): () => void {
  return store.subscribe((s, prev) => {
    if (
      s.config === prev.config &&
      s.view === prev.view &&
      s.preset === prev.preset &&
      s.backendPreference === prev.backendPreference &&
      s.frozenSpec === prev.frozenSpec &&
      s.colouring === prev.colouring &&
      s.chartSmoothing === prev.chartSmoothing &&
      s.chartX === prev.chartX
    )
      return;
    const hash = encodeUrlState({ preset: s.preset, config: s.config, view: s.view, backend: s.backendPreference, onnxModel: s.frozenSpec, colour: s.colouring, smooth: s.chartSmoothing, x: s.chartX });
    if (hash !== target.hash) target.replace(hash);
  });
}
