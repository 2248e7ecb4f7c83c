// React access to the page's store: a context holding the store instance and a typed selector hook.
import { createContext, createElement, useContext, type ReactNode } from 'react';
import { useStore as useZustandStore } from 'zustand';
import type { PlaygroundStore } from './create-store.ts';
import type { PlaygroundState } from './types.ts';

const StoreContext = createContext<PlaygroundStore | null>(null);

export function StoreProvider({ store, children }: { store: PlaygroundStore; children: ReactNode }) {
  return createElement(StoreContext.Provider, { value: store }, children);
}

export function usePlayground<T>(selector: (s: PlaygroundState) => T): T {
  const store = useContext(StoreContext);
  if (!store) throw new Error('usePlayground must be used inside <StoreProvider>');
  return useZustandStore(store, selector);
}

/** The store itself, for hooks that subscribe outside rendering (presenter mode's booth). */
export function usePlaygroundStore(): PlaygroundStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('usePlaygroundStore must be used inside <StoreProvider>');
  return store;
}
