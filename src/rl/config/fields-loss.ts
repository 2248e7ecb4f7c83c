// The config fields of the policy loss (ratio granularity, clipping, aggregation, KL and entropy terms) and of the
// optimiser (AdamW, schedule, epochs and mini-batches, the divergence stop). See rl/losses/ for the formulas.
import type { FieldDef } from './field.ts';

export const LOSS_FIELDS = {
  ratio: {
    kind: 'enum', values: ['token', 'turn-geometric', 'turn-arithmetic'], default: 'turn-geometric',
    doc: 'Importance-ratio granularity. token: per token (paper Fig. 6 "Token-Ratio"). turn-geometric: exp of the mean log-ratio per turn (released code). turn-arithmetic: mean of token ratios per turn (paper Eq. 13).',
    ui: { group: 'Advantage & loss', label: 'ratio mode' },
  },
  logRatioClip: {
    kind: 'number', min: 0, minExclusive: true, default: 3.0,
    doc: 'Upper cap on the log-ratio before exp (code log_ratio_clip_c, the paper\'s "pre-clip ... upper bound of 3.0").',
    ui: { group: 'Advantage & loss', label: 'log-ratio cap', advanced: true, range: [0, 20], step: 0.5 },
  },
  clipLow: {
    kind: 'number', min: 0, max: 1, maxExclusive: true, default: 0.2,
    doc: 'PPO clip floor 1 - eps for negative advantages. Code: 0.2.',
    ui: { group: 'Advantage & loss', label: 'clip eps low', step: 0.01 },
  },
  clipHigh: {
    kind: 'number', min: 0, default: 0.2,
    doc: 'PPO clip ceiling 1 + eps for positive advantages. Code: 0.2; DAPO clip-higher: 0.28.',
    ui: { group: 'Advantage & loss', label: 'clip eps high', range: [0, 1], step: 0.01 },
  },
  dualClip: {
    kind: 'number-or-null', min: 1, minExclusive: true, default: 3.0,
    doc: 'Dual-clip constant c (> 1) bounding the loss of negative-advantage samples at c·|A|; null (empty on the page) disables. Code: 3.0.',
    ui: { group: 'Advantage & loss', label: 'dual clip c', advanced: true, range: [1, 100], step: 0.5 },
  },
  aggregation: {
    kind: 'enum',
    values: ['token-mean', 'turn-mean', 'trajectory', 'seq-mean-token-mean', 'seq-mean-token-sum', 'seq-mean-token-sum-norm'],
    default: 'trajectory',
    doc: 'How per-token losses become one number (losses/aggregate.ts). trajectory: mean over turns then rows (code multi-turn script). token-mean: global token mean (DAPO). seq-mean-token-sum-norm: Dr. GRPO constant length.',
    ui: { group: 'Advantage & loss', label: 'aggregation' },
  },
  lossNormLength: {
    kind: 'int', min: 0, default: 0,
    doc: 'Constant length for seq-mean-token-sum-norm (Dr. GRPO); 0 = maxTurns · (maxTokensPerTurn + 1).',
    ui: { group: 'Advantage & loss', label: 'Dr. GRPO length', advanced: true, range: [0, 1_000_000] },
  },
  klBeta: {
    kind: 'number', min: 0, default: 0,
    doc: 'KL-to-reference coefficient (reference = base weights, adapters off; verl use_kl_loss, TRL beta). Code multi-turn: 0 (KL removed); paper single-turn (REINFORCE++, OpenRLHF): 0.01.',
    ui: { group: 'Advantage & loss', label: 'KL beta', range: [0, 1], step: 0.001 },
  },
  klPlacement: {
    kind: 'enum', values: ['loss', 'reward'], default: 'loss', legacy: 'loss',
    doc: 'loss: beta · KL in the loss (verl, TRL). reward: OpenRLHF REINFORCE++ (the paper\'s single-turn runs, App. D.1): −beta · (log π_old − log π_ref) per token in the reward, returns summed to the end, advantages whitened over the batch\'s tokens. Needs advantage reinforce++.',
    details: 'With reward, the outcome reward is added at the row\'s last token, returns are reverse cumulative sums (γ = 1) and advantages are the returns whitened over all trained tokens of the step (mean, biased variance clamped at 1e-8: OpenRLHF\'s replay-buffer normalisation).',
    ui: { group: 'Advantage & loss', label: 'KL placement', advanced: true },
  },
  klEstimator: {
    kind: 'enum', values: ['k1', 'k3'], default: 'k3',
    doc: 'k1 = logπ − logπref; k3 = exp(ref − logπ) − (ref − logπ) − 1 (verl low_var_kl, clamped to ±10).',
    ui: { group: 'Advantage & loss', label: 'KL estimator', advanced: true },
  },
  entropyCoef: {
    kind: 'number', min: -Infinity, default: 0,
    doc: 'Entropy bonus: loss −= coef · mean entropy. Code script: 0. Raising it is one way out of the Echo Trap.',
    ui: { group: 'Advantage & loss', label: 'entropy bonus', advanced: true, range: [0, 1], step: 0.001 },
  },
  regularizerMean: {
    kind: 'enum', values: ['token', 'aggregation'], default: 'token', legacy: 'aggregation',
    doc: 'How the KL and entropy terms are averaged. token: mean over trained tokens (released code dp_rema_actor.update_policy, whatever the loss aggregation); aggregation: weighted like the policy loss.',
    details: 'The two are equal for token-mean aggregation.',
    ui: { group: 'Advantage & loss', label: 'KL / entropy mean', advanced: true },
  },
  oldLogProbs: {
    kind: 'enum', values: ['auto', 'score'], default: 'auto',
    doc: 'auto: skip the re-scoring pass when fully on-policy (1 epoch, 1 mini-batch, beta 0: the ratio is exactly 1); score: always re-score after rollout (verl).',
    ui: { group: 'Advantage & loss', label: 'old log-probs', advanced: true },
  },
} as const satisfies Record<string, FieldDef>;

