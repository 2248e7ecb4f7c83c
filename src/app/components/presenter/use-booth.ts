// Presenter mode's unattended booth: training starts by itself once the model is loaded, a new run starts after
// `autoReset` steps (and trains by itself again), and the keyboard drives it (space pause / resume, r reset,
// e explain this step, Escape leaves presenter mode). A pause by the presenter is kept across resets.
// A step that was running when Reset was pressed still reports (as a step of the old run, after the reset): the
// steps that count towards autoReset are those recorded after the session said the new run exists.
import { useEffect, useRef } from 'react';
import type { PlaygroundStore } from '../../store/create-store.ts';
import type { PlaygroundState } from '../../store/types.ts';

const isReset = (activity: string | null) => activity?.startsWith('reset:') ?? false;
const stepsRecorded = (s: PlaygroundState) => s.currentRun?.metrics.length ?? 0;

export function useBooth(store: PlaygroundStore): void {
  const userPaused = useRef(false);
  const autoStarted = useRef(false);
  const pendingStart = useRef(false);
  /** the run and its number of steps when the new run began (the old run's last step may come after the reset) */
  const runAtStart = useRef<{ id: string | null; steps: number }>({ id: null, steps: 0 });

  useEffect(() => {
    const resetNow = () => {
      pendingStart.current = true;
      autoStarted.current = true;
      store.getState().reset();
    };
    const tick = (s: PlaygroundState, prev: PlaygroundState) => {
      if (!s.presenting || !s.model || s.status === 'failed' || s.status === 'loading') return;
      const lastStep = s.currentRun?.metrics.at(-1)?.step ?? 0;
      if (pendingStart.current) {
        // the session says "reset: …" once the new trainer is built (a new activity event, not one left from before)
        if (isReset(s.activity) && s.activity !== prev.activity) {
          pendingStart.current = false;
          runAtStart.current = { id: s.currentRun?.id ?? null, steps: stepsRecorded(s) };
          if (!userPaused.current && !s.wantsTraining) s.train();
        }
        return;
      }
      const newRunStepped =
        (s.currentRun?.id ?? null) !== runAtStart.current.id || stepsRecorded(s) > runAtStart.current.steps;
      if (s.autoReset > 0 && lastStep >= s.autoReset && newRunStepped) {
        resetNow();
        return;
      }
      if (
        !autoStarted.current &&
        !userPaused.current &&
        !s.wantsTraining &&
        (s.status === 'idle' || s.status === 'evaluating')
      ) {
        autoStarted.current = true;
        s.train();
      }
    };
    const unsubscribe = store.subscribe(tick);
    tick(store.getState(), store.getState());

    const onKey = (e: KeyboardEvent) => {
      const s = store.getState();
      if (!s.presenting || e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      if (
        target &&
        (target.tagName === 'INPUT' ||
          target.tagName === 'TEXTAREA' ||
          target.tagName === 'SELECT' ||
          target.isContentEditable)
      )
        return;
      if (e.key === ' ') {
        e.preventDefault();
        if (s.wantsTraining || pendingStart.current) {
          // training, or a new run being built that would start training by itself: either way, pause
          userPaused.current = true;
          if (s.wantsTraining) s.pause();
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
