// The clipped policy-gradient loss of ReMA / GRPO / PPO over one mini-batch, and its exact derivative with
// respect to each trained token's log-prob (what the engine's accumulateGradients consumes: it minimises
// sum_j coef_j * logp_j, so coef_j = dL/dlogp_j gives the gradient of L). Plain arithmetic over arrays:
//
//   r = the token or turn ratio pi_theta / pi_old (ratio.ts: token, turn-geometric, turn-arithmetic)
//   l(r, A) = max(-A r, -A clip(r, 1 - eps_low, 1 + eps_high));  if A < 0 and dual clip c: l = min(l, -A c)
//   per-token loss l_j = l(r of its token or turn, A) + beta * KL_j
//   L = sum_j w_j l_j - entropyCoef * sum_j v_j H_j   (w from aggregate.ts)
// where the KL part of l_j and the entropy term use the weights v_j = 1 / N (token mean over the mini-batch's N
// trained tokens, ReMA code dp_rema_actor: masked_mean of kld and entropy) with regularizerMean `token`, or v = w
// with `aggregation`.
// A turn-level ratio's loss is shared by every token of the turn, so aggregations that average inside a turn
// see exactly one loss per turn, as ReMA's compute_policy_loss does.

import type { ExperimentConfig, KlEstimator } from '../config.ts';
import { aggregationWeights, countPerTurn } from './aggregate.ts';
import { tokenRatio, turnRatio } from './ratio.ts';

export interface LossRow {
  /** turn index of each trained token (contiguous per turn) */
  turn: readonly number[];
  /** log-probs under the weights being trained */
  logp: ArrayLike<number>;
  /** log-probs under the weights that generated the rollout (pi_old) */
  oldLogp: ArrayLike<number>;
  /** log-probs under the reference policy; needed when klBeta > 0 */
  refLogp?: ArrayLike<number>;
  /** the row's advantage (one value for every token: outcome rewards) */
  advantage: number;
  /** per-token advantages replacing `advantage` (KL in the reward, klPlacement "reward"); a turn ratio uses the turn's mean */
  advantages?: ArrayLike<number>;
}

/** The loss knobs of the experiment config (each field documented in config.ts); lossNormLength resolved (> 0). */
export type LossOptions = Pick<
  ExperimentConfig,
  | 'ratio'
  | 'logRatioClip'
  | 'clipLow'
  | 'clipHigh'
  | 'dualClip'
  | 'aggregation'
  | 'lossNormLength'
  | 'klBeta'
  | 'klEstimator'
  | 'entropyCoef'
> &
  Partial<Pick<ExperimentConfig, 'regularizerMean'>>;

export interface LossResult {
  /** total loss L (policy + beta KL; the entropy bonus is applied by the engine through entropyCoef) */
  loss: number;
  /** aggregated policy-gradient part */
  pgLoss: number;
  /** dL/dlogp_j per row and token */
  coef: Float32Array[];
  /** per-token entropy coefficient for the engine (-entropyCoef * w_j), or null when entropyCoef = 0 */
  entropyCoef: Float32Array[] | null;
  /** mean per-token KL estimate (unweighted), 0 without reference log-probs */
  kl: number;
  /** fraction of ratios (tokens or turns) clipped below for A < 0, above for A > 0, and by the dual clip */
  clipFracLow: number;
  clipFracHigh: number;
  clipFracDual: number;
  /** per row and trained token: the ratio the surrogate used (turn modes: the turn's ratio on each of its tokens) */
  ratio: Float32Array[];
  /** per row and trained token: CLIP_LOW, CLIP_NONE or CLIP_HIGH (the dual clip counts as high) */
  clip: Int8Array[];
}

/** Clip codes of LossResult.clip (what the rollout inspector colours). */
export const CLIP_LOW = -1;
export const CLIP_NONE = 0;
/** clipped above for A > 0, or by the dual clip (which caps a large ratio's loss for A < 0) */
export const CLIP_HIGH = 1;

function clipCode(s: Surrogate): number {
  return s.low ? CLIP_LOW : s.high || s.dual ? CLIP_HIGH : CLIP_NONE;
}

interface Surrogate {
  loss: number;
  /** dl/dr */
  dr: number;
  low: boolean;
  high: boolean;
  dual: boolean;
}

