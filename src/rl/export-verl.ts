// Export of an ExperimentConfig to the ReMA code's verl fork (ziyuwan/ReMA-public@24b5b47): the Hydra overrides
// of `python -m verl.rema_trainer.main_ppo` (shared parameters) or `verl.rema_separated_trainer.main_ppo`
// (separate parameters), in the style and order of the fork's scripts/rl/{rema,separated_rema}/example_7b.sh,
// plus the list of knobs that have no equivalent there (export-verl-unported.ts; reported, never silently dropped:
// tests/rl/export-verl-fields.test.ts walks every field of the config table). Keys that the
// fork's ppo_trainer.yaml lacks are written `+key=value` (verl-fork-keys.ts), as Hydra requires. Each knob maps to
// the fork key that reads it (group size -> actor_rollout_ref.rollout.n, prompts per step -> data.train_batch_size,
// aggregation -> actor_rollout_ref.actor.agg_mode, ratio level -> actor_rollout_ref.actor.clip_mode, max turns ->
// actor_rollout_ref.rollout.max_num_turns, ...).

import { stringify } from 'yaml';
import type { ExperimentConfig } from './config.ts';
import { unportedKnobs } from './export-verl-unported.ts';
import { VERL_FORK_COMMIT, VERL_FORK_KEYS } from './verl-fork-keys.ts';

export type VerlTrainer = 'rema_trainer' | 'rema_separated_trainer';
export type VerlValue = string | number | boolean | readonly (string | number)[];

/** One Hydra override; `added` keys are absent from the fork's config and written with a leading `+`. */
export interface VerlOverride {
  key: string;
  value: VerlValue;
  added: boolean;
}

export interface VerlExport {
  trainer: VerlTrainer;
  /** `python -m <module>` */
  module: string;
  overrides: VerlOverride[];
  /** the same keys as a nested object (the YAML document's body) */
  keys: Record<string, unknown>;
  /** a header comment, then the keys as YAML to merge into the fork's ppo_trainer.yaml */
  yaml: string;
  /** a bash script in the style of the fork's example_7b.sh: placeholders, then the command line */
  command: string;
  /** one line per knob that does not port, saying why */
  notPorted: string[];
}

/** Shell variables of the command form, as the fork's scripts name them. */
const PLACEHOLDERS = { project: '$PROJECT_NAME', experiment: '$EXPERIMENT_NAME', model: '$MODEL_PATH' } as const;

/**
 * Deployment keys that no ExperimentConfig field decides: the values of the fork's example_7b.sh (one node of
 * 8 GPUs, dynamic batch sizes, vLLM rollout). Edit the exported script for another cluster.
 */
const DEPLOYMENT = {
  nnodes: 1,
  gpusPerNode: 8,
  valBatchSize: 512,
  microBatchPerGpu: 8,
  logProbMicroBatchPerGpu: 32,
  tensorParallel: 1,
  maxBatchedTokens: 8192,
  saveFreq: 50,
  totalEpochs: 10,
} as const;

/** The paper's script writes 512 for one mini-batch per step (any value >= train_batch_size gives one). */
const ONE_MINI_BATCH = 512;

function dataFile(name: string, file: string): string {
  if (name === 'file') return file;
  if (name === 'math133') return 'data/MATH/train_minimal_all_types.parquet';
  if (name === 'math8k') return 'data/MATH/train_lv3to5_8k.parquet';
  if (name === 'math500') return 'data/MATH/test500.parquet';
  if (name === 'gsm8k') return 'data/overall_math/test.parquet';
  return `<${name}>`;
}

/**
 * The fork's agg_mode for a config, and why it differs when it does. With clip_mode token the fork's
 * `trajectory` is a per-row token mean (our seq-mean-token-mean) and `turn` a mean of turn means over all
 * (row, turn) pairs (our turn-mean); with clip_mode turn, losses are per turn and `trajectory` averages them per
 * row then over rows (our trajectory), `turn` over all pairs (our turn-mean), and `token` raises.
 */
function aggMode(c: ExperimentConfig, turnRatio: boolean, notPorted: string[]): 'token' | 'turn' | 'trajectory' {
  const a = c.aggregation;
  if (a === 'turn-mean') return 'turn';
  if (turnRatio && a === 'trajectory') return 'trajectory';
  if (!turnRatio && a === 'token-mean') return 'token';
  if (!turnRatio && a === 'seq-mean-token-mean') return 'trajectory';
  if (!turnRatio && a === 'trajectory')
    notPorted.push(
      'aggregation "trajectory" with the token ratio: the fork\'s agg_mode trajectory with clip_mode token is a per-row token mean (seq-mean-token-mean), not a mean of turn means; exported as trajectory',
    );
  else if (turnRatio && a === 'token-mean')
    notPorted.push(
      'aggregation "token-mean" with a turn ratio: the fork raises for agg_mode token with clip_mode turn; exported as trajectory',
    );
  else
    notPorted.push(
      `aggregation "${a}"${a === 'seq-mean-token-sum-norm' ? ` (lossNormLength ${c.lossNormLength})` : ''}: the fork has agg_mode token | turn | trajectory only; exported as trajectory`,
    );
  return 'trajectory';
}

