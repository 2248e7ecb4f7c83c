// Whether an element is on screen (within ON_SCREEN_MARGIN of the viewport), from an IntersectionObserver, and a
// value held while it is not. The curves are a dozen SVG charts and most of them sit below the fold: redrawing an
// off-screen chart on every step is main-thread work that competes with the training worker for the machine's
// cores and that no one sees. An off-screen chart keeps what it last drew and catches up when it scrolls into view.
import { useEffect, useRef, useState, type RefObject } from 'react';

/** how far outside the viewport a chart still counts as on screen (a scroll reaches it before it is redrawn) */
export const ON_SCREEN_MARGIN = '200px';

/** true until the observer says otherwise; always true where there is no IntersectionObserver */
export function useOnScreen(ref: RefObject<Element | null>): boolean {
  const [onScreen, setOnScreen] = useState(true);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        const last = entries.at(-1);
        if (last) setOnScreen(last.isIntersecting);
      },
      { rootMargin: ON_SCREEN_MARGIN },
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return onScreen;
}

/** `value` while `live`; while not, the value it had when it last was. */
export function useHeldUnless<T>(value: T, live: boolean): T {
  const held = useRef(value);
  if (live) held.current = value;
  return held.current;
}
