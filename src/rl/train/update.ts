// The update stage: ppoEpochs passes over the step's rows, each split into miniBatches seeded-shuffled
// mini-batches; per mini-batch: current log-probs (reused from the old-log-prob pass while the weights are
// still the rollout's, else scored), the loss and its per-token coefficients (losses/policy-loss.ts), one
// backward pass through the engine (Σ coef·logp), one optimiser step per trained adapter. When the old-log-prob
// pass was skipped (exactly on-policy: pi_old is the current weights, detached) the ratio is exactly 1 and each
// row's coefficients are computed from the log-probs of the backward's own forward (losses/policy-loss.ts
// onPolicyCoefficients; the KL and entropy terms included).
// Each row also keeps the per-token ratio and clip code the last loss that saw it used (row.view, for the
// rollout inspector: policyLoss returns them, so the inspector shows exactly what the loss computed).
// Divergence is reported, not hidden: log-probs, entropies, the loss and gradient norms that are NaN or infinite
// are named in UpdateStats.nonfinite, and an update the optimiser skipped for non-finite gradients is counted.
// When fully on-policy the loss is computed from the backward's forward (ratio exactly 1); it is reported as NaN
// when that forward gave non-finite log-probs, since the loss at those weights is undefined.

import type { OptimizerStepResult, ScoreRequest, TrainablePolicy } from '../../engine/policy/policy.ts';
import { Rng } from '../../util/rng.ts';
import type { ExperimentConfig } from '../config.ts';
import { entropyCoefficients, onPolicyCoefficients, policyLoss, type LossOptions } from '../losses/policy-loss.ts';
import type { TrainRow } from './rows.ts';

export interface UpdateStats {
  loss: number;
  /** token-mean entropy of the trained positions (from the backward passes' forwards) */
  entropy: number;
  kl: number;
  clipFracLow: number;
  clipFracHigh: number;
  /** standard deviation of the per-token ratio the surrogate used, over every mini-batch's trained tokens (0 when
   *  fully on-policy: the ratio is exactly 1) */
  ratioStd: number;
  /** mean over optimiser steps */
  gradNorm: number;
  lr: number;
  optimizerSteps: number;
  /** the quantities that were NaN or infinite somewhere in this update (empty when all were finite) */
  nonfinite: NonFiniteQuantity[];
  /** optimiser steps skipped because the gradient norm was not finite */
  skippedUpdates: number;
}

/** One optimiser step as an UpdateProbe sees it (its gradients' norms per tensor were read just before it; the
 *  probe hears of the steps after the update stage, when their results are read). */
export interface ProbedStep {
  epoch: number;
  /** index of the mini-batch within its epoch */
  miniBatch: number;
  adapter: string;
  gradNorm: number;
  lr: number;
  applied: boolean;
  /** L2 norm of each trainable tensor's gradient (TrainablePolicy.gradientNorms; empty when the policy has none) */
  tensors: { name: string; norm: number }[];
}

/** Optional observer of an update (train/explain.ts): per-token loss coefficients of chosen rows and each optimiser step. */
export interface UpdateProbe {
  /** rows whose coefficients are wanted */
  rows: ReadonlySet<TrainRow>;
  /** dLoss/dlogp per trained token of `row` in the mini-batch that just ran (later epochs overwrite earlier) */
  coef(row: TrainRow, coef: Float32Array): void;
  step(step: ProbedStep): void;
}

/** What can go non-finite in an update: per-token log-probs (any pass), entropies, the loss, the gradient norm. */
export type NonFiniteQuantity = 'logprobs' | 'entropy' | 'loss' | 'grad_norm';
const QUANTITIES: readonly NonFiniteQuantity[] = ['logprobs', 'entropy', 'loss', 'grad_norm'];

/** True when every value is finite (one pass, stops at the first bad value). */
export function allFinite(values: ArrayLike<number>): boolean {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v - v !== 0) return false; // NaN - NaN and Inf - Inf are NaN
  }
  return true;
}

export function lossOptions(config: ExperimentConfig): LossOptions {
  return {
    ratio: config.ratio,
    logRatioClip: config.logRatioClip,
    clipLow: config.clipLow,
    clipHigh: config.clipHigh,
    dualClip: config.dualClip,
    aggregation: config.aggregation,
    lossNormLength: config.lossNormLength > 0 ? config.lossNormLength : config.maxTurns * (config.maxTokensPerTurn + 1),
    // with the KL in the reward (OpenRLHF REINFORCE++) the loss carries no KL term; it is still measured
    klBeta: config.klPlacement === 'reward' ? 0 : config.klBeta,
    klEstimator: config.klEstimator,
    entropyCoef: config.entropyCoef,
    regularizerMean: config.regularizerMean,
  };
}

