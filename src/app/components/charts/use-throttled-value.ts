// The charts' view of fast-changing store data: at most one redraw per interval, rendered as a transition so
// that a click (Pause) is handled before a pending chart redraw instead of waiting behind it.
import { startTransition, useEffect, useMemo, useState } from 'react';
import { throttleLatest } from '../../util/throttle.ts';

export function useThrottledValue<T>(value: T, intervalMs: number): T {
  const [shown, setShown] = useState(value);
  const throttle = useMemo(
    () => throttleLatest<T>((v) => startTransition(() => setShown(() => v)), intervalMs),
    [intervalMs],
  );
  useEffect(() => () => throttle.cancel(), [throttle]);
  useEffect(() => throttle.push(value), [value, throttle]);
  return shown;
}
