// Named experiment presets: the paper's settings (scaled down to the embedded tiny model unless the name says
// "paper") and the ablations of its Fig. 6. The prompt set follows the model: a preset of the embedded model
// (tiny-default, rema-multiturn, rema-singleturn, vrp, vrp-rl, mrp-rl, ablation-*) uses the tiny prompts it was
// trained with; a preset of a real model (paper-*, math133-*) uses the paper's or the code's prompts. A preset states
// only what differs from the field table's defaults (src/rl/config/fields-*.ts) or from the preset it extends.
// Each preset is a complete ExperimentConfig, so a config file may say `{"extends": "rema-multiturn", "ratio":
// "token"}` and name only what it changes (resolveConfig).

import { configDefaults, ConfigError, validateConfig, type ExperimentConfig } from './config.ts';

export { TINY_MODEL_NAME } from './config.ts';

/** Folder of the judge-trained embedded model under public/models (preset tiny-judge). */
export const TINY_JUDGE_MODEL_NAME = 'tiny-rema-judge';

/**
 * The field table's defaults: ReMA multi-turn with the released code's algorithm settings (shared parameters, GRPO with group std,
 * turn-level geometric ratio, trajectory aggregation, clip 0.2, dual-clip 3, log-ratio cap 3, no KL, no entropy
 * bonus, constant lr, one epoch and one mini-batch = fully on-policy, temperature 1, stop when truncated,
 * reward 0 unless finished) and sizes scaled from 128 problems x 16 samples x 30 turns x 512 tokens down to
 * what the tiny model on a 2-core CPU can do per step.
 */
const REMA_MULTITURN: ExperimentConfig = { ...configDefaults(), name: 'rema-multiturn' };

/** The exact multi-turn script (scripts/rl/rema/example_7b.sh) on MATH levels 3-5: for export and reference, far beyond a browser. */
const PAPER_MULTITURN_7B: ExperimentConfig = {
  ...REMA_MULTITURN,
  name: 'paper-multiturn-7b',
  steps: 500,
  modelSource: 'hub',
  model: 'Qwen/Qwen2.5-7B',
  finetune: 'full',
  trainSet: 'math8k',
  evalSet: 'math500',
  evalSize: 0,
  prompts: 'code',
  maxTurns: 30,
  maxTokensPerTurn: 512,
  maxPromptTokens: 4096,
  problemsPerStep: 128,
  groupSize: 16,
  lr: 1e-6,
};

/**
 * ReMA single-turn (paper §3.2.1, Algorithm 1, App. D.1): two agents with separate parameters trained in
 * alternating phases with the partner frozen; each phase probes every training problem with 10 samples, keeps those
 * with a success rate in [0.2, 0.8] and makes 4 passes over them with fresh samples; the reasoning agent's phase
 * trains on the (question, plan) prompts of 4 plans per kept problem, written once by the frozen meta agent at
 * T = 1. REINFORCE++ with the KL (1e-2, k1) in the reward, token-level clipping and token-mean loss (OpenRLHF), 4
 * samples per prompt, base reward (App. C.2). Sized for the embedded model: 64 training problems (each phase probes
 * them all), 16 prompts per step.
 */
const REMA_SINGLETURN: ExperimentConfig = {
  ...REMA_MULTITURN,
  name: 'rema-singleturn',
  mode: 'single-turn',
  maxTurns: 1,
  paramMode: 'separate',
  startAgent: 'reasoning',
  filterGroups: true,
  phaseEpochs: 4,
  planSamples: 4,
  trainSize: 64,
  groupSize: 4,
  problemsPerStep: 16,
  advantage: 'reinforce++',
  ratio: 'token',
  aggregation: 'token-mean',
  klBeta: 1e-2,
  klPlacement: 'reward',
  klEstimator: 'k1',
};

/** VRP (CoT): the base model answers directly; evaluation only (paper Table 1's first column). */
const VRP: ExperimentConfig = {
  ...REMA_SINGLETURN,
  name: 'vrp',
  mode: 'vrp',
  steps: 0,
  paramMode: 'shared',
  filterGroups: false,
  phaseEpochs: 0,
  planSamples: 0,
  trainSize: 0,
};