/** PPO clipped surrogate with optional dual clip for one ratio and advantage (verl compute_policy_loss). */
export function clippedSurrogate(
  r: number,
  a: number,
  clipLow: number,
  clipHigh: number,
  dualClip: number | null,
): Surrogate {
  const unclipped = -a * r;
  const clipped = -a * Math.min(Math.max(r, 1 - clipLow), 1 + clipHigh);
  let loss = Math.max(unclipped, clipped);
  let dr = unclipped >= clipped ? -a : 0;
  const low = a < 0 && r < 1 - clipLow;
  const high = a > 0 && r > 1 + clipHigh;
  let dual = false;
  if (dualClip !== null && a < 0 && -a * dualClip < loss) {
    loss = -a * dualClip;
    dr = 0;
    dual = true;
  }
  return { loss, dr, low, high, dual };
}

/** per-token KL estimate and its derivative w.r.t. logp (k3 clamped to [-10, 10] as verl) */
export function klTerm(logp: number, ref: number, estimator: KlEstimator): { kl: number; dlogp: number } {
  if (estimator === 'k1') return { kl: logp - ref, dlogp: 1 };
  const d = ref - logp;
  const k3 = Math.exp(d) - d - 1;
  if (k3 > 10) return { kl: 10, dlogp: 0 };
  return { kl: k3, dlogp: 1 - Math.exp(d) };
}

/** Sums over a mini-batch's rows (added to row by row, token by token). */
interface Totals {
  pgLoss: number;
  klLoss: number;
  klSum: number;
  units: number;
  low: number;
  high: number;
  dual: number;
}

const zeroTotals = (): Totals => ({ pgLoss: 0, klLoss: 0, klSum: 0, units: 0, low: 0, high: 0, dual: 0 });

/**
 * Row `r` of a mini-batch with its aggregation weights `w` and regulariser weights `v` (the only cross-row inputs):
 * adds its terms to `acc`, returns its coefficients, ratios and clip codes.
 */
function rowTerms(
  row: LossRow,
  r: number,
  w: Float64Array,
  v: Float64Array,
  opts: LossOptions,
  acc: Totals,
): { coef: Float32Array; ratio: Float32Array; clip: Int8Array } {
  const cap = opts.logRatioClip;
  const n = row.turn.length;
  const c = new Float64Array(n);
  const rowRatio = new Float32Array(n);
  const rowClip = new Int8Array(n);
  const a = row.advantage;
  const perToken = row.advantages;
  if (perToken !== undefined && perToken.length !== n)
    throw new Error(`policyLoss: row ${r} has ${perToken.length} advantages for ${n} tokens`);
  if (opts.ratio === 'token') {
    for (let j = 0; j < n; j++) {
      const { ratio, dRatio } = tokenRatio(row.logp[j] - row.oldLogp[j], cap);
      const s = clippedSurrogate(ratio, perToken ? perToken[j] : a, opts.clipLow, opts.clipHigh, opts.dualClip);
      acc.pgLoss += w[j] * s.loss;
      c[j] += w[j] * s.dr * dRatio;
      rowRatio[j] = ratio;
      rowClip[j] = clipCode(s);
      acc.units += 1;
      acc.low += +s.low;
      acc.high += +s.high;
      acc.dual += +s.dual;
    }
  } else {
    // turn-level ratio: tokens of a turn are contiguous
    const sizes = countPerTurn(row.turn);
    let start = 0;
    while (start < n) {
      const t = row.turn[start];
      const len = sizes.get(t)!;
      const end = start + len;
      let turnWeight = 0;
      for (let j = start; j < end; j++) turnWeight += w[j];
      const { ratio, dRatio } = turnRatio(opts.ratio, row.logp, row.oldLogp, start, end, cap);
      // verl: the turn's advantage is the mean of its tokens' advantages
      let turnA = a;
      if (perToken) {
        turnA = 0;
        for (let j = start; j < end; j++) turnA += perToken[j];
        turnA /= len;
      }
      const s = clippedSurrogate(ratio, turnA, opts.clipLow, opts.clipHigh, opts.dualClip);
      acc.pgLoss += turnWeight * s.loss;
      for (let j = start; j < end; j++) c[j] += turnWeight * s.dr * dRatio[j - start];
      rowRatio.fill(ratio, start, end);
      rowClip.fill(clipCode(s), start, end);
      acc.units += 1;
      acc.low += +s.low;
      acc.high += +s.high;
      acc.dual += +s.dual;
      start = end;
    }
  }
  if (row.refLogp !== undefined) {
    for (let j = 0; j < n; j++) {
      const k = klTerm(row.logp[j], row.refLogp[j], opts.klEstimator);
      acc.klSum += k.kl;
      if (opts.klBeta !== 0) {
        acc.klLoss += v[j] * opts.klBeta * k.kl;
        c[j] += v[j] * opts.klBeta * k.dlogp;
      }
    }
  } else if (opts.klBeta !== 0) {
    throw new Error('policyLoss: klBeta > 0 needs reference log-probs (refLogp) on every row');
  }
  return { coef: Float32Array.from(c), ratio: rowRatio, clip: rowClip };
}