/** The temperature log-probs are scored at (config.logprobTemperature): the rollout's, as verl, or 1. */
export function logprobTemperature(config: ExperimentConfig): number {
  return config.logprobTemperature === 'rollout' && config.temperature > 0 ? config.temperature : 1;
}

/**
 * Does this config need the old-log-prob pass? auto: only when the weights move before a later mini-batch or epoch
 * reads pi_old, or the KL in the reward needs log pi_old before the advantages. An exactly on-policy step (one
 * epoch, one mini-batch) takes pi_old = the current weights, detached, from the backward's own forward (TRL with
 * num_iterations 1, verl's on-policy shortcut), KL in the loss included.
 */
export function needsOldLogProbs(config: ExperimentConfig): boolean {
  return (
    config.oldLogProbs === 'score' ||
    config.ppoEpochs > 1 ||
    config.miniBatches > 1 ||
    (config.klPlacement === 'reward' && config.klBeta > 0)
  );
}

/** x / n, or 0 when nothing was counted */
const mean = (x: number, n: number): number => (n > 0 ? x / n : 0);

/** A copy of `rows` ordered by sequence length (stable). */
export function sortByLength<T extends { tokens: readonly number[] }>(rows: readonly T[]): T[] {
  return rows
    .map((r, i) => ({ r, i }))
    .toSorted((a, b) => a.r.tokens.length - b.r.tokens.length || a.i - b.i)
    .map((x) => x.r);
}

export function scoreRequests(rows: readonly TrainRow[]): ScoreRequest[] {
  return rows.map((r) => ({
    tokens: r.tokens,
    positions: r.positions,
    adapter: r.adapter,
    ...(r.targets ? { targets: r.targets } : {}),
  }));
}

/** Splits 0..n-1 into `parts` contiguous chunks of a seeded permutation, sizes differing by at most one. */
export function miniBatchIndices(n: number, parts: number, rng: Rng): number[][] {
  const order = rng.shuffle(Array.from({ length: n }, (_, i) => i));
  const chunks: number[][] = [];
  const k = Math.min(parts, n);
  for (let p = 0; p < k; p++) chunks.push(order.slice(Math.floor((p * n) / k), Math.floor(((p + 1) * n) / k)));
  return chunks;
}