/** VRP_RL: REINFORCE++ on the CoT prompt with the base reward, one agent. */
const VRP_RL: ExperimentConfig = {
  ...VRP,
  name: 'vrp-rl',
  mode: 'vrp-rl',
  steps: 300,
};

/** MRP_RL: one agent writes a plan then the solution in one response, trained like VRP_RL. */
const MRP_RL: ExperimentConfig = {
  ...VRP_RL,
  name: 'mrp-rl',
  mode: 'mrp-rl',
  maxTokensPerTurn: 96,
  maxPromptTokens: 160,
};

/** Fig. 6 "Token-Ratio": per-token PPO ratio; the code's `trajectory` aggregation in token mode is a per-row token mean. */
const ABLATION_TOKEN_RATIO: ExperimentConfig = {
  ...REMA_MULTITURN,
  name: 'ablation-token-ratio',
  ratio: 'token',
  aggregation: 'seq-mean-token-mean',
};

/** Fig. 6 "Turn-Ratio with separate params": one adapter per agent, the trained agent switches every 10 steps starting with the MTA. */
const ABLATION_SEPARATE_PARAMS: ExperimentConfig = {
  ...REMA_MULTITURN,
  name: 'ablation-separate-params',
  paramMode: 'separate',
};

/**
 * The embedded default: the tiny model on the tiny arithmetic task, multi-turn ReMA, 8 problems x
 * group 8 per step, sized so a step takes seconds on a 2-core CPU and a few minutes show a rising curve.
 * 128 held-out problems per eval (about 10 s each on the CPU) keep the eval's noise to about ±4 points, so a
 * gain of 15 points stands out of it; the model card's "RL" section has the measured runs.
 */
const TINY_DEFAULT: ExperimentConfig = {
  ...REMA_MULTITURN,
  name: 'tiny-default',
  steps: 60,
  evalSize: 128,
  // measured on the embedded model (seed 0): LoRA lr 2e-3 fixes the plans by step 20-30 but collapsed the
  // reasoning agent's final turn to an empty \boxed{ at step 40 (eval 0.61 -> 0.08); 1e-3 for 60 steps got as far
  // without it
  lr: 1e-3,
  // the model card's and tests/rl/learning.test.ts's recorded runs were measured before the code's group
  // statistics (rows without trained tokens counted) and overflow answer ("" after a cut-short episode) became the
  // default; kept on the earlier behaviour so those numbers still reproduce. The other defaults taken from the code change
  // nothing here (no KL, no entropy bonus, temperature 1, the embedded tokenizer's eos is its <|im_end|>).
  groupStatsRows: 'trained',
  overflowAnswer: 'previous',
};

/**
 * The tiny judge task on the judge-trained embedded model (public/models/tiny-rema-judge): multi-turn ReMA whose
 * meta-thinking agent was warmed up to prefer a shortcut plan ("Trust A.", right when A is) over the plan that
 * checks ("Check A and B."), both ending the dialogue after one round with [FINISH]; RL moves the plan.
 * tiny-default's sizes and learning rate; 2 rounds at most (a second round would not fit the 256-token context),
 * 128 held-out judge items per evaluation. docs/judge-task.md has the measured runs.
 */
const TINY_JUDGE: ExperimentConfig = {
  ...REMA_MULTITURN,
  name: 'tiny-judge',
  model: TINY_JUDGE_MODEL_NAME,
  trainSet: 'tiny-judge',
  evalSet: 'tiny-judge',
  steps: 60,
  evalSize: 128,
  lr: 1e-3,
  maxTurns: 2,
};

/**
 * Meta-action JSON mode on the embedded model (paper Sec. 4.2.2): single-turn ReMA whose meta-thinking agent
 * answers {"action": "DECOMPOSE" | "REWRITE" | "EMPTY", "output": ...} under the grammar mask and whose reasoning
 * agent executes it; tiny-default's sizes and learning rate, 80 steps, 64 held-out problems per evaluation. The
 * README's "Meta-action JSON mode" reports the action fractions over training.
 */
