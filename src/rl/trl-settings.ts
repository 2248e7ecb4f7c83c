// The Hugging Face TRL GRPOTrainer settings under which its step computes what ours computes for an ExperimentConfig
// (GRPOConfig and peft.LoraConfig keyword arguments), and the parts of the config TRL has no setting for. The loss
// side is checked against TRL's own code path (tests/rl/trl-parity.test.ts, fixtures from scripts/trl/);
// docs/trl-parity.md explains each setting. Single-turn, one agent: ReMA's multi-turn dialogue has no TRL form.
import type { ExperimentConfig } from './config.ts';

export type TrlValue = string | number | boolean | null | string[];

export interface TrlSettings {
  /** trl.GRPOConfig keyword arguments */
  grpoConfig: Record<string, TrlValue>;
  /** peft.LoraConfig keyword arguments; null for full fine-tuning */
  loraConfig: Record<string, TrlValue> | null;
  /** what ours does under this config that no TRL setting reproduces, one sentence each (empty: nothing) */
  unmatched: string[];
}

/** TRL's fixed GRPO std epsilon (advantages / (std + 1e-4)). */
export const TRL_ADV_EPS = 1e-4;

const LOSS_TYPE: Partial<Record<ExperimentConfig['aggregation'], string>> = {
  'token-mean': 'dapo',
  'seq-mean-token-mean': 'grpo',
  'seq-mean-token-sum-norm': 'dr_grpo',
};

export function trlSettings(config: ExperimentConfig): TrlSettings {
  const unmatched: string[] = [];
  const offPolicy = config.ppoEpochs > 1 || config.miniBatches > 1;
  if (config.maxTurns > 1) unmatched.push(`maxTurns ${config.maxTurns}: TRL has no multi-turn, multi-agent rollouts`);
  if (config.advantage !== 'grpo')
    unmatched.push(`advantage "${config.advantage}": TRL's GRPOTrainer computes GRPO advantages only`);
  if (config.advEps !== TRL_ADV_EPS) unmatched.push(`advEps ${config.advEps}: TRL adds ${TRL_ADV_EPS} to the std`);
  if (config.filterGroups) unmatched.push('filterGroups: TRL has no dynamic sampling');
  const lossType = LOSS_TYPE[config.aggregation];
  if (!lossType) unmatched.push(`aggregation "${config.aggregation}": no TRL loss_type`);
  // max_completion_length counts the end token, which ours trains after maxTokensPerTurn generated tokens
  const maxCompletion = config.maxTokensPerTurn + 1;
  const normLength = config.lossNormLength > 0 ? config.lossNormLength : config.maxTurns * maxCompletion;
  if (config.aggregation === 'seq-mean-token-sum-norm' && normLength !== maxCompletion)
    unmatched.push(`lossNormLength ${normLength}: TRL's dr_grpo divides by max_completion_length (${maxCompletion})`);
  let importanceSampling = 'token';
  if (config.ratio === 'turn-geometric' && config.maxTurns === 1) importanceSampling = 'sequence';
  else if (config.ratio !== 'token') unmatched.push(`ratio "${config.ratio}": TRL has token and sequence ratios`);
  const klInLoss = config.klPlacement === 'loss' && config.klBeta > 0;
  if (config.klPlacement === 'reward' && config.klBeta > 0)
    unmatched.push('klPlacement "reward": TRL puts the KL in the loss only');
  if (klInLoss && config.klEstimator !== 'k3')
    unmatched.push(`klEstimator "${config.klEstimator}": TRL's KL is k3 only`);
  if (klInLoss && config.regularizerMean === 'token' && config.aggregation !== 'token-mean')
    unmatched.push(
      'regularizerMean "token": TRL aggregates the KL with the policy loss (regularizerMean "aggregation")',
    );
  if (config.entropyCoef !== 0 && config.regularizerMean !== 'token' && config.aggregation !== 'token-mean')
    unmatched.push('entropyCoef with regularizerMean "aggregation": TRL takes the entropy bonus as a token mean');
  if (config.logprobTemperature === 'one' && config.temperature !== 1)
    unmatched.push('logprobTemperature "one": TRL scores log-probs at the sampling temperature');
  if (offPolicy && config.dualClip !== null)
    unmatched.push(`dualClip ${config.dualClip}: TRL has no dual clip (delta caps the ratio instead)`);
  if (offPolicy && Number.isFinite(config.logRatioClip))
    unmatched.push(`logRatioClip ${config.logRatioClip}: TRL does not cap the log-ratio`);
  if (config.lrSchedule === 'cosine' && config.warmupSteps > 0)
    unmatched.push('lrSchedule "cosine" with warmup: the horizons of the two schedules differ');
  const grpoConfig: Record<string, TrlValue> = {
    loss_type: lossType ?? null,
    scale_rewards: config.stdScaling,
    beta: klInLoss ? config.klBeta : 0,
    use_bias_correction_kl: false,
    epsilon: config.clipLow,
    epsilon_high: config.clipHigh,
    importance_sampling_level: importanceSampling,
    num_generations: config.groupSize,
    per_device_train_batch_size: (config.problemsPerStep * config.groupSize) / config.miniBatches,
    steps_per_generation: config.miniBatches,
    gradient_accumulation_steps: 1,
    num_iterations: config.ppoEpochs,
    max_completion_length: maxCompletion,
    temperature: config.temperature,
    top_p: config.topP,
    top_k: config.topK > 0 ? config.topK : 0,
    mask_truncated_completions: false,
    entropy_coef: config.entropyCoef,
    learning_rate: config.lr,
    lr_scheduler_type:
      config.lrSchedule === 'cosine' ? 'cosine' : config.warmupSteps > 0 ? 'constant_with_warmup' : 'constant',
    warmup_steps: config.warmupSteps,
    weight_decay: config.weightDecay,
    adam_beta1: config.adamBeta1,
    adam_beta2: config.adamBeta2,
    adam_epsilon: 1e-8,
    max_grad_norm: config.gradClip,
    seed: config.seed,
    bf16: false,
    fp16: false,
  };
  const loraConfig =
    config.finetune === 'lora'
      ? {
          r: config.loraRank,
          lora_alpha: config.loraAlpha,
          target_modules: [...config.loraTargets],
          lora_dropout: 0,
          bias: 'none',
          task_type: 'CAUSAL_LM',
        }
      : null;
  return { grpoConfig, loraConfig, unmatched };
}
