// How the explain view writes its numbers (4 decimals, a real minus sign, "n/a" for NaN), shared with the browser
// test that compares what is on screen with the trainer's record.

/** a number as the explain view shows it */
export function fmt(x: number, digits = 4): string {
  if (Number.isNaN(x)) return 'n/a';
  const s = x.toFixed(digits);
  // "-0.0000" reads as a sign where there is none
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s.replace('-', '−');
}

/** the sum of a row's per-token values */
export function total(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