const TINY_JSON_ACTIONS: ExperimentConfig = {
  ...TINY_DEFAULT,
  name: 'tiny-json-actions',
  mode: 'single-turn',
  maxTurns: 1,
  metaActions: 'json',
  steps: 80,
  evalSize: 64,
};

/**
 * The 133-sample MATH ablation set (paper Fig. 6) with a real instruct model, sized for a laptop: 8 problems x
 * group 8 per step, 3 rounds of at most 256 tokens per message, LoRA r 8 on every projection, the paper's 4
 * mini-batches, greedy held-out accuracy on 50 MATH500 problems every 10 of 50 steps, 32 sequences decoded at once
 * (16 for SmolLM2-360M's larger KV cache) so that every math133 preset fits WebAssembly's 4 GiB with f16 / bf16
 * weights (`rema plan --preset math133-qwen0.5b --backend wasm --weight-dtype f16` sizes it before anything is
 * downloaded). The learning rate is a starting point for LoRA RL on
 * a 0.5B model, not a tuned value.
 */
/** What the math133 presets share: Qwen2.5-0.5B-Instruct, the 133 set, 50 steps of 8 problems x G 8, 4 mini-batches, MATH500 subset. */
const MATH133_LAPTOP = {
  steps: 50,
  modelSource: 'hub',
  model: 'Qwen/Qwen2.5-0.5B-Instruct',
  trainSet: 'math133',
  evalSet: 'math500',
  evalSize: 50,
  prompts: 'code',
  problemsPerStep: 8,
  groupSize: 8,
  lr: 2e-5,
  miniBatches: 4,
  evalEvery: 10,
  decodeBatch: 32,
} as const satisfies Partial<ExperimentConfig>;

const MATH133_QWEN05B: ExperimentConfig = {
  ...REMA_MULTITURN,
  ...MATH133_LAPTOP,
  name: 'math133-qwen0.5b',
  maxTurns: 3,
  maxTokensPerTurn: 256,
  maxPromptTokens: 1536,
};

/** VRP_RL (one agent, CoT prompt, REINFORCE++, base reward) on the same set, model and budget as math133-qwen0.5b. */
const MATH133_VRP_RL: ExperimentConfig = {
  ...VRP_RL,
  ...MATH133_LAPTOP,
  name: 'math133-vrp-rl',
  maxTurns: 1,
  maxTokensPerTurn: 512,
  maxPromptTokens: 1024,
};

/**
 * The paper's single-turn setting on a real model (App. D.1, Table 1, Qwen2.5-7B-Instruct; OpenRLHF): Algorithm 1
 * with the paper's prompts (App. G.1.2), 1000 prompts x 4 samples per rollout (reasoning phase: 1000 of the
 * phase's (question, plan) pairs; meta phase: 1000 questions), 8 optimiser steps of 500 samples, Adam lr 5e-7,
 * clip 0.2, KL 1e-2 in the reward, 2048 generated tokens per agent, filter [0.2, 0.8] from 10 probe samples, 4
 * passes per phase (#Training Episode, MAMRP) and 10 update iterations (#Update Iteration, the run's end). With all
 * 8,523 math8k problems kept an iteration lasts 4 · ceil(4 · 8523 / 1000) + 4 · ceil(8523 / 1000) = 176 steps, so
 * `steps` 1760 only bounds what the probes leave. The paper trains on MATH without naming the split; math8k (MATH
 * levels 3-5, the code's training set) is the closest shipped set. For export and reference.
 */
const PAPER_SINGLETURN_7B: ExperimentConfig = {
  ...REMA_SINGLETURN,
  name: 'paper-singleturn-7b',
  steps: 1760,
  updateIterations: 10,
  modelSource: 'hub',
  model: 'Qwen/Qwen2.5-7B-Instruct',
  finetune: 'full',
  prompts: 'paper',
  trainSet: 'math8k',
  trainSize: 0,
  evalSet: 'math500',
  evalSize: 0,
  maxTokensPerTurn: 2048,
  maxPromptTokens: 4096,
  problemsPerStep: 1000,
  miniBatches: 8,
  lr: 5e-7,
};

