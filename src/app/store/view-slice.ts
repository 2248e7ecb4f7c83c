// View slice: which tab is open, the backend preference, the model to load, inspector options.
import type { StateCreator } from 'zustand/vanilla';
import type { PlaygroundState, ViewSlice } from './types.ts';

export function createViewSlice(initial: Pick<ViewSlice, 'view' | 'backendPreference' | 'modelSpec' | 'frozenSpec'> & { colouring?: ViewSlice['colouring'] }): StateCreator<PlaygroundState, [], [], ViewSlice> {
  return (set) => ({
    ...initial,
    selectedGroup: 0,
    colouring: initial.colouring ?? 'advantage',
    setView: (view) => set({ view }),
    setBackendPreference: (backendPreference) => set({ backendPreference }),
    selectGroup: (selectedGroup) => set({ selectedGroup }),
    setColouring: (colouring) => set({ colouring }),
  });
}
