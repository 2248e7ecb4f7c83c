// The experiment config: one typed, versioned, JSON-serialisable record that fully describes a training run
// (protocol, rewards, advantage estimator, loss, optimiser, data, model). The page's form, the CLI's
// `--config F.json`, the presets and `export --verl` all speak this one shape. Flat like TRL's GRPOConfig so
// that a sweep grid or a URL can name any knob by one key. Defaults follow the ReMA code
// (ziyuwan/ReMA-public, scripts/rl/rema/example_7b.sh + rema_trainer/config/ppo_trainer.yaml) unless a
// comment says otherwise; sizes are scaled down for small models (the presets pick per-model sizes).
// validateConfig (bottom of this file) checks a JSON value against it with errors naming the field.

/** Bumped whenever a field changes meaning or is removed; validateConfig rejects other versions. */
export const CONFIG_VERSION = 1;

/**
 * - `multi-turn`: ReMA multi-turn MAMRP (paper §3.2.2, the released code): the meta-thinking agent (MTA) and the
 *   reasoning agent (RA) alternate until the MTA says [FINISH].
 * - `single-turn`: ReMA single-turn MAMRP (paper §3.2.1): one plan, then one solution.
 * - `vrp`: vanilla reasoning process (CoT), evaluation only, no RL (paper Table 1 baseline).
 * - `vrp-rl`: RL on the VRP prompt, one agent.
 * - `mrp-rl`: one agent writes a plan and then the solution in one response (paper Eq. 3-4).
 */
export type ProtocolMode = 'multi-turn' | 'single-turn' | 'vrp' | 'vrp-rl' | 'mrp-rl';
export type ParamMode = 'shared' | 'separate';
export type AgentRole = 'meta' | 'reasoning';
/** which agent, if any, is a frozen external model (see ExperimentConfig.frozenAgent) */
export type FrozenAgent = 'none' | AgentRole;
/** token: PPO ratio per token. turn-geometric: exp(mean log-ratio of the turn) (ReMA code). turn-arithmetic: mean of token ratios (paper Eq. 13). */
export type RatioMode = 'token' | 'turn-geometric' | 'turn-arithmetic';
/** how per-token losses become one number; see losses/aggregate.ts for the exact formulas */
export type Aggregation =
  | 'token-mean'
  | 'turn-mean'
  | 'trajectory'
  | 'seq-mean-token-mean'
  | 'seq-mean-token-sum'
  | 'seq-mean-token-sum-norm';
export type AdvantageEstimator = 'grpo' | 'reinforce++';
export type StdScaling = 'group' | 'batch' | 'none';
export type KlEstimator = 'k1' | 'k3';
export type LrSchedule = 'constant' | 'cosine';
export type DatasetName = 'tiny-arith' | 'tiny-judge' | 'math133' | 'math500' | 'math8k' | 'gsm8k' | 'file';
export type ModelSource = 'embedded' | 'local' | 'hub';
export type PromptSetName = 'paper' | 'code' | 'tiny';
export type OldLogProbMode = 'auto' | 'score';
export type SingleTurnReward = 'base' | 'binary' | 'consistency';
/** which rows enter the GRPO group statistics; see ExperimentConfig.groupStatsRows */
export type GroupStatsRows = 'all' | 'trained';
/** how the KL and entropy terms are averaged; see ExperimentConfig.regularizerMean */
export type RegularizerMean = 'token' | 'aggregation';
/** what an episode cut short by an overflow answers; see ExperimentConfig.overflowAnswer */
export type OverflowAnswer = 'empty' | 'previous';
/** the target trained after a message that ended normally; see ExperimentConfig.endTokenTarget */
export type EndTokenTarget = 'eos' | 'template';
/** the temperature training log-probs are taken at; see ExperimentConfig.logprobTemperature */
export type LogprobTemperature = 'rollout' | 'one';
/** where klBeta's KL penalty goes; see ExperimentConfig.klPlacement */
export type KlPlacement = 'loss' | 'reward';

export interface ExperimentConfig {
  /** Schema version; must equal CONFIG_VERSION. */
  version: number;
  /** Free-form run name, shown in the UI and written into metrics file names. */
  name: string;

