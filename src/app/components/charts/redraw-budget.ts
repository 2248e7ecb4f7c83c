// How often the curves may redraw while steps stream in. A redraw of every chart (a dozen recharts SVG charts)
// costs the page's main thread a measurable time per redraw, and on a machine with two cores that time is taken
// from the training worker. The curves redraw at most every CHART_REDRAW_MS, and less often when a redraw is
// slow: the interval is the last redraw's time divided by CHART_BUDGET (the share of the main thread the curves
// may take), up to CHART_REDRAW_MAX_MS. A redraw's time runs from its render to the end of the frame that paints it.

/** the shortest time between two redraws (ms) */
export const CHART_REDRAW_MS = 500;
/** the longest (ms): the curves never lag the run by more than this */
export const CHART_REDRAW_MAX_MS = 4000;
/** the share of the main thread's time the redraws may take */
export const CHART_BUDGET = 0.1;

/** ms between two redraws after a redraw that took `drawMs` */
export function chartRedrawInterval(drawMs: number): number {
  if (!(drawMs > 0)) return CHART_REDRAW_MS;
  return Math.min(CHART_REDRAW_MAX_MS, Math.max(CHART_REDRAW_MS, drawMs / CHART_BUDGET));
}
