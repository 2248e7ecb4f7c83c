// Keeps the URL hash in step with the store: whenever the config, preset, view, backend preference, ONNX model,
// the inspector's colouring, presenter mode or the followed problem (present-state.ts)
// changes, the hash is rewritten (replaceState: no history entry per knob edit), so the address bar is always a
// link that reproduces the current setup. An ablation spec too long for the query is kept here (ablation-url.ts).
import type { PlaygroundStore } from '../store/create-store.ts';
import { withAblationHash } from './ablation-url.ts';
import { withPresentState } from './present-state.ts';
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
      s.weightPrecision === prev.weightPrecision &&
      s.onnxModel === prev.onnxModel &&
      s.coloring === prev.coloring &&
      s.chartSmoothing === prev.chartSmoothing &&
      s.chartX === prev.chartX &&
      s.presenting === prev.presenting &&
      s.autoReset === prev.autoReset &&
      s.followIndex === prev.followIndex &&
      s.followEvery === prev.followEvery &&
      s.ablationSpec === prev.ablationSpec
    )
      return;
    const hash = withAblationHash(
      withPresentState(
        encodeUrlState({
          preset: s.preset,
          config: s.config,
          view: s.view,
          backend: s.backendPreference,
          weights: s.weightPrecision,
          onnxModel: s.onnxModel,
          coloring: s.coloring,
          smooth: s.chartSmoothing,
          x: s.chartX,
        }),
        { presenting: s.presenting, autoReset: s.autoReset, followIndex: s.followIndex, followEvery: s.followEvery },
      ),
      s.ablationSpec,
    );
    if (hash !== target.hash) target.replace(hash);
  });
}