  // ---- run ------------------------------------------------------------------------------------------
  /** Seeds data order, sampling and mini-batch shuffles. Same config + seed + backend -> identical metrics. Default 0. */
  seed: number;
  /** Number of RL steps (one batch of problems each). Paper: 500 (main) / 300 (133-sample ablation). 0 = evaluate only. */
  steps: number;

  // ---- model ----------------------------------------------------------------------------------------
  /** Where `model` points: `embedded` = a folder under public/models, `local` = a directory on disk (CLI) or a picked folder (page), `hub` = a Hugging Face repo id. */
  modelSource: ModelSource;
  /** Folder name, path or hub id of a Llama / Qwen2-family checkpoint (config.json, model.safetensors, tokenizer.json). */
  model: string;
  /** `lora`: frozen base + LoRA adapters (one per agent in separate mode); `full`: every weight trains (tiny models only). ReMA code: full fine-tuning. */
  finetune: 'lora' | 'full';
  /** LoRA rank r. Default 8: enough for RL's small updates on <1B models (verl examples use 8-64). */
  loraRank: number;
  /** LoRA alpha; the update is scaled by alpha / r. Default 16 (2r, the common PEFT choice). */
  loraAlpha: number;
  /** Linear layers that get adapters, by HF module name. Default all attention + MLP projections (verl `all-linear`). */
  loraTargets: string[];

  // ---- data -----------------------------------------------------------------------------------------
  /** Training problems. `math133` = the paper's 133-sample MATH set (ablations); `math8k` = MATH levels 3-5 (main runs); `tiny-*` = the embedded task generator. */
  trainSet: DatasetName;
  /** JSONL path when trainSet is `file` (see data/datasets.ts for the accepted formats); else empty. */
  trainFile: string;
  /** Number of training problems to use (generated for tiny tasks, first N after a seeded shuffle otherwise); 0 = all. */
  trainSize: number;
  /** Held-out problems for greedy evaluation. The ReMA code validates on a 7-benchmark mix; small runs use MATH500 or the tiny held-out split. */
  evalSet: DatasetName;
  /** JSONL path when evalSet is `file`; else empty. */
  evalFile: string;
  /** Number of held-out problems per evaluation (a fixed, seeded subset); 0 = all. Keep small in the browser. */
  evalSize: number;

  // ---- protocol -------------------------------------------------------------------------------------
  /** Which rollout protocol runs; see ProtocolMode. Default `multi-turn` (the released code). */
  mode: ProtocolMode;
  /** Prompt texts: `paper` = the paper's appendix G prompts, `code` = the released code's prompt files (identical for multi-turn), `tiny` = short prompts the embedded tiny model was trained with. */
  prompts: PromptSetName;
  /** Maximum rounds (one MTA message + one RA message each). Code: 30 (train), 10 (eval script). */
  maxTurns: number;
  /** Token cap per generated message (`data.max_response_length`, per turn). Code: 512; paper ablations 256 / 1024. */
  maxTokensPerTurn: number;
  /** Cap on each agent's rendered chat (prompt) per turn; a longer one ends the episode with `completion_token_exceeded`. Code: 4096. */
  maxPromptTokens: number;
  /** End the episode when any message hits maxTokensPerTurn (`stop_when_truncated`). Code: true. */
  stopWhenTruncated: boolean;
  /** Reward 0 unless the episode finished normally (MTA said [FINISH], nothing truncated). Code: true (`mask_unfinished_reward`). */
  maskUnfinishedReward: boolean;
  /**
   * What an episode cut short answers. `empty` (ReMA code, vllm_rollout_spmd._run_multi_turn_conversation and
   * _update_history_and_check_finish): when the reasoning agent's chat overflows maxPromptTokens, or the meta agent's
   * message is truncated, an empty dummy reasoning message ends the history and the final answer graded is "" (the
   * code grades history[-1]); `previous`: no dummy after a reasoning overflow and the last real reasoning message is
   * graded. Only visible with maskUnfinishedReward = false (else such episodes earn 0 either way) and in the
   * rollout records. Configs written before this field existed read as `previous`.
   */
  overflowAnswer: OverflowAnswer;
  /**
   * The target trained at the end of a message that ended normally. `eos` (ReMA code encode_conversation): the
   * tokenizer's eos_token (tokenizer_config.json), as the label after the response; `template`: the token the chat
   * template closes the message with (e.g. <|im_end|>). They differ for base models such as Qwen2.5-7B (eos
   * <|endoftext|>, template <|im_end|>); equal for instruct models and the embedded model. Configs written before
   * this field existed read as `template`.
   */
  endTokenTarget: EndTokenTarget;
  /**
   * Single-turn / VRP_RL / MRP_RL reward: `base` = paper App. C.2 (+1 correct, -0.5 wrong but boxed, -1 no box; meta
   * -1 if it leaks \boxed); `binary` = 1 / 0; `consistency` = App. C.2's alternative for the meta agent (the share of
   * its reasoning samples giving the most frequent answer, 0 when that is no answer, -1 for a leak; the paper reports
   * it invites answer leakage), the reasoning agent keeping the base reward.
   */
  singleTurnReward: SingleTurnReward;

