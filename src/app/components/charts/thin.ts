// Caps the points a chart draws: a long or fast run has thousands of steps, and an SVG chart redraws every
// one of them (a stacked bar chart draws steps x series rectangles). Keeps evenly spaced records, always the
// first and the last, so the curve's shape and its latest value stay on screen.

/** the records drawn: all of them up to `max`, else every k-th (k the smallest stride that fits) plus the last */
export function thinEvenly<T>(items: readonly T[], max: number): T[] {
  if (!Number.isInteger(max) || max < 2) throw new Error(`thinEvenly: max must be an integer >= 2, got ${max}`);
  if (items.length <= max) return [...items];
  const stride = Math.ceil((items.length - 1) / (max - 1));
  const out: T[] = [];
  for (let i = 0; i < items.length - 1; i += stride) out.push(items[i]);
  out.push(items[items.length - 1]);
  return out;
}