export async function updatePolicy(
  policy: TrainablePolicy,
  config: ExperimentConfig,
  rows: readonly TrainRow[],
  seed: number,
  onProgress?: (done: number, total: number) => void,
  probe?: UpdateProbe,
): Promise<UpdateStats> {
  const opts = lossOptions(config);
  const temperature = { temperature: logprobTemperature(config) };
  const rng = new Rng(seed);
  let weightsMoved = false;
  let lossSum = 0;
  let klSum = 0;
  let lowSum = 0;
  let highSum = 0;
  let ratioSum = 0;
  let ratioSq = 0;
  let ratioCount = 0;
  let batches = 0;
  let entropySum = 0;
  let entropyCount = 0;
  let gradNormSum = 0;
  let lr = 0;
  let steps = 0;
  let skipped = 0;
  const nonfinite = new Set<NonFiniteQuantity>();
  const queued: Omit<ProbedStep, 'gradNorm' | 'lr' | 'applied'>[] = [];
  const total = config.ppoEpochs * Math.min(config.miniBatches, rows.length);
  for (let epoch = 0; epoch < config.ppoEpochs; epoch++) {
    for (const [miniBatch, chunk] of miniBatchIndices(rows.length, config.miniBatches, rng).entries()) {
      // sorted by length: the engine packs consecutive rows into padded chunks, so similar lengths waste less
      const mb = sortByLength(chunk.map((i) => rows[i]));
      const adapters = [...new Set(mb.map((r) => r.adapter))];
      for (const a of adapters) policy.zeroGrad(a);
      let current: Float32Array[];
      if (!weightsMoved) {
        // still the rollout's weights: current = old; without an old pass the ratio is exactly 1 (placeholders)
        current = mb.map((r) => r.oldLogp ?? new Float32Array(r.positions.length));
      } else {
        if (mb.some((r) => r.oldLogp === null))
          throw new Error('updatePolicy: a second mini-batch or epoch needs old log-probs');
        current = (await policy.score(scoreRequests(mb), temperature)).map((s) => s.logprobs);
      }
      const lossRows = mb.map((r) => ({
        turn: r.turns,
        ...(r.refLogp ? { refLogp: r.refLogp } : {}),
        advantage: r.advantage,
        ...(r.tokenAdvantages ? { advantages: r.tokenAdvantages } : {}),
      }));
      const lossOf = (logp: Float32Array[]) =>
        policyLoss(
          lossRows.map((r, i) => ({ ...r, logp: logp[i], oldLogp: mb[i].oldLogp ?? logp[i] })),
          opts,
        );
      // exactly on-policy without an old pass: each row's coefficients come from the backward's own forward
      const fromForward = !weightsMoved && mb.every((r) => r.oldLogp === null);
      const coefOf = fromForward ? onPolicyCoefficients(lossRows, opts) : null;
      const given = fromForward ? null : lossOf(current);
      // the entropy coefficients depend on the weights only (token counts), not on the log-probs
      const entropyCoef = given ? given.entropyCoef : entropyCoefficients(lossRows, opts);
      const results = await policy.accumulateGradients(
        mb.map((r, i) => ({
          tokens: r.tokens,
          positions: r.positions,
          adapter: r.adapter,
          ...(r.targets ? { targets: r.targets } : {}),
          coef: coefOf ? (logp: Float32Array) => coefOf(i, logp) : given!.coef[i],
          ...(entropyCoef ? { entropyCoef: entropyCoef[i] } : {}),
        })),
        temperature,
      );
      if (fromForward) current = results.map((res) => res.logprobs);
      const loss = given ?? lossOf(current);
      mb.forEach((r, i) => {
        // log pi_old: the old pass, else this forward (the first mini-batch runs on the rollout weights)
        const logprobs = r.oldLogp ?? r.view?.logprobs ?? (weightsMoved ? null : results[i].logprobs);
        if (logprobs) r.view = { logprobs, ratio: loss.ratio[i], clip: loss.clip[i] };
        if (probe?.rows.has(r)) probe.coef(r, loss.coef[i]);
      });
      for (const res of results) {
        for (const h of res.entropy) entropySum += h;
        entropyCount += res.entropy.length;
      }
      const badLogp =
        results.some((res) => !allFinite(res.logprobs)) ||
        mb.some((r, i) => !allFinite(current[i]) || (r.refLogp !== null && !allFinite(r.refLogp)));
      if (badLogp) nonfinite.add('logprobs');
      if (results.some((res) => !allFinite(res.entropy))) nonfinite.add('entropy');
      // with non-finite log-probs the loss at these weights is undefined, even where placeholders gave a number
      const batchLoss = badLogp ? Number.NaN : loss.loss;
      if (!Number.isFinite(batchLoss)) nonfinite.add('loss');
      for (const a of adapters) {
        const tensors = probe && policy.gradientNorms ? await policy.gradientNorms(a) : [];
        // queued without a read: the step's norm and whether it applied are read once, after the update stage
        await policy.optimizerStep(a);
        queued.push({ epoch, miniBatch, adapter: a, tensors });
      }
      weightsMoved = true;
      lossSum += batchLoss;
      klSum += loss.kl;
      lowSum += loss.clipFracLow;
      highSum += loss.clipFracHigh;
      for (const rs of loss.ratio)
        for (const x of rs)
          if (Number.isFinite(x)) {
            ratioSum += x;
            ratioSq += x * x;
            ratioCount += 1;
          }
      batches += 1;
      onProgress?.(batches, total);
    }
  }
  // one read per adapter: the results of its steps, in the order they were queued
  const results = new Map<string, OptimizerStepResult[]>();
  for (const a of new Set(queued.map((q) => q.adapter))) {
    const mine = queued.filter((q) => q.adapter === a).length;
    results.set(a, (await policy.readOptimizerStats(a)).slice(-mine));
  }
  for (const q of queued) {
    const step = results.get(q.adapter)!.shift()!;
    probe?.step({ ...q, gradNorm: step.gradNorm, lr: step.lr, applied: step.applied });
    gradNormSum += step.gradNorm;
    if (!Number.isFinite(step.gradNorm)) nonfinite.add('grad_norm');
    if (!step.applied) skipped += 1;
    lr = step.lr;
    steps += 1;
  }
  return {
    loss: mean(lossSum, batches),
    entropy: mean(entropySum, entropyCount),
    kl: mean(klSum, batches),
    clipFracLow: mean(lowSum, batches),
    clipFracHigh: mean(highSum, batches),
    ratioStd: Math.sqrt(Math.max(0, mean(ratioSq, ratioCount) - mean(ratioSum, ratioCount) ** 2)),
    gradNorm: mean(gradNormSum, steps),
    lr,
    optimizerSteps: steps,
    nonfinite: QUANTITIES.filter((q) => nonfinite.has(q)),
    skippedUpdates: skipped,
  };
}