export const OPTIMISER_FIELDS = {
  lr: {
    kind: 'number', min: 0, default: 2e-3,
    doc: 'AdamW learning rate. Code: 1e-6 (7B, full fine-tuning); paper single-turn: 5e-7. Tiny models and LoRA need far larger.',
    details: 'Measured on the embedded model: LoRA lr 2e-3 keeps the reward rising slowly; 1e-2 (LoRA) and 1e-3 (full) collapse it.',
    ui: { group: 'Optimiser', label: 'learning rate', range: [0, 1], step: 1e-5 },
  },
  lrSchedule: {
    kind: 'enum', values: ['constant', 'cosine'], default: 'constant',
    doc: 'Learning-rate schedule over the run\'s steps. Code: constant.',
    ui: { group: 'Optimiser', label: 'schedule', advanced: true },
  },
  warmupSteps: {
    kind: 'int', min: 0, default: 0,
    doc: 'Linear warm-up steps. Code: 0.',
    ui: { group: 'Optimiser', label: 'warm-up steps', advanced: true, range: [0, 10000] },
  },
  weightDecay: {
    kind: 'number', min: 0, default: 0.01,
    doc: 'AdamW weight decay. verl default: 0.01.',
    ui: { group: 'Optimiser', label: 'weight decay', advanced: true, range: [0, 1], step: 0.001 },
  },
  adamBeta1: {
    kind: 'number', min: 0, max: 1, maxExclusive: true, default: 0.9,
    doc: 'AdamW β1. verl default: 0.9.',
    ui: { group: 'Optimiser', label: 'Adam β1', advanced: true, range: [0, 0.9999], step: 0.001 },
  },
  adamBeta2: {
    kind: 'number', min: 0, max: 1, maxExclusive: true, default: 0.999,
    doc: 'AdamW β2. verl default: 0.999.',
    ui: { group: 'Optimiser', label: 'Adam β2', advanced: true, range: [0, 0.99999], step: 0.0001 },
  },
  gradClip: {
    kind: 'number', min: 0, default: 1.0,
    doc: 'Global gradient-norm clip; 0 disables. Code: 1.0.',
    ui: { group: 'Optimiser', label: 'grad clip', range: [0, 100], step: 0.1 },
  },
  ppoEpochs: {
    kind: 'int', min: 1, default: 1,
    doc: 'Passes over each step\'s rollouts (ppo_epochs). Code: 1, fully on-policy, so clipping is inactive.',
    ui: { group: 'Optimiser', label: 'PPO epochs', range: [1, 16] },
  },
  miniBatches: {
    kind: 'int', min: 1, default: 1,
    doc: 'Optimiser steps per epoch (rollout rows split evenly). Code script: 1; the paper text says 4. More than 1 makes the ratio and clipping matter.',
    ui: { group: 'Optimiser', label: 'mini-batches', range: [1, 64] },
  },
  maxNonFiniteSteps: {
    kind: 'int', min: 0, default: 3, legacy: 3,
    doc: 'Stop training after this many consecutive steps with NaN / infinite loss, log-probs, entropy or gradients (the run diverged, usually from too high a learning rate); 0 = never stop. Not in the ReMA code (verl trains on).',
    details: 'Every such step is flagged in its metrics (nonfinite) either way; AdamW skips every update once the numbers are non-finite.',
    ui: { group: 'Optimiser', label: 'stop after NaN steps', advanced: true, range: [0, 1000] },
  },
} as const satisfies Record<string, FieldDef>;
