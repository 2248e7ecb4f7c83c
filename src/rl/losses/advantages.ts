// Advantage estimators over one step's rows (a row = one agent's conversation in one episode; its outcome
// reward is the same for every trained token). GRPO as verl / ReMA (group mean, unbiased std + eps, a group of
// one has mean 0 and std 1) with TRL's "batch" and Dr. GRPO's "none" scaling options; REINFORCE++ as verl's
// masked_whiten of token returns over the whole batch, and as OpenRLHF with the KL penalty in the token rewards
// (per-token advantages).

import type { StdScaling } from '../config.ts';

export interface GrpoResult {
  /** one advantage per row */
  advantages: number[];
  /** fraction of groups (size > 1) whose rewards are all equal: they carry no learning signal */
  fracZeroStd: number;
}

/** mean and unbiased (n-1) standard deviation; for n < 2 the std is reported as NaN */
export function meanAndStd(values: readonly number[]): { mean: number; std: number } {
  const n = values.length;
  if (n === 0) return { mean: 0, std: Number.NaN };
  const mean = values.reduce((s, v) => s + v, 0) / n;
  if (n < 2) return { mean, std: Number.NaN };
  const ss = values.reduce((s, v) => s + (v - mean) * (v - mean), 0);
  return { mean, std: Math.sqrt(ss / (n - 1)) };
}

/** Fraction of groups (size > 1) whose rewards are all equal (GrpoResult.fracZeroStd), for any estimator. */
export function zeroStdGroupFraction(rewards: readonly number[], groups: readonly (string | number)[]): number {
  return grpoAdvantages(rewards, groups, { scaling: 'none', eps: 0 }).fracZeroStd;
}

/**
 * GRPO outcome advantages. rewards[i] is row i's outcome, groups[i] its group key (verl: uid = role + prompt).
 * - scaling "group": A = (r - mean_g) / (std_g + eps)      (verl compute_grpo_outcome_advantage, ReMA code)
 * - scaling "batch": A = (r - mean_g) / (std_batch + eps)  (TRL scale_rewards="batch")
 * - scaling "none":  A = r - mean_g                         (Dr. GRPO, verl norm_adv_by_std_in_grpo=False)
 * A group of a single row has mean 0 and std 1 (verl), so its advantage is its raw reward.
 */
export function grpoAdvantages(
  rewards: readonly number[],
  groups: readonly (string | number)[],
  opts: { scaling: StdScaling; eps: number },
): GrpoResult {
  if (rewards.length !== groups.length)
    throw new Error(`grpoAdvantages: ${rewards.length} rewards but ${groups.length} group keys`);
  const members = new Map<string | number, number[]>();
  groups.forEach((g, i) => {
    const list = members.get(g);
    if (list) list.push(i);
    else members.set(g, [i]);
  });
  const groupMean = new Map<string | number, number>();
  const groupStd = new Map<string | number, number>();
  let multi = 0;
  let zeroStd = 0;
  for (const [g, idx] of members) {
    if (idx.length === 1) {
      groupMean.set(g, 0);
      groupStd.set(g, 1);
      continue;
    }
    const { mean, std } = meanAndStd(idx.map((i) => rewards[i]));
    groupMean.set(g, mean);
    groupStd.set(g, std);
    multi += 1;
    if (std === 0) zeroStd += 1;
  }
  const batchStd = rewards.length > 1 ? meanAndStd(rewards).std : 1;
  const advantages = rewards.map((r, i) => {
    const g = groups[i];
    const centred = r - groupMean.get(g)!;
    if (opts.scaling === 'none') return centred;
    const std = opts.scaling === 'group' ? groupStd.get(g)! : batchStd;
    return centred / (std + opts.eps);
  });
  return { advantages, fracZeroStd: multi > 0 ? zeroStd / multi : 0 };
}

/**
 * REINFORCE++ (verl reinforce_plus_plus with gamma = 1 and an outcome reward): every trained token of row i
 * carries the return R_i; the returns are whitened over all trained tokens of the batch:
 *   mu = sum_i n_i R_i / N,  var = sum_i n_i (R_i - mu)^2 / (N - 1),  A_i = (R_i - mu) / sqrt(var + eps).
 * tokenCounts[i] = n_i, the number of trained tokens of row i (rows with n_i = 0 get advantage 0).
 */
export function reinforcePlusPlusAdvantages(
  returns: readonly number[],
  tokenCounts: readonly number[],
  eps = 1e-8,
): number[] {
  if (returns.length !== tokenCounts.length)
    throw new Error(`reinforcePlusPlusAdvantages: ${returns.length} returns but ${tokenCounts.length} counts`);
  let total = 0;
  let sum = 0;
  returns.forEach((r, i) => {
    total += tokenCounts[i];
    sum += tokenCounts[i] * r;
  });
  if (total === 0) return returns.map(() => 0);
  const mu = sum / total;
  let ss = 0;
  returns.forEach((r, i) => {
    ss += tokenCounts[i] * (r - mu) * (r - mu);
  });
  const variance = total > 1 ? ss / (total - 1) : 0;
  const scale = 1 / Math.sqrt(variance + eps);
  return returns.map((r, i) => (tokenCounts[i] > 0 ? (r - mu) * scale : 0));
}

/**
 * REINFORCE++ with the KL penalty in the reward, as OpenRLHF (the paper's single-turn runs): row i's trained tokens
 * j = 0..n_i-1 earn reward_ij = -beta * kl_ij, plus the outcome R_i at the last token (compute_reward with
 * kl = log pi_old - log pi_ref, k1); returns are reverse cumulative sums with gamma = 1 (get_cumulative_returns):
 *   G_ij = R_i - beta * sum_{s >= j} kl_is;
 * and the advantages are the returns whitened over every trained token of the batch (NaiveReplayBuffer.normalize):
 *   A_ij = (G_ij - mu) / sqrt(max(var, 1e-8)),  mu = mean of G,  var = mean of (G - mu)^2 (biased).
 * Returns one Float64Array of per-token advantages per row (rows without tokens: empty).
 */
export function reinforcePlusPlusKlRewardAdvantages(
  outcomes: readonly number[],
  kl: readonly ArrayLike<number>[],
  beta: number,
): Float64Array[] {
  if (outcomes.length !== kl.length)
    throw new Error(`reinforcePlusPlusKlRewardAdvantages: ${outcomes.length} outcomes but ${kl.length} KL rows`);
  const returns = kl.map((row, i) => {
    const g = new Float64Array(row.length);
    let acc = outcomes[i];
    for (let j = row.length - 1; j >= 0; j--) {
      acc -= beta * row[j];
      g[j] = acc;
    }
    return g;
  });
  let n = 0;
  let sum = 0;
  for (const g of returns) {
    for (const x of g) sum += x;
    n += g.length;
  }
  if (n === 0) return returns;
  const mu = sum / n;
  let ss = 0;
  for (const g of returns) for (const x of g) ss += (x - mu) * (x - mu);
  const rstd = 1 / Math.sqrt(Math.max(ss / n, 1e-8));
  return returns.map((g) => g.map((x) => (x - mu) * rstd));
}
