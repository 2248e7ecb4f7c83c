// A time-based throttle that keeps only the latest value: the page would otherwise redraw (or the worker post)
// once per event, and on a fast run that is hundreds of times a second. The first value after a quiet period
// goes out at once; later ones within the interval collapse into one delivery of the newest at its end.
// Plain timers, so it runs in the page, in the worker and in Node tests alike.

export interface ThrottleClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: ThrottleClock = {
  now: () => (typeof performance !== 'undefined' ? performance.now() : Date.now()),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface Throttle<T> {
  /** offer a value: delivered now if the interval since the last delivery has passed, else at its end (the newest wins) */
  push(value: T): void;
  /** deliver the waiting value now, if there is one */
  flush(): void;
  /** drop the waiting value */
  cancel(): void;
}

/** `intervalMs`: a number, or a function read at each push (an interval that follows a measured cost). */
export function throttleLatest<T>(
  deliver: (value: T) => void,
  intervalMs: number | (() => number),
  clock: ThrottleClock = realClock,
): Throttle<T> {
  const interval = typeof intervalMs === 'function' ? intervalMs : () => intervalMs;
  const checked = () => {
    const ms = interval();
    if (!(ms >= 0)) throw new Error(`throttleLatest: interval must be a non-negative number of ms, got ${ms}`);
    return ms;
  };
  if (typeof intervalMs === 'number') checked();
  let last = Number.NEGATIVE_INFINITY;
  let waiting: { value: T } | null = null;
  let timer: unknown = null;

  const send = (value: T) => {
    last = clock.now();
    deliver(value);
  };
  const fire = () => {
    timer = null;
    const w = waiting;
    waiting = null;
    if (w) send(w.value);
  };
  return {
    push(value) {
      const wait = last + checked() - clock.now();
      if (wait <= 0 && timer === null) {
        send(value);
        return;
      }
      waiting = { value };
      timer ??= clock.setTimeout(fire, Math.max(0, wait));
    },
    flush() {
      if (timer !== null) clock.clearTimeout(timer);
      fire();
    },
    cancel() {
      if (timer !== null) clock.clearTimeout(timer);
      timer = null;
      waiting = null;
    },
  };
}
