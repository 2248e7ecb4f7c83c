// The advantage estimators, one entry per config.advantage value, as verl's core_algos registers its estimators
// (register_adv_est / get_adv_estimator_fn): the trainer looks the configured one up here instead of branching.
// Each entry names the config fields it reads, so a field an estimator ignores is visible as such. The maths is
// in advantages.ts; an entry adapts the step's rows to it:
//
//   grpo         A_i = (R_i - mean_g) / (std_g + advEps)     verl compute_grpo_outcome_advantage (epsilon 1e-6),
//                with stdScaling "batch" / "none" (TRL)      ReMA's script; one advantage per row
//   reinforce++  A_i = (R_i - mu) / sqrt(var + 1e-8)         verl compute_reinforce_plus_plus_outcome_advantage
//                mu, var (unbiased) over all trained tokens  (masked_whiten); gamma 1, outcome reward
//                with klPlacement "reward" and klBeta > 0:   OpenRLHF REINFORCE++ (the paper's single-turn runs)
//                A_ij = whiten_{1e-8}(R_i - beta sum_{s>=j} kl_is), per token (reinforcePlusPlusKlRewardAdvantages)
//
// advEps is GRPO's std epsilon. REINFORCE++ does not read it: both of its sources whiten with their own fixed
// floor on the variance (verl masked_whiten: rsqrt(var + 1e-8); OpenRLHF: rsqrt(max(var, 1e-8))), not the
// GRPO epsilon (verl's 1e-6, added to the std), and the REINFORCE++ preset's numbers are those sources'.

import type { AdvantageEstimator, ExperimentConfig } from '../config.ts';
import { grpoAdvantages, reinforcePlusPlusAdvantages, reinforcePlusPlusKlRewardAdvantages } from './advantages.ts';

/** What an estimator needs of a training row (train/rows.ts TrainRow has these fields). */
export interface AdvantageRow {
  /** the row's outcome reward */
  reward: number;
  /** GRPO group key: agent and problem */
  group: string;
  /** trained positions (only their count is read) */
  positions: readonly number[];
  /** log-probs under pi_old and the reference, per trained token (the KL in the reward needs both) */
  oldLogp: ArrayLike<number> | null;
  refLogp: ArrayLike<number> | null;
}

/** The config fields an estimator may read. */
export type AdvantageConfig = Pick<ExperimentConfig, 'stdScaling' | 'advEps' | 'klPlacement' | 'klBeta'>;

export interface Advantages {
  /** one advantage per row (with per-token advantages: their mean) */
  advantages: number[];
  /** per-token advantages when they differ along a row (KL in the reward); one array per row */
  tokenAdvantages?: Float64Array[];
}

export interface AdvantageEstimatorEntry {
  /** the formula and its source, for the docs and the page */
  doc: string;
  /** the config fields the estimator reads; the others of AdvantageConfig do not change its result */
  reads: readonly (keyof AdvantageConfig)[];
  estimate: (rows: readonly AdvantageRow[], config: AdvantageConfig) => Advantages;
}

function grpo(rows: readonly AdvantageRow[], config: AdvantageConfig): Advantages {
  const rewards = rows.map((r) => r.reward);
  const groups = rows.map((r) => r.group);
  return { advantages: grpoAdvantages(rewards, groups, { scaling: config.stdScaling, eps: config.advEps }).advantages };
}

/** The per-token k1 KL (log pi_old - log pi_ref) of each row, for the KL in the reward. */
function klRows(rows: readonly AdvantageRow[]): Float64Array[] {
  return rows.map((r, i) => {
    if (r.positions.length === 0) return new Float64Array(0);
    const { oldLogp, refLogp } = r;
    if (!oldLogp || !refLogp)
      throw new Error(`advantage reinforce++: row ${i} needs old and reference log-probs for the KL in the reward`);
    return Float64Array.from({ length: r.positions.length }, (_, j) => oldLogp[j] - refLogp[j]);
  });
}

function reinforcePlusPlus(rows: readonly AdvantageRow[], config: AdvantageConfig): Advantages {
  const rewards = rows.map((r) => r.reward);
  if (config.klPlacement === 'reward' && config.klBeta > 0) {
    const perToken = reinforcePlusPlusKlRewardAdvantages(rewards, klRows(rows), config.klBeta);
    const advantages = perToken.map((a) => (a.length > 0 ? a.reduce((s, x) => s + x, 0) / a.length : 0));
    return { advantages, tokenAdvantages: perToken };
  }
  return {
    advantages: reinforcePlusPlusAdvantages(
      rewards,
      rows.map((r) => r.positions.length),
    ),
  };
}

export const ADVANTAGE_ESTIMATORS: Readonly<Record<AdvantageEstimator, AdvantageEstimatorEntry>> = {
  grpo: {
    doc: 'A = (R - mean_g) / (std_g + advEps) over the group of rows of one agent and problem (verl compute_grpo_outcome_advantage; stdScaling "batch": TRL, "none": Dr. GRPO)',
    reads: ['stdScaling', 'advEps'],
    estimate: grpo,
  },
  'reinforce++': {
    doc: 'A = (R - mu) / sqrt(var + 1e-8) over every trained token of the batch (verl compute_reinforce_plus_plus_outcome_advantage, masked_whiten); with klPlacement "reward": per-token returns R - beta sum kl, whitened (OpenRLHF)',
    reads: ['klPlacement', 'klBeta'],
    estimate: reinforcePlusPlus,
  },
};

/** The configured estimator's advantages for `rows`. */
export function estimateAdvantages(
  estimator: AdvantageEstimator,
  rows: readonly AdvantageRow[],
  config: AdvantageConfig,
): Advantages {
  const entry = ADVANTAGE_ESTIMATORS[estimator];
  if (!entry)
    throw new Error(
      `advantage: unknown estimator "${String(estimator)}" (known: ${Object.keys(ADVANTAGE_ESTIMATORS).join(', ')})`,
    );
  return entry.estimate(rows, config);
}