/** The aggregation weights of every row and the weights of the KL and entropy terms. */
function lossWeights(
  rows: readonly Pick<LossRow, 'turn'>[],
  opts: LossOptions,
): { w: Float64Array[]; v: Float64Array[] } {
  const w = aggregationWeights(
    rows.map((r) => r.turn),
    opts.aggregation,
    opts.lossNormLength,
  );
  // weights of the KL and entropy terms: the token mean (code) or the policy loss's own weights
  const tokenMean = (opts.regularizerMean ?? 'aggregation') === 'token';
  const totalTokens = rows.reduce((s, r) => s + r.turn.length, 0);
  const v = tokenMean ? rows.map((r) => new Float64Array(r.turn.length).fill(1 / totalTokens)) : w;
  return { w, v };
}

/**
 * The coefficients of an exactly on-policy mini-batch (pi_old = the current weights, detached; ratio 1) as a
 * function of one row's log-probs: policyLoss(rows with oldLogp = logp).coef[r]. A row's coefficients depend on the
 * other rows only through the weights (token counts), so each row's can be computed from the forward that
 * backpropagates it (TrainablePolicy.accumulateGradients with coef as a function) without a separate scoring pass.
 * `rows[r].logp` and `oldLogp` are not read.
 */
export function onPolicyCoefficients(
  rows: readonly Omit<LossRow, 'logp' | 'oldLogp'>[],
  opts: LossOptions,
): (r: number, logp: ArrayLike<number>) => Float32Array {
  const { w, v } = lossWeights(rows, opts);
  return (r, logp) => rowTerms({ ...rows[r], logp, oldLogp: logp }, r, w[r], v[r], opts, zeroTotals()).coef;
}

/** The engine's per-token entropy coefficients (-entropyCoef · v_j) from the regularizer weights v. */
function entropyOf(regWeights: readonly Float64Array[], opts: LossOptions): Float32Array[] | null {
  return opts.entropyCoef === 0 ? null : regWeights.map((w) => Float32Array.from(w, (x) => -opts.entropyCoef * x));
}

/** policyLoss(rows).entropyCoef without the loss: it depends on the rows' token counts only, not their log-probs. */
export function entropyCoefficients(rows: readonly Pick<LossRow, 'turn'>[], opts: LossOptions): Float32Array[] | null {
  return entropyOf(lossWeights(rows, opts).v, opts);
}

/** Loss, per-token coefficients, ratios and clip codes, and clip statistics for one mini-batch of rows. */
export function policyLoss(rows: readonly LossRow[], opts: LossOptions): LossResult {
  const { w: weights, v: regWeights } = lossWeights(rows, opts);
  const acc = zeroTotals();
  let tokens = 0;
  const coef: Float32Array[] = [];
  const ratios: Float32Array[] = [];
  const clips: Int8Array[] = [];
  for (let r = 0; r < rows.length; r++) {
    const t = rowTerms(rows[r], r, weights[r], regWeights[r], opts, acc);
    tokens += rows[r].turn.length;
    coef.push(t.coef);
    ratios.push(t.ratio);
    clips.push(t.clip);
  }
  const { pgLoss, klLoss, klSum, units, low, high, dual } = acc;
  const entropyCoef = entropyOf(regWeights, opts);
  return {
    loss: pgLoss + klLoss,
    pgLoss,
    coef,
    entropyCoef,
    kl: tokens > 0 ? klSum / tokens : 0,
    clipFracLow: units > 0 ? low / units : 0,
    clipFracHigh: units > 0 ? high / units : 0,
    clipFracDual: units > 0 ? dual / units : 0,
    ratio: ratios,
    clip: clips,
  };
}
