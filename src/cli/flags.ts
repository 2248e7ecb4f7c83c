// The one parser of the command line's numeric flags (--steps, --seed, --save-every, --limit, --seeds, ...):
// a flag that is accepted must mean what it says, so "abc", "2.5", "-3", "1e400" or an out-of-range value is
// refused with the flag's name and the text given, instead of being read as NaN, 0 or "all".

export interface IntRange {
  /** smallest accepted value (default 0) */
  min?: number;
  /** largest accepted value (default Number.MAX_SAFE_INTEGER) */
  max?: number;
}

function rangeWords(min: number, max: number): string {
  if (max !== Number.MAX_SAFE_INTEGER) return `an integer from ${min} to ${max}`;
  if (min === 0) return 'a non-negative integer';
  if (min === 1) return 'a positive integer';
  return `an integer >= ${min}`;
}

/** A whole number written in decimal digits (an optional leading minus sign when `min` < 0), within the range. */
export function intFlag(name: string, value: string, range: IntRange = {}): number {
  const min = range.min ?? 0;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  const text = value.trim();
  const n = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new Error(`${name} must be ${rangeWords(min, max)}, got "${value}"`);
  return n;
}

/** A comma-separated list of integers, each checked as intFlag does. */
export function intListFlag(name: string, value: string, range: IntRange = {}): number[] {
  const parts = value.split(',');
  if (parts.some((p) => p.trim() === ''))
    throw new Error(`${name} must be a comma-separated list of integers, got "${value}"`);
  return parts.map((p) => intFlag(name, p, range));
}
