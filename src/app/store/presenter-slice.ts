// Presenter slice: presenter mode (full-screen booth view) on or off, and after how many steps an unattended
// booth starts a new run (autoReset; 0 = never). Both are in the link (present=1&autoReset=200).
import type { StateCreator } from 'zustand/vanilla';
import type { PlaygroundState, PresenterSlice } from './types.ts';

export function createPresenterSlice(initial: {
  presenting?: boolean;
  autoReset?: number;
}): StateCreator<PlaygroundState, [], [], PresenterSlice> {
  return (set) => ({
    presenting: initial.presenting ?? false,
    autoReset: initial.autoReset ?? 0,
    setPresenting: (presenting) => set({ presenting }),
    setAutoReset: (autoReset) => set({ autoReset: Math.max(0, Math.floor(autoReset)) }),
  });
}