/** The paper's baselines on the same model (App. D.1 and G.1.2): VRP (CoT, evaluation only) with the paper's prompt. */
const PAPER_VRP_7B: ExperimentConfig = {
  ...VRP,
  name: 'paper-vrp-7b',
  modelSource: 'hub',
  model: 'Qwen/Qwen2.5-7B-Instruct',
  finetune: 'full',
  prompts: 'paper',
  trainSet: 'math8k',
  evalSet: 'math500',
  evalSize: 0,
  maxTokensPerTurn: 2048,
  maxPromptTokens: 4096,
};

/** VRP_RL on Qwen2.5-7B-Instruct: REINFORCE++ (KL 1e-2 in the reward), 6 passes over math8k (#Training Episode). */
const PAPER_VRP_RL_7B: ExperimentConfig = {
  ...PAPER_VRP_7B,
  name: 'paper-vrp-rl-7b',
  mode: 'vrp-rl',
  steps: 54,
  problemsPerStep: 1000,
  miniBatches: 8,
  lr: 5e-7,
};

/** MRP_RL on Qwen2.5-7B-Instruct: one agent plans then solves (the paper's MRP prompt), trained as VRP_RL. */
const PAPER_MRP_RL_7B: ExperimentConfig = { ...PAPER_VRP_RL_7B, name: 'paper-mrp-rl-7b', mode: 'mrp-rl' };

const SMOLLM2_360M = 'HuggingFaceTB/SmolLM2-360M-Instruct';

export const PRESETS: Readonly<Record<string, ExperimentConfig>> = {
  'tiny-default': TINY_DEFAULT,
  'tiny-json-actions': TINY_JSON_ACTIONS,
  'tiny-judge': TINY_JUDGE,
  'rema-multiturn': REMA_MULTITURN,
  'rema-singleturn': REMA_SINGLETURN,
  vrp: VRP,
  'vrp-rl': VRP_RL,
  'mrp-rl': MRP_RL,
  'ablation-token-ratio': ABLATION_TOKEN_RATIO,
  'ablation-separate-params': ABLATION_SEPARATE_PARAMS,
  'paper-multiturn-7b': PAPER_MULTITURN_7B,
  'paper-singleturn-7b': PAPER_SINGLETURN_7B,
  'paper-vrp-7b': PAPER_VRP_7B,
  'paper-vrp-rl-7b': PAPER_VRP_RL_7B,
  'paper-mrp-rl-7b': PAPER_MRP_RL_7B,
  'math133-qwen0.5b': MATH133_QWEN05B,
  'math133-vrp-rl': MATH133_VRP_RL,
  'math133-smollm360m': { ...MATH133_QWEN05B, name: 'math133-smollm360m', model: SMOLLM2_360M, decodeBatch: 16 },
  'math133-vrp-rl-smollm360m': { ...MATH133_VRP_RL, name: 'math133-vrp-rl-smollm360m', model: SMOLLM2_360M },
};

export const PRESET_NAMES: readonly string[] = Object.keys(PRESETS);

/** A fresh copy of a named preset; throws with the list of names when it does not exist. */
export function getPreset(name: string): ExperimentConfig {
  // own properties only: "constructor", "toString" or "__proto__" are not presets
  const preset = Object.hasOwn(PRESETS, name) ? PRESETS[name] : undefined;
  if (preset === undefined) throw new ConfigError(`unknown preset "${name}"; presets: ${PRESET_NAMES.join(', ')}`);
  return structuredClone(preset);
}

/**
 * Reads a config JSON value: `"extends": "<preset>"` picks the base (default: tiny-default), every other key
 * overrides it, and the result is validated (errors name `source` and the field).
 */
export function resolveConfig(json: unknown, source: string): ExperimentConfig {
  let base = getPreset('tiny-default');
  if (typeof json === 'object' && json !== null && !Array.isArray(json) && 'extends' in json) {
    const name = (json as { extends: unknown }).extends;
    if (typeof name !== 'string') throw new ConfigError(`${source}: field "extends" must be a preset name (string)`);
    try {
      base = getPreset(name);
    } catch (e) {
      throw new ConfigError(`${source}: field "extends": ${(e as Error).message}`);
    }
  }
  return validateConfig(json, source, base);
}
