// The charts' view of fast-changing store data: at most one redraw per interval, rendered as a transition so
// that a click (Pause) is handled before a pending chart redraw instead of waiting behind it.
// `intervalMs` may be a function, read at each new value (an interval that follows the measured cost of a redraw).
import { startTransition, useEffect, useMemo, useRef, useState } from 'react';
import { throttleLatest } from '../../util/throttle.ts';

export function useThrottledValue<T>(value: T, intervalMs: number | (() => number)): T {
  const [shown, setShown] = useState(value);
  const interval = useRef(intervalMs);
  interval.current = intervalMs;
  const throttle = useMemo(
    () =>
      throttleLatest<T>(
        (v) => startTransition(() => setShown(() => v)),
        () => (typeof interval.current === 'function' ? interval.current() : interval.current),
      ),
    [],
  );
  useEffect(() => () => throttle.cancel(), [throttle]);
  useEffect(() => throttle.push(value), [value, throttle]);
  return shown;
}