  // ---- agents and parameters --------------------------------------------------------------------------
  /** `shared`: one set of trainable weights, roles differ by system prompt (code default). `separate`: one adapter per agent. */
  paramMode: ParamMode;
  /** Separate mode: which agent trains switches every this many steps (code `switch_agent.freq` = 10). */
  switchEvery: number;
  /** Separate mode: the agent trained first (code `start_agent` = meta_thinking). */
  startAgent: AgentRole;
  /**
   * An agent that never trains and is run by an external (ONNX) model instead of the engine: `none` (default) = both
   * agents are the engine's policy; `meta` / `reasoning` = that agent's turns come from a frozen model given to the
   * trainer (TrainerOptions.frozen: the CLI's `--frozen-agent`, the page's ONNX picker), rendered with that model's own
   * tokenizer and chat template, while the other agent trains on the engine. The frozen agent's tokens never enter a
   * training row, the loss, the old / reference log-probs or an optimiser step. The paper's single-turn alternating
   * training (Algorithm 1) freezes one agent while the other trains and switches every few steps; here one agent is
   * frozen for the whole run, so the switch never happens (the non-frozen agent trains at every step; in single-turn
   * separate mode its frozen partner decodes greedily, as in Algorithm 1). Needs a two-agent mode (multi-turn or
   * single-turn). Configs written before this field existed read as `none`.
   */
  frozenAgent: FrozenAgent;
  /**
   * Single-turn separate mode (paper Algorithm 1): keep only problems whose success rate lies in [filterEpsMin,
   * filterEpsMax]. With phaseEpochs > 0 the rate comes from each phase's probe (probeSamples); with 0, from the
   * step's own training samples (earlier behaviour).
   */
  filterGroups: boolean;
  /**
   * Algorithm 1 as written (paper §3.2.1, App. D.1 "#Training Episode"; single-turn, separate parameters): training
   * runs in phases, one agent per phase with its partner frozen, alternating (startAgent first). At a phase's start
   * its dataset is built once: the success-rate probe (probeSamples) keeps the problems in the filter's window; then
   * the phase makes this many passes over them, each step sampling fresh rollouts of problemsPerStep kept problems
   * (ceil(kept / problemsPerStep) · phaseEpochs steps), and the other agent's phase follows. `steps` bounds the whole
   * run (#UpdateIteration = phases / 2). 0 = the earlier schedule: the trained agent switches every switchEvery
   * steps. Paper MAMRP (math): 4. Configs written before this field existed read as 0.
   */
  phaseEpochs: number;
  /**
   * Samples per problem in a phase's success-rate probe, separate from the training samples (Algorithm 1: 10):
   * the reasoning agent's phase probes with one greedy plan answered probeSamples times at the rollout temperature;
   * the meta agent's phase with probeSamples sampled plans, each answered greedily. Used when phaseEpochs > 0 and
   * filterGroups. Configs written before this field existed read as 10.
   */
  probeSamples: number;
  /**
   * The reasoning agent's training steps in Algorithm 1: the frozen meta agent samples this many plans per problem at
   * the rollout temperature (paper App. D.1: 4 at T = 1), each answered groupSize times (a GRPO group per plan);
   * 0 = one greedy plan per problem (earlier behaviour). Configs written before this field existed read as 0.
   */
  planSamples: number;
  /** Lower success-rate bound of the filter. Paper (MATH): 0.2. */
  filterEpsMin: number;
  /** Upper success-rate bound of the filter. Paper (MATH): 0.8. */
  filterEpsMax: number;

