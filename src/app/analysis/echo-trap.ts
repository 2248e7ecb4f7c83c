// The "Echo Trap" alarm (RAGEN, arXiv 2504.20073; the ReMA paper's multi-turn collapse): reward variance,
// policy entropy and response length all fall together, the agents start echoing short, identical answers
// and the gradient signal dies. Each signal alone is normal late in training; all three together is not.
// Pure function over the metrics records, so the store, the charts and the tests share one definition.
import type { MetricsRecord } from '../../rl/metrics.ts';

export interface CollapseSignal {
  /** mean over the first `window` steps (the healthy baseline) */
  baseline: number;
  /** mean over the last `window` steps */
  recent: number;
  /** recent / baseline (1 when the baseline is 0) */
  ratio: number;
  collapsed: boolean;
}

export interface EchoTrapReport {
  alarm: boolean;
  rewardStd: CollapseSignal;
  entropy: CollapseSignal;
  length: CollapseSignal;
  /** first step of the recent window, when the alarm is on */
  sinceStep: number | null;
}

export interface EchoTrapOptions {
  /** steps averaged for the baseline and for the recent value */
  window: number;
  /** a signal has collapsed when recent < threshold * baseline */
  threshold: number;
}

export const defaultEchoTrapOptions: EchoTrapOptions = { window: 3, threshold: 0.35 };

const mean = (xs: number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

function signal(values: number[], opts: EchoTrapOptions): CollapseSignal {
  const baseline = mean(values.slice(0, opts.window));
  const recent = mean(values.slice(-opts.window));
  const ratio = baseline > 0 ? recent / baseline : 1;
  return { baseline, recent, ratio, collapsed: baseline > 0 && ratio < opts.threshold };
}

/** Needs at least 2 * window steps, so that the baseline and the recent window do not overlap. */
export function detectEchoTrap(
  metrics: readonly Pick<MetricsRecord, 'step' | 'reward_std' | 'entropy' | 'len_meta_mean' | 'len_reason_mean'>[],
  opts = defaultEchoTrapOptions,
): EchoTrapReport {
  const rewardStd = signal(
    metrics.map((m) => m.reward_std),
    opts,
  );
  const entropy = signal(
    metrics.map((m) => m.entropy),
    opts,
  );
  const length = signal(
    metrics.map((m) => m.len_meta_mean + m.len_reason_mean),
    opts,
  );
  const enough = metrics.length >= 2 * opts.window;
  const alarm = enough && rewardStd.collapsed && entropy.collapsed && length.collapsed;
  return { alarm, rewardStd, entropy, length, sinceStep: alarm ? metrics[metrics.length - opts.window].step : null };
}
