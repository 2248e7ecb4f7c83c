// Presenter mode's unattended booth: training starts by itself once the model is loaded, a new run starts after
// `autoReset` steps (and trains by itself again), and the keyboard drives it (space pause / resume, r reset,
// e explain this step, Escape leaves presenter mode). A pause by the presenter is kept across resets.
import { useEffect, useRef } from 'react';
import type { PlaygroundStore } from '../../store/create-store.ts';

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
        s.openExplain(s.currentRun?.metrics.at(-1)?.step);
      } else if (e.key === 'Escape') {
        // Escape closes the explain view first (it listens itself); presenter mode only when nothing is open over it
        if (s.explainStep === null) s.setPresenting(false);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      unsubscribe();
      window.removeEventListener('keydown', onKey);
    };
  }, [store]);
}
