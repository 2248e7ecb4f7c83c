// Explain slice: the trainer's "explain this step" records of the current run (the last EXPLAIN_KEEP steps, in
// memory), which step the explain view shows and on which screen. The view opens from the curves, the step list
// in the view itself, and presenter mode's `e` key (openExplain).
import type { StateCreator } from 'zustand/vanilla';
import type { ExplainSlice, PlaygroundState } from './types.ts';

/** how many steps' records the page keeps */
export const EXPLAIN_KEEP = 50;

export function createExplainSlice(): StateCreator<PlaygroundState, [], [], ExplainSlice> {
  return (set, get) => ({
    explains: [],
    explainStep: null,
    explainScreen: 0,
    openExplain(step) {
      const records = get().explains;
      if (records.length === 0) {
        set({ explainStep: -1, explainScreen: 0 });
        return;
      }
      // the asked step, else the nearest recorded one before it, else the latest
      const wanted = step ?? records.at(-1)!.step;
      const at = records.findLast((r) => r.step <= wanted) ?? records.at(-1)!;
      set({ explainStep: at.step, explainScreen: 0 });
    },
    closeExplain() {
      set({ explainStep: null });
    },
    setExplainScreen(screen) {
      set({ explainScreen: screen });
    },
    internal_recordExplain(record) {
      const kept = get().explains;
      // a step number not after the last one belongs to a new run (Reset): the old records go
      const previous = kept.length > 0 && kept.at(-1)!.step >= record.step ? [] : kept;
      set({ explains: [...previous, record].slice(-EXPLAIN_KEEP) });
      if (get().explainStep === -1) set({ explainStep: record.step });
    },
  });
}