  // ---- rollout --------------------------------------------------------------------------------------
  /** Problems per RL step (`data.train_batch_size`). Code: 128. */
  problemsPerStep: number;
  /** Rollouts per problem, the GRPO group G (`rollout.n`). Code: 16; paper single-turn: 4. */
  groupSize: number;
  /** Sampling temperature for training rollouts. Code: 1.0. Evaluation is always greedy. */
  temperature: number;
  /**
   * Temperature of the log-probs the loss uses (old, reference and current). `rollout` (verl dp_actor
   * _forward_micro_batch: logits.div_(temperature), for compute_log_prob, compute_ref_log_prob and update_policy):
   * softmax(logits / temperature), entropies too; `one`: softmax(logits). Equal at temperature 1 (every preset).
   * Configs written before this field existed read as `one`.
   */
  logprobTemperature: LogprobTemperature;
  /** Nucleus mass; 1 disables. Code: 1.0. */
  topP: number;
  /** Keep the k most likely tokens; 0 disables. Code: -1 (disabled). */
  topK: number;

  // ---- advantages -----------------------------------------------------------------------------------
  /** `grpo`: group-normalised outcome (code script). `reinforce++`: batch-whitened returns (code yaml default; paper single-turn runs). */
  advantage: AdvantageEstimator;
  /** GRPO std scaling: `group` (code, verl), `batch` (PPO-Lite / TRL "batch"), `none` (Dr. GRPO). */
  stdScaling: StdScaling;
  /** Added to the std before dividing. Code / verl: 1e-6 (TRL: 1e-4). */
  advEps: number;
  /**
   * Rows in the GRPO group statistics. `all` (ReMA code: ray_trainer merges every trajectory's MTA and RA rows and
   * compute_grpo_outcome_advantage sees all of them): a row with no trained token (e.g. the reasoning agent of an
   * episode whose meta message was truncated at turn 1) still counts in its group's mean and std with its reward
   * (0 there); `trained`: such rows are dropped before the statistics (a group of 8 becomes 6). Either way only rows
   * with trained tokens are trained. Configs written before this field existed read as `trained`.
   */
  groupStatsRows: GroupStatsRows;

