// Pure selectors and derivations over store data: the runs drawn on the charts (current plus overlaid), rollouts
// grouped for the inspector. Derivations that build new arrays take store fields, and components memoise them
// (a zustand selector must not return a fresh object each call).
import type { RolloutRecord } from '../../rl/metrics.ts';
import type { SavedRun } from '../persist/run-types.ts';

/** Runs drawn on the charts: the current run first, then the overlaid ones in the order they were picked. */
const chartRuns = (current: SavedRun | null, runs: readonly SavedRun[], overlayIds: readonly string[]): SavedRun[] => {
  const out: SavedRun[] = [];
  if (current) out.push(current);
  for (const id of overlayIds) {
    const run = runs.find((r) => r.id === id);
    if (run && run.id !== current?.id) out.push(run);
  }
  return out;
};

/** Rollouts of one step grouped by GRPO group (one problem each), samples in order. */
export function groupRollouts(rollouts: readonly RolloutRecord[]): RolloutRecord[][] {
  const groups = new Map<number, RolloutRecord[]>();
  for (const r of rollouts) {
    const g = groups.get(r.group) ?? [];
    g.push(r);
    groups.set(r.group, g);
  }
  return [...groups.entries()]
    .toSorted((a, b) => a[0] - b[0])
    .map(([, g]) => g.toSorted((a, b) => a.sample - b.sample));
}

export const runSelectors = { chartRuns };
