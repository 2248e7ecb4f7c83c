// View slice: which tab is open, the backend preference and weight precision, the model to load, inspector and curve options.
import type { StateCreator } from 'zustand/vanilla';
import type { PlaygroundState, ViewSlice } from './types.ts';

export function createViewSlice(
  initial: Pick<ViewSlice, 'view' | 'backendPreference' | 'modelSpec' | 'onnxModel'> &
    Partial<Pick<ViewSlice, 'coloring' | 'chartSmoothing' | 'chartX' | 'weightPrecision'>>,
): StateCreator<PlaygroundState, [], [], ViewSlice> {
  return (set) => ({
    ...initial,
    selectedGroup: 0,
    coloring: initial.coloring ?? 'advantage',
    chartSmoothing: initial.chartSmoothing ?? 0,
    chartX: initial.chartX ?? 'step',
    weightPrecision: initial.weightPrecision ?? 'auto',
    setView: (view) => set({ view }),
    setBackendPreference: (backendPreference) => set({ backendPreference }),
    setWeightPrecision: (weightPrecision) => set({ weightPrecision }),
    selectGroup: (selectedGroup) => set({ selectedGroup }),
    setColoring: (coloring) => set({ coloring }),
    setChartSmoothing: (chartSmoothing) => set({ chartSmoothing }),
    setChartX: (chartX) => set({ chartX }),
  });
}
