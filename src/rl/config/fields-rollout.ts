// The config fields of the rollout (batch and group sizes, sampling) and of the advantage estimator (GRPO or
// REINFORCE++, std scaling, which rows enter the group statistics).
import type { FieldDef } from './field.ts';

export const ROLLOUT_FIELDS = {
  problemsPerStep: {
    kind: 'int',
    min: 1,
    max: 10_000,
    default: 8,
    doc: "Prompts per RL step (data.train_batch_size): questions, except in Algorithm 1's reasoning phase, where they are the phase's (question, plan) pairs as the paper's rollout batch counts them. Code: 128; scaled down for the browser.",
    ui: { group: 'Rollout', label: 'problems per step', range: [1, 1024] },
  },
  groupSize: {
    kind: 'int',
    min: 1,
    max: 1_024,
    default: 8,
    doc: 'Rollouts per problem, the GRPO group G (rollout.n). Code: 16; paper single-turn: 4.',
    ui: { group: 'Rollout', label: 'group size G', range: [1, 64] },
  },
  temperature: {
    kind: 'number',
    min: 0,
    default: 1.0,
    doc: 'Sampling temperature for training rollouts. Code: 1.0. Evaluation is always greedy.',
    ui: { group: 'Rollout', label: 'temperature', range: [0, 2], step: 0.05 },
  },
  logprobTemperature: {
    kind: 'enum',
    values: ['rollout', 'one'],
    default: 'rollout',
    legacy: 'one',
    doc: 'Temperature of the training log-probs and entropies (old, reference and current). rollout: softmax(logits / T), T the rollout temperature (verl dp_actor._forward_micro_batch divides the logits by it); one: softmax(logits). Same at T = 1.',
    ui: { group: 'Rollout', label: 'log-prob temperature', advanced: true },
  },
  topP: {
    kind: 'number',
    min: 0,
    max: 1,
    minExclusive: true,
    default: 1.0,
    doc: 'Nucleus mass; 1 disables. Code: 1.0.',
    ui: { group: 'Rollout', label: 'top-p', advanced: true, range: [0.05, 1], step: 0.05 },
  },
  topK: {
    kind: 'int',
    min: 0,
    default: 0,
    doc: 'Keep the k most likely tokens; 0 disables. Code: -1 (off).',
    ui: { group: 'Rollout', label: 'top-k', advanced: true, range: [0, 1000] },
  },
  decodeBatch: {
    kind: 'int',
    min: 1,
    max: 4_096,
    default: 64,
    doc: 'Most sequences generated at once (rollouts and held-out evaluation). Smaller bounds the KV cache and decode scratch at the cost of speed; the tokens do not depend on it (each sequence samples from its own seeded stream).',
    details:
      'Each generate call is split into calls of at most decodeBatch sequences (EnginePolicy maxDecodeBatch); every sequence draws its tokens from the stream of its index in the whole call, so the rollouts are the same for any decodeBatch (tests/rl/decode-batch.test.ts checks sampled and greedy rollouts on the CPU backend). `rema plan` counts the KV cache for decodeBatch sequences and suggests a smaller one first when a config does not fit.',
    ui: { group: 'Rollout', label: 'decode batch', advanced: true, range: [1, 1024] },
  },
} as const satisfies Record<string, FieldDef>;

export const ADVANTAGE_FIELDS = {
  advantage: {
    kind: 'enum',
    values: ['grpo', 'reinforce++'],
    default: 'grpo',
    doc: 'grpo: group-normalised outcome (code multi-turn script). reinforce++: batch-whitened returns (code yaml default; paper single-turn runs, OpenRLHF).',
    ui: { group: 'Advantage & loss', label: 'advantage' },
  },
  stdScaling: {
    kind: 'enum',
    values: ['group', 'batch', 'none'],
    default: 'group',
    doc: 'Divide GRPO advantages by the group std (code, verl), the batch std (PPO-Lite, TRL "batch"), or not at all (Dr. GRPO).',
    ui: { group: 'Advantage & loss', label: 'std scaling' },
  },
  advEps: {
    kind: 'number',
    min: 0,
    default: 1e-6,
    doc: "GRPO: added to the std before dividing. Code / verl: 1e-6 (TRL: 1e-4). REINFORCE++ does not read it: it whitens with its sources' fixed floor (verl masked_whiten: rsqrt(var + 1e-8); OpenRLHF: max(var, 1e-8)).",
    ui: { group: 'Advantage & loss', label: 'std epsilon', advanced: true, range: [0, 1], step: 1e-6 },
  },
  groupStatsRows: {
    kind: 'enum',
    values: ['all', 'trained'],
    default: 'all',
    legacy: 'trained',
    doc: "Rows in the GRPO mean / std. all: every episode's row, even one with no trained token (reward 0), as the released code; trained: only rows with trained tokens (a group of 8 can shrink to 6).",
    details:
      "all follows the ReMA code: ray_trainer merges every trajectory's MTA and RA rows and compute_grpo_outcome_advantage sees all of them, so a row with no trained token (e.g. the reasoning agent of an episode whose meta message was truncated at turn 1) still counts in its group's mean and std with its reward. Either way only rows with trained tokens are trained.",
    ui: { group: 'Advantage & loss', label: 'group stats rows', advanced: true },
  },
} as const satisfies Record<string, FieldDef>;