  // ---- loss -----------------------------------------------------------------------------------------
  /** Importance ratio granularity; see RatioMode. Code multi-turn script: turn-geometric. */
  ratio: RatioMode;
  /** Upper cap on the log-ratio before exp (`log_ratio_clip_c`, the paper's "pre-clip ... upper bound of 3.0"). */
  logRatioClip: number;
  /** PPO clip: ratio floor 1 - clipLow for negative advantages. Code: 0.2. */
  clipLow: number;
  /** PPO clip: ratio ceiling 1 + clipHigh for positive advantages (DAPO clip-higher uses 0.28). Code: 0.2. */
  clipHigh: number;
  /** Dual-clip constant c (> 1) bounding the loss of negative-advantage samples at c·|A|; null disables. Code: 3.0. */
  dualClip: number | null;
  /** Loss aggregation; see Aggregation. Code multi-turn script: `trajectory` (mean over turns, then over rows). */
  aggregation: Aggregation;
  /** Constant length for `seq-mean-token-sum-norm` (Dr. GRPO); 0 = maxTurns · (maxTokensPerTurn + 1). */
  lossNormLength: number;
  /** KL-to-reference coefficient β, in the loss (verl use_kl_loss / TRL beta; reference = base weights, adapters off). Code: 0 (KL removed); paper single-turn: 1e-2 (OpenRLHF, where it sits in the reward instead). */
  klBeta: number;
  /**
   * Where the KL penalty klBeta goes. `loss`: beta · the KL estimator per token in the loss (verl use_kl_loss,
   * TRL); `reward` (OpenRLHF REINFORCE++, which ran the paper's single-turn experiments, App. D.1): each trained
   * token's reward is −beta · (log π_old − log π_ref) (k1), the outcome reward is added at the row's last token,
   * returns are reverse cumulative sums (γ = 1) and advantages are the returns whitened over all trained tokens of
   * the step (mean, biased variance clamped at 1e-8: OpenRLHF's replay-buffer normalisation). `reward` needs
   * advantage "reinforce++". Configs written before this field existed read as `loss`.
   */
  klPlacement: KlPlacement;
  /** KL estimator: k1 = logπ − logπ_ref; k3 = exp(ref − logπ) − (ref − logπ) − 1 (verl low_var_kl, clamped to ±10). */
  klEstimator: KlEstimator;
  /** Entropy bonus coefficient (loss −= coef · mean entropy). Code script: 0. */
  entropyCoef: number;
  /**
   * How the KL (klBeta) and entropy (entropyCoef) terms are averaged over a mini-batch. `token` (ReMA code
   * dp_rema_actor.update_policy: masked_mean over every trained token, whatever agg_mode the policy loss uses);
   * `aggregation`: weighted like the policy loss (the `aggregation` field's per-token weights). Equal for
   * token-mean aggregation. Configs written before this field existed read as `aggregation`.
   */
  regularizerMean: RegularizerMean;
  /** `auto`: skip the old-log-prob pass when fully on-policy (1 epoch, 1 mini-batch, β = 0: the ratio is exactly 1); `score`: always re-score after rollout (verl). */
  oldLogProbs: OldLogProbMode;

  // ---- optimiser ------------------------------------------------------------------------------------
  /** AdamW learning rate. Code: 1e-6 for a 7B model with full fine-tuning; tiny models and LoRA need far larger. */
  lr: number;
  /** Learning-rate schedule over `steps`. Code: constant. */
  lrSchedule: LrSchedule;
  /** Linear warm-up steps. Code: 0. */
  warmupSteps: number;
  /** AdamW weight decay. verl default: 0.01. */
  weightDecay: number;
  /** AdamW β1. verl default: 0.9. */
  adamBeta1: number;
  /** AdamW β2. verl default: 0.999. */
  adamBeta2: number;
  /** Global gradient-norm clip; 0 disables. Code: 1.0. */
  gradClip: number;
  /** Passes over each step's rollouts (`ppo_epochs`). Code: 1 (fully on-policy). */
  ppoEpochs: number;
  /** Optimiser steps per epoch (rollout rows split evenly). Code script: 1; paper text: 4. */
  miniBatches: number;
  /**
   * Stop the run after this many consecutive steps with non-finite numbers (NaN or infinite log-probs, entropy,
   * loss or gradient norm: the run has diverged, e.g. from too high a learning rate, and AdamW skips every update
   * from then on); 0 = never stop. Every such step is flagged in its metrics (`nonfinite`) either way. Not in the
   * ReMA code (verl trains on). Default 3. Configs written before this field existed read as 3.
   */
  maxNonFiniteSteps: number;

  // ---- evaluation -----------------------------------------------------------------------------------
  /** Greedy evaluation on the held-out set every this many steps (`test_freq`); 0 = never. Code: 10. */
  evalEvery: number;
  /** Evaluate once before the first step (`val_before_train`). verl: true. */
  evalBeforeTrain: boolean;
}

// ---- validation -----------------------------------------------------------------------------------

/** How validateConfig checks one field (and where the page's controls take enum values and ranges from). */
export type FieldSpec =
  | { kind: 'int'; min: number; max?: number }
  | { kind: 'number'; min: number; max?: number; minExclusive?: boolean; maxExclusive?: boolean }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'string' }
  | { kind: 'bool' }
  | { kind: 'strings' }
  | { kind: 'number-or-null'; min: number; minExclusive?: boolean };