/**
 * Problems per mini-batch. The fork's actor splits its rows (one per agent per rollout, 2·B·n in the shared
 * trainer, which doubles ppo_mini_batch_size for that; B·n per agent in the separated one) into chunks of
 * ppo_mini_batch_size·n rows per agent, so a step takes ceil(B / ppo_mini_batch_size) optimiser steps per epoch.
 */
function miniBatchProblems(c: ExperimentConfig, notPorted: string[]): number {
  if (c.miniBatches === 1) return Math.max(c.problemsPerStep, ONE_MINI_BATCH);
  if (c.problemsPerStep % c.miniBatches !== 0)
    notPorted.push(
      `miniBatches ${c.miniBatches} does not divide problemsPerStep ${c.problemsPerStep}: the fork's mini-batches hold whole problems; exported ppo_mini_batch_size ${Math.ceil(c.problemsPerStep / c.miniBatches)}`,
    );
  return Math.ceil(c.problemsPerStep / c.miniBatches);
}

export function exportVerl(c: ExperimentConfig): VerlExport {
  const notPorted: string[] = [];
  const separate = c.paramMode === 'separate';
  const trainer: VerlTrainer = separate ? 'rema_separated_trainer' : 'rema_trainer';
  const turnRatio = c.ratio !== 'token';
  notPorted.push(...unportedKnobs(c));
  const agg = aggMode(c, turnRatio, notPorted);

  const known = new Set(VERL_FORK_KEYS[trainer]);
  const overrides: VerlOverride[] = [];
  const set = (key: string, value: VerlValue) => overrides.push({ key, value, added: !known.has(key) });
  const actor = 'actor_rollout_ref.actor';
  const rollout = 'actor_rollout_ref.rollout';

  // In the order of example_7b.sh, then the keys the script leaves at the fork's defaults.
  set('trainer.project_name', PLACEHOLDERS.project);
  set('trainer.experiment_name', PLACEHOLDERS.experiment);
  set('trainer.nnodes', DEPLOYMENT.nnodes);
  set('trainer.n_gpus_per_node', DEPLOYMENT.gpusPerNode);
  set('data.train_files', dataFile(c.trainSet, c.trainFile));
  set('data.val_files', dataFile(c.evalSet, c.evalFile));
  set('data.val_batch_size', DEPLOYMENT.valBatchSize);
  set('data.train_batch_size', c.problemsPerStep);
  set('data.max_prompt_length', c.maxPromptTokens);
  set('data.max_response_length', c.maxTokensPerTurn);
  if (separate) {
    set('algorithm.switch_agent.enable', true);
    set('algorithm.switch_agent.freq', c.switchEvery);
    set('algorithm.switch_agent.model_paths', [PLACEHOLDERS.model, PLACEHOLDERS.model]);
  }
  set('actor_rollout_ref.model.path', PLACEHOLDERS.model);
  set('actor_rollout_ref.model.use_remove_padding', true);
  set(`${actor}.use_dynamic_bsz`, true);
  set(`${actor}.use_kl_loss`, c.klBeta > 0);
  set(`${actor}.kl_loss_coef`, c.klBeta > 0 ? c.klBeta : 1e-3); // unused without the KL loss; the script's value
  set(`${actor}.entropy_coeff`, c.entropyCoef);
  set(`${actor}.ulysses_sequence_parallel_size`, 1);
  set(`${actor}.ppo_mini_batch_size`, miniBatchProblems(c, notPorted));
  set(`${actor}.ppo_micro_batch_size_per_gpu`, DEPLOYMENT.microBatchPerGpu);
  set(`${actor}.clip_mode`, turnRatio ? 'turn' : 'token');
  set(`${actor}.agg_mode`, agg);
  set('actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu', DEPLOYMENT.logProbMicroBatchPerGpu);
  set(`${rollout}.log_prob_micro_batch_size_per_gpu`, DEPLOYMENT.logProbMicroBatchPerGpu);
  set(`${rollout}.tensor_model_parallel_size`, DEPLOYMENT.tensorParallel);
  set(`${rollout}.max_num_batched_tokens`, DEPLOYMENT.maxBatchedTokens);
  set(`${rollout}.max_num_turns`, c.maxTurns);
  set(`${rollout}.n`, c.groupSize);
  set(`${rollout}.stop_when_truncated`, c.stopWhenTruncated);
  set(`${actor}.optim.lr`, c.lr);
  set('trainer.val_before_train', c.evalBeforeTrain);
  set('trainer.val_only', false);
  set('trainer.save_val_generations', true);
  set('trainer.save_train_generations', true);
  set('trainer.test_freq', c.evalEvery > 0 ? c.evalEvery : -1);
  set('trainer.save_freq', DEPLOYMENT.saveFreq);
  set('trainer.remove_previous_ckpt_in_save', true);
  set('trainer.total_epochs', DEPLOYMENT.totalEpochs);
  set('trainer.total_training_steps', c.steps);
  set('algorithm.adv_estimator', c.advantage === 'grpo' ? 'grpo' : 'reinforce_plus_plus');
  set('reward_model.reward_manager', 'rema');
  set('reward_model.mask_unfinished_reward', c.maskUnfinishedReward);
  set('algorithm.filter_groups.enable', false);
  set('trainer.logger', ['console', 'wandb']);
  if (separate) {
    set('algorithm.switch_agent.level', 'step');
    set('algorithm.switch_agent.start_agent', c.startAgent === 'meta' ? 'meta_thinking' : 'reasoning');
  }
  set(`${actor}.ppo_epochs`, c.ppoEpochs);
  set(`${actor}.grad_clip`, c.gradClip);
  set(`${actor}.clip_ratio`, c.clipLow);
  set(`${actor}.clip_ratio_c`, c.dualClip ?? 1e9);
  set(`${actor}.log_ratio_clip_c`, c.logRatioClip);
  set(`${actor}.kl_loss_type`, c.klEstimator === 'k3' ? 'low_var_kl' : 'kl');
  set(`${actor}.optim.warmup_style`, c.lrSchedule);
  set(`${actor}.optim.lr_warmup_steps`, c.warmupSteps);
  set(`${actor}.optim.betas`, [c.adamBeta1, c.adamBeta2]);
  set(`${actor}.optim.weight_decay`, c.weightDecay);
  set(`${rollout}.temperature`, c.temperature);
  set(`${rollout}.top_p`, c.topP);
  set(`${rollout}.top_k`, c.topK > 0 ? c.topK : -1);
  set(`${rollout}.val_kwargs.temperature`, 0);
  set(`${rollout}.val_kwargs.n`, 1);
  // the data order's seed (ray_trainer reads data.get('seed', 1)) and vLLM's (rollout config.get('seed', 0))
  set('data.seed', c.seed);
  set(`${rollout}.seed`, c.seed);

  const module = `verl.${trainer}.main_ppo`;
  const names: Record<string, string> = {
    [PLACEHOLDERS.project]: 'rema-playground',
    [PLACEHOLDERS.experiment]: c.name,
    [PLACEHOLDERS.model]: c.model,
  };
  const resolve = (v: VerlValue): VerlValue =>
    typeof v === 'string'
      ? (names[v] ?? v)
      : Array.isArray(v)
        ? v.map((x) => (typeof x === 'string' ? (names[x] ?? x) : x))
        : v;
  const keys = nest(overrides.map((o) => ({ ...o, value: resolve(o.value) })));
  const header = [
    `# ReMA verl-fork config generated by ReMA Playground from "${c.name}" (config version ${c.version}, seed ${c.seed})`,
    `# for ziyuwan/ReMA-public@${VERL_FORK_COMMIT.slice(0, 7)} (python -m ${module})`,
    ...(notPorted.length > 0
      ? ['# knobs that do not port:', ...notPorted.map((n) => `#  - ${n}`)]
      : ['# every knob ports']),
  ];
  const yaml =
    [...header, "# merge into the fork's ppo_trainer.yaml (keys it lacks are new there)"].join('\n') +
    '\n' +
    stringify(keys);
  const command =
    [
      ...header,
      '',
      `PROJECT_NAME=${names[PLACEHOLDERS.project]}`,
      `EXPERIMENT_NAME=${shellWord(c.name)}`,
      `MODEL_PATH=${shellWord(c.model)}`,
      '',
      `python -m ${module} \\`,
      overrides.map((o) => `    ${o.added ? '+' : ''}${o.key}=${hydraValue(o.value)}`).join(' \\\n'),
    ].join('\n') + '\n';
  return { trainer, module, overrides, keys, yaml, command, notPorted };
}

/** Hydra's override grammar, written as the fork's scripts write it (True/False, 1e-6, [a,b]). */
export function hydraValue(v: VerlValue): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return Number.isInteger(v) || Math.abs(v) >= 1e-2 ? String(v) : v.toExponential();
  if (Array.isArray(v)) return `[${v.map((x) => hydraValue(x)).join(',')}]`;
  return /^[\w$./<>:-]*$/.test(v as string) ? (v as string) : `'${(v as string).replaceAll("'", "\\'")}'`;
}

function shellWord(s: string): string {
  return /^[\w./@:-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`;
}

function nest(overrides: readonly VerlOverride[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const { key, value } of overrides) {
    const parts = key.split('.');
    let node = root;
    for (const p of parts.slice(0, -1)) node = (node[p] ??= {}) as Record<string, unknown>;
    node[parts.at(-1)!] = Array.isArray(value) ? [...value] : value;
  }
  return root;
}
