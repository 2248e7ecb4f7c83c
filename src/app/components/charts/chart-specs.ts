// Which curves the page draws, as data: one entry per small chart, each with the metrics-record fields it
// plots. Line charts overlay every run on the chart; stacked bar charts show the current run only. A spec with
// `when` is drawn only for runs it applies to (the meta-action histogram: runs in JSON mode).
import type { MetricsRecord } from '../../../rl/metrics.ts';
import type { SavedRun } from '../../persist/run-types.ts';

export interface SeriesSpec {
  label: string;
  value: (m: MetricsRecord) => number | undefined;
  /** points that also come from the run's other records (held-out evaluations), merged by step */
  extra?: (run: SavedRun) => { step: number; value: number }[];
}

export interface ChartSpec {
  id: string;
  title: string;
  /** what the curve means, shown on hover */
  note: string;
  kind: 'line' | 'stacked';
  series: SeriesSpec[];
  domain?: [number, number];
  /** the axis starts at 0 and stays readable when every value is 0 (KL, clip fractions before any clipping) */
  fromZero?: boolean;
  /** drawn only when this holds for the run the stacked chart shows (absent: always) */
  when?: (run: SavedRun) => boolean;
}

/** Did the run record meta-action statistics (config.metaActions "json")? */
export const hasActions = (run: SavedRun): boolean => run.metrics.some((m) => m.action_EMPTY !== undefined);

const finite = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? undefined : x);

export const chartSpecs: readonly ChartSpec[] = [
  {
    id: 'reward',
    title: 'Reward',
    kind: 'line',
    note: "Mean and standard deviation of the episode reward over the step's rollouts.",
    series: [
      { label: 'mean', value: (m) => finite(m.reward_mean) },
      { label: 'std', value: (m) => finite(m.reward_std) },
    ],
  },
  {
    id: 'accuracy',
    title: 'Accuracy',
    kind: 'line',
    domain: [0, 1],
    note: 'Train: fraction of sampled episodes whose final answer was right. Held-out: greedy pass@1 on evaluation steps.',
    series: [
      { label: 'train', value: (m) => finite(m.accuracy) },
      {
        label: 'held-out',
        value: (m) => finite(m.eval_accuracy),
        extra: (run) => (run.evaluations ?? []).map((p) => ({ step: p.step, value: p.accuracy })),
      },
    ],
  },
  {
    id: 'kl',
    title: 'KL to reference',
    kind: 'line',
    fromZero: true,
    note: 'Mean per-token KL between the trained policy and the base weights (adapters off).',
    series: [{ label: 'kl', value: (m) => finite(m.kl) }],
  },
  {
    id: 'entropy',
    title: 'Entropy',
    kind: 'line',
    note: 'Mean next-token entropy of the trained tokens. A fall together with reward std and length is the Echo Trap.',
    series: [{ label: 'entropy', value: (m) => finite(m.entropy) }],
  },
  {
    id: 'clip',
    title: 'Clip fraction',
    kind: 'line',
    fromZero: true,
    note: 'Fraction of trained tokens (or turns) whose ratio was clipped below 1-eps (low) or above 1+eps (high). Zero when fully on-policy.',
    series: [
      { label: 'low', value: (m) => finite(m.clip_frac_low) },
      { label: 'high', value: (m) => finite(m.clip_frac_high) },
    ],
  },
  {
    id: 'length',
    title: 'Response length per agent',
    kind: 'line',
    note: 'Mean tokens per message of the meta-thinking agent (MTA) and the reasoning agent (RA).',
    series: [
      { label: 'MTA', value: (m) => finite(m.len_meta_mean) },
      { label: 'RA', value: (m) => finite(m.len_reason_mean) },
    ],
  },
  {
    id: 'turns',
    title: 'Turns per episode',
    kind: 'line',
    note: 'Mean number of MTA+RA rounds before [FINISH] or a cap.',
    series: [{ label: 'turns', value: (m) => finite(m.turns_mean) }],
  },
  {
    id: 'grad',
    title: 'Grad norm · zero-std groups',
    kind: 'line',
    note: 'Global gradient norm before clipping, and the fraction of groups whose rewards were all equal (no learning signal).',
    series: [
      { label: 'grad norm', value: (m) => finite(m.grad_norm) },
      { label: 'zero-std groups', value: (m) => finite(m.frac_zero_std_groups) },
    ],
  },
  {
    id: 'finish',
    title: 'Finish reasons',
    kind: 'stacked',
    note: 'How episodes ended: finished ([FINISH] then an answer), reach_max_turn, stop_when_truncated, completion_token_exceeded.',
    series: (['finished', 'reach_max_turn', 'stop_when_truncated', 'completion_token_exceeded'] as const).map((k) => ({
      label: k,
      value: (m: MetricsRecord) => m.finish_reasons?.[k] ?? 0,
    })),
  },
  {
    id: 'actions',
    title: 'Meta-actions',
    kind: 'stacked',
    domain: [0, 1],
    when: hasActions,
    note: "JSON mode: the fraction of the step's meta-thinking turns that chose DECOMPOSE, REWRITE or EMPTY (paper Sec. 4.2.2; metrics action_*). A small model collapsing to EMPTY shows as the red band taking over.",
    series: (['DECOMPOSE', 'REWRITE', 'EMPTY'] as const).map((k) => ({
      label: k,
      value: (m: MetricsRecord) => m[`action_${k}`] ?? 0,
    })),
  },
  {
    id: 'time',
    title: 'Stage timings (s)',
    kind: 'stacked',
    note: 'Seconds per stage of the step: rollout, reward, old and reference log-probs, advantages, update, evaluation.',
    series: (['rollout', 'reward', 'old', 'ref', 'adv', 'update', 'eval'] as const).map((k) => ({
      label: k,
      value: (m: MetricsRecord) => m.time_s?.[k] ?? 0,
    })),
  },
];