const INF = Number.POSITIVE_INFINITY;
const DATASETS = ['tiny-arith', 'tiny-judge', 'math133', 'math500', 'math8k', 'gsm8k', 'file'] as const;

/** The type and range of every field; the keys are exactly the fields of ExperimentConfig. */
export const FIELD_SPECS: Record<keyof ExperimentConfig, FieldSpec> = {
  version: { kind: 'int', min: CONFIG_VERSION, max: CONFIG_VERSION },
  name: { kind: 'string' },
  seed: { kind: 'int', min: 0, max: 0xffffffff },
  steps: { kind: 'int', min: 0 },
  modelSource: { kind: 'enum', values: ['embedded', 'local', 'hub'] },
  model: { kind: 'string' },
  finetune: { kind: 'enum', values: ['lora', 'full'] },
  loraRank: { kind: 'int', min: 1, max: 1024 },
  loraAlpha: { kind: 'number', min: 0, minExclusive: true },
  loraTargets: { kind: 'strings' },
  trainSet: { kind: 'enum', values: DATASETS },
  trainFile: { kind: 'string' },
  trainSize: { kind: 'int', min: 0 },
  evalSet: { kind: 'enum', values: DATASETS },
  evalFile: { kind: 'string' },
  evalSize: { kind: 'int', min: 0 },
  mode: { kind: 'enum', values: ['multi-turn', 'single-turn', 'vrp', 'vrp-rl', 'mrp-rl'] },
  prompts: { kind: 'enum', values: ['paper', 'code', 'tiny'] },
  maxTurns: { kind: 'int', min: 1, max: 1000 },
  maxTokensPerTurn: { kind: 'int', min: 1 },
  maxPromptTokens: { kind: 'int', min: 1 },
  stopWhenTruncated: { kind: 'bool' },
  maskUnfinishedReward: { kind: 'bool' },
  overflowAnswer: { kind: 'enum', values: ['empty', 'previous'] },
  endTokenTarget: { kind: 'enum', values: ['eos', 'template'] },
  singleTurnReward: { kind: 'enum', values: ['base', 'binary', 'consistency'] },
  paramMode: { kind: 'enum', values: ['shared', 'separate'] },
  switchEvery: { kind: 'int', min: 1 },
  startAgent: { kind: 'enum', values: ['meta', 'reasoning'] },
  frozenAgent: { kind: 'enum', values: ['none', 'meta', 'reasoning'] },
  filterGroups: { kind: 'bool' },
  filterEpsMin: { kind: 'number', min: 0, max: 1 },
  filterEpsMax: { kind: 'number', min: 0, max: 1 },
  phaseEpochs: { kind: 'int', min: 0 },
  probeSamples: { kind: 'int', min: 1 },
  planSamples: { kind: 'int', min: 0 },
  problemsPerStep: { kind: 'int', min: 1 },
  groupSize: { kind: 'int', min: 1 },
  temperature: { kind: 'number', min: 0 },
  logprobTemperature: { kind: 'enum', values: ['rollout', 'one'] },
  topP: { kind: 'number', min: 0, max: 1, minExclusive: true },
  topK: { kind: 'int', min: 0 },
  advantage: { kind: 'enum', values: ['grpo', 'reinforce++'] },
  stdScaling: { kind: 'enum', values: ['group', 'batch', 'none'] },
  advEps: { kind: 'number', min: 0 },
  groupStatsRows: { kind: 'enum', values: ['all', 'trained'] },
  ratio: { kind: 'enum', values: ['token', 'turn-geometric', 'turn-arithmetic'] },
  logRatioClip: { kind: 'number', min: 0, minExclusive: true },
  clipLow: { kind: 'number', min: 0, max: 1, maxExclusive: true },
  clipHigh: { kind: 'number', min: 0 },
  dualClip: { kind: 'number-or-null', min: 1, minExclusive: true },
  aggregation: {
    kind: 'enum',
    values: ['token-mean', 'turn-mean', 'trajectory', 'seq-mean-token-mean', 'seq-mean-token-sum', 'seq-mean-token-sum-norm'],
  },
  lossNormLength: { kind: 'int', min: 0 },
  klBeta: { kind: 'number', min: 0 },
  klPlacement: { kind: 'enum', values: ['loss', 'reward'] },
  klEstimator: { kind: 'enum', values: ['k1', 'k3'] },
  entropyCoef: { kind: 'number', min: -INF },
  regularizerMean: { kind: 'enum', values: ['token', 'aggregation'] },
  oldLogProbs: { kind: 'enum', values: ['auto', 'score'] },
  lr: { kind: 'number', min: 0 },
  lrSchedule: { kind: 'enum', values: ['constant', 'cosine'] },
  warmupSteps: { kind: 'int', min: 0 },
  weightDecay: { kind: 'number', min: 0 },
  adamBeta1: { kind: 'number', min: 0, max: 1, maxExclusive: true },
  adamBeta2: { kind: 'number', min: 0, max: 1, maxExclusive: true },
  gradClip: { kind: 'number', min: 0 },
  ppoEpochs: { kind: 'int', min: 1 },
  miniBatches: { kind: 'int', min: 1 },
  maxNonFiniteSteps: { kind: 'int', min: 0 },
  evalEvery: { kind: 'int', min: 0 },
  evalBeforeTrain: { kind: 'bool' },
};

