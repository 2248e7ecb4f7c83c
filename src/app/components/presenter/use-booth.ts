// Presenter mode's unattended booth: training starts by itself once the model is loaded, a new run starts after
// `autoReset` steps (and trains by itself again), and the keyboard drives it (space pause / resume, r reset,
// e explain this step, Escape leaves presenter mode). A pause by the presenter is kept across resets.
import { useEffect, useRef } from 'react';
import type { PlaygroundStore } from '../../store/create-store.ts';

/** the store action the explain view provides (item 1 of issue 17), when it is there */
type WithExplain = { openExplain?: (step: number) => void };

export function useBooth(store: PlaygroundStore): void {
  const userPaused = useRef(false);
  const autoStarted = useRef(false);
  const pendingStart = useRef(false);

  useEffect(() => {
    const resetNow = () => {
      pendingStart.current = true;
      autoStarted.current = true;
      store.getState().reset();
    };
    const tick = () => {
      const s = store.getState();
      if (!s.presenting || !s.model || s.status === 'failed' || s.status === 'loading') return;
      const lastStep = s.currentRun?.metrics.at(-1)?.step ?? 0;
      if (pendingStart.current) {
        // the session says "reset: …" once the new trainer is built; training queues after its first rollout
        if (s.phase?.startsWith('reset:')) {
          pendingStart.current = false;
          if (!userPaused.current && !s.wantsTraining) s.train();
        }
        return;
      }
      if (s.autoReset > 0 && lastStep >= s.autoReset) {
        resetNow();
        return;
      }
      if (!autoStarted.current && !userPaused.current && !s.wantsTraining && (s.status === 'idle' || s.status === 'evaluating')) {
        autoStarted.current = true;
        s.train();
      }
    };
    const unsubscribe = store.subscribe(tick);
    tick();

    const onKey = (e: KeyboardEvent) => {
      const s = store.getState();
      if (!s.presenting || e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT' || target.isContentEditable)) return;
      if (e.key === ' ') {
        e.preventDefault();
        if (s.wantsTraining) {
          userPaused.current = true;
          s.pause();
        } else if (s.status === 'idle' || s.status === 'evaluating') {
          userPaused.current = false;
          autoStarted.current = true;
          s.train();
        }
      } else if (e.key === 'r' || e.key === 'R') {
        if (s.status !== 'loading' && s.status !== 'failed') resetNow();
      } else if (e.key === 'e' || e.key === 'E') {
        const open = (s as unknown as WithExplain).openExplain;
        open?.(s.currentRun?.metrics.at(-1)?.step ?? 0);
      } else if (e.key === 'Escape') {
        s.setPresenting(false);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      unsubscribe();
      window.removeEventListener('keydown', onKey);
    };
  }, [store]);
}