/**
 * Fields added to version 1 after configs were already saved (URL state, saved runs, run JSON, --config files,
 * checkpoints): a config without one of them reads as this value, so older records keep loading.
 */
export const ADDED_FIELD_DEFAULTS: Partial<ExperimentConfig> = {
  frozenAgent: 'none',
  maxNonFiniteSteps: 3,
  // issue 14 part 4: configs saved before these fields ran the earlier behaviour, so they read as it
  groupStatsRows: 'trained',
  regularizerMean: 'aggregation',
  overflowAnswer: 'previous',
  endTokenTarget: 'template',
  logprobTemperature: 'one',
  // issue 14 part 3 (Algorithm 1 as written): the earlier schedule
  phaseEpochs: 0,
  probeSamples: 10,
  planSamples: 0,
  klPlacement: 'loss',
};

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function describe(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function rangeText(spec: { min: number; max?: number; minExclusive?: boolean; maxExclusive?: boolean }): string {
  const lo = spec.min === -INF ? '(-inf' : `${spec.minExclusive ? '(' : '['}${spec.min}`;
  const hi = spec.max === undefined ? 'inf)' : `${spec.max}${spec.maxExclusive ? ')' : ']'}`;
  return `${lo}, ${hi}`;
}

function inRange(x: number, spec: { min: number; max?: number; minExclusive?: boolean; maxExclusive?: boolean }): boolean {
  if (spec.minExclusive ? x <= spec.min : x < spec.min) return false;
  if (spec.max !== undefined && (spec.maxExclusive ? x >= spec.max : x > spec.max)) return false;
  return true;
}

/** The allowed values of an enum field, for controls that offer them (the page's knobs). */
export function enumValues(key: keyof ExperimentConfig): readonly string[] {
  const spec = FIELD_SPECS[key];
  if (spec.kind !== 'enum') throw new Error(`field "${key}" is not an enum (${spec.kind})`);
  return spec.values;
}

/** Checks one field's value against its spec; returns a problem description or null. */
function checkField(spec: FieldSpec, value: unknown): string | null {
  switch (spec.kind) {
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value) || !inRange(value, spec))
        return `must be an integer in ${rangeText(spec)}`;
      return null;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value) || !inRange(value, spec))
        return `must be a number in ${rangeText(spec)}`;
      return null;
    case 'number-or-null':
      if (value === null) return null;
      if (typeof value !== 'number' || !Number.isFinite(value) || !inRange(value, spec))
        return `must be null or a number in ${rangeText(spec)}`;
      return null;
    case 'enum':
      return typeof value === 'string' && spec.values.includes(value) ? null : `must be one of ${spec.values.join(' | ')}`;
    case 'string':
      return typeof value === 'string' ? null : 'must be a string';
    case 'bool':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'strings':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? null : 'must be an array of strings';
  }
}

/** Rules that involve more than one field. Returns problems as `field "x" ...` strings. */
export function crossFieldProblems(c: ExperimentConfig): string[] {
  const out: string[] = [];
  if (c.filterEpsMin > c.filterEpsMax) out.push(`field "filterEpsMin" (${c.filterEpsMin}) must be <= filterEpsMax (${c.filterEpsMax})`);
  if (c.trainSet === 'file' && c.trainFile === '') out.push('field "trainFile" must name a JSONL file when trainSet is "file"');
  if (c.evalSet === 'file' && c.evalFile === '') out.push('field "evalFile" must name a JSONL file when evalSet is "file"');
  if (c.model === '') out.push('field "model" must not be empty');
  if (c.mode === 'vrp' && c.steps > 0) out.push('field "steps" must be 0 for mode "vrp" (evaluation only; use "vrp-rl" to train)');
  if (c.paramMode === 'separate' && (c.mode === 'vrp' || c.mode === 'vrp-rl' || c.mode === 'mrp-rl'))
    out.push(`field "paramMode" must be "shared" for single-agent mode "${c.mode}"`);
  if (c.mode !== 'multi-turn' && c.maxTurns !== 1 && c.mode !== 'vrp')
    out.push(`field "maxTurns" must be 1 for mode "${c.mode}" (single-response protocol)`);
  if (c.miniBatches > c.problemsPerStep * c.groupSize)
    out.push(`field "miniBatches" (${c.miniBatches}) must not exceed the rollouts per step (${c.problemsPerStep * c.groupSize})`);
  if (c.frozenAgent !== 'none' && c.mode !== 'multi-turn' && c.mode !== 'single-turn')
    out.push(`field "frozenAgent" ("${c.frozenAgent}") needs a two-agent mode (multi-turn or single-turn), not "${c.mode}"`);
  if (c.klPlacement === 'reward' && c.advantage !== 'reinforce++')
    out.push(`field "klPlacement" ("reward", OpenRLHF REINFORCE++) needs advantage "reinforce++", not "${c.advantage}"`);
  if (c.phaseEpochs > 0 && !(c.mode === 'single-turn' && c.paramMode === 'separate'))
    out.push(`field "phaseEpochs" (${c.phaseEpochs}: Algorithm 1 phases) needs mode "single-turn" with paramMode "separate"; use 0 otherwise`);
  if (c.finetune === 'lora' && c.loraTargets.length === 0) out.push('field "loraTargets" must list at least one module');
  return out;
}

/**
 * Validates a parsed JSON value as an ExperimentConfig. Fields absent from `json` are taken from `base`;
 * unknown fields, wrong types, out-of-range values and inconsistent combinations throw a ConfigError whose
 * message lists every problem, each naming `source` and the field.
 */
export function validateConfig(json: unknown, source: string, base?: ExperimentConfig): ExperimentConfig {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new ConfigError(`${source}: a config must be a JSON object, got ${describe(json)}`);
  const record = json as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(record)) {
    if (key === 'extends' || key === '$comment') continue;
    if (!(key in FIELD_SPECS)) problems.push(`unknown field "${key}"`);
  }
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(FIELD_SPECS) as [keyof ExperimentConfig, FieldSpec][]) {
    const has = Object.prototype.hasOwnProperty.call(record, key);
    const added = ADDED_FIELD_DEFAULTS[key];
    if (!has && base === undefined && added !== undefined) {
      out[key] = added;
      continue;
    }
    if (!has && base === undefined) {
      problems.push(`missing field "${key}"`);
      continue;
    }
    const value = has ? record[key] : base![key];
    const problem = checkField(spec, value);
    if (problem !== null) {
      if (key === 'version') problems.push(`field "version" must be ${CONFIG_VERSION} (this build's config version), got ${describe(value)}`);
      else problems.push(`field "${key}" ${problem}, got ${describe(value)}`);
    }
    out[key] = Array.isArray(value) ? [...value] : value;
  }
  if (problems.length === 0) problems.push(...crossFieldProblems(out as unknown as ExperimentConfig));
  if (problems.length > 0) throw new ConfigError(`${source}: invalid config:\n  ${problems.join('\n  ')}`);
  return out as unknown as ExperimentConfig;
}
