// Export of an ExperimentConfig to the ReMA code's verl fork (ziyuwan/ReMA-public, rema_trainer Hydra config),
// key by key as scripts/rl/rema/example_7b.sh spells them, plus the list of knobs that have no equivalent there
// (they are reported, never silently dropped). The mapping follows shared/notes/rl-trainers-and-verifiers.md §1.8
// and rema-paper-and-code.md §4-5.

import { stringify } from 'yaml';
import type { ExperimentConfig } from './config.ts';

export interface VerlExport {
  /** the YAML document (a header comment, then the Hydra keys) */
  yaml: string;
  /** the same keys as a nested object */
  keys: Record<string, unknown>;
  /** one line per knob that does not port, saying why */
  notPorted: string[];
}

const AGG: Partial<Record<ExperimentConfig['aggregation'], string>> = { 'token-mean': 'token', 'turn-mean': 'turn', trajectory: 'trajectory' };

export function exportVerl(c: ExperimentConfig): VerlExport {
  const notPorted: string[] = [];
  const turnRatio = c.ratio !== 'token';
  if (c.ratio === 'turn-arithmetic')
    notPorted.push('ratio "turn-arithmetic" (paper Eq. 13): the code implements only the geometric turn ratio (clip_mode: turn); exported as turn');
  let aggMode = AGG[c.aggregation];
  if (!turnRatio && c.aggregation === 'seq-mean-token-mean') aggMode = 'trajectory'; // per-row token mean in token mode
  if (aggMode === undefined) {
    notPorted.push(`aggregation "${c.aggregation}": the fork has agg_mode token | turn | trajectory only; exported as trajectory`);
    aggMode = 'trajectory';
  }
  if (turnRatio && aggMode === 'token') notPorted.push('aggregation "token-mean" with a turn ratio: the fork rejects agg_mode token with clip_mode turn');
  if (c.mode !== 'multi-turn')
    notPorted.push(`mode "${c.mode}": the released code trains multi-turn ReMA only (its max_num_turns=1 path has a broken reward); the paper's single-turn / baseline runs used unreleased OpenRLHF code`);
  if (c.stdScaling !== 'group') notPorted.push(`stdScaling "${c.stdScaling}": the fork always divides by the group std (verl core: algorithm.norm_adv_by_std_in_grpo=false for "none")`);
  if (c.advEps !== 1e-6) notPorted.push(`advEps ${c.advEps}: fixed at 1e-6 in the code`);
  if (c.finetune === 'lora') notPorted.push('finetune "lora": the fork trains all weights (upstream verl has actor_rollout_ref.model.lora_rank)');
  if (c.filterGroups) notPorted.push('filterGroups (Algorithm 1 success-rate filter): not in the fork (algorithm.filter_groups is DAPO-style, off)');
  if (c.trainSet.startsWith('tiny') || c.evalSet.startsWith('tiny') || c.prompts === 'tiny')
    notPorted.push('the tiny task and its prompts exist only in this playground; export the problems to parquet and use the code prompts');
  if (c.modelSource === 'embedded') notPorted.push(`model: the embedded "${c.model}" must be copied to a local path for verl`);
  if (c.oldLogProbs === 'auto') notPorted.push('oldLogProbs "auto": verl always recomputes old log-probs (same result, one more forward pass)');
  if (c.evalSize > 0) notPorted.push(`evalSize ${c.evalSize}: verl validates on the whole val_files`);
  if (!c.maskUnfinishedReward && c.mode === 'multi-turn') notPorted.push('maskUnfinishedReward=false is exported, but the paper always masks');
  const dataFile = (name: string, file: string) =>
    name === 'file' ? file : name === 'math133' ? 'data/MATH/train_minimal_all_types.parquet' : name === 'math8k' ? 'data/MATH/train_lv3to5_8k.parquet' : name === 'math500' || name === 'gsm8k' ? 'data/overall_math/test.parquet' : `<${name}>`;

  const keys = {
    data: {
      train_files: dataFile(c.trainSet, c.trainFile),
      val_files: dataFile(c.evalSet, c.evalFile),
      prompt_key: 'question',
      train_batch_size: c.problemsPerStep,
      max_prompt_length: c.maxPromptTokens,
      max_response_length: c.maxTokensPerTurn,
    },
    actor_rollout_ref: {
      model: { path: c.model },
      actor: {
        optim: {
          lr: c.lr,
          weight_decay: c.weightDecay,
          warmup_style: c.lrSchedule,
          lr_warmup_steps: c.warmupSteps,
          betas: [c.adamBeta1, c.adamBeta2],
        },
        ppo_mini_batch_size: Math.max(1, Math.floor(c.problemsPerStep / c.miniBatches)),
        ppo_epochs: c.ppoEpochs,
        grad_clip: c.gradClip,
        clip_ratio: c.clipLow,
        clip_ratio_low: c.clipLow,
        clip_ratio_high: c.clipHigh,
        clip_ratio_c: c.dualClip ?? 1e9,
        log_ratio_clip_c: c.logRatioClip,
        clip_mode: turnRatio ? 'turn' : 'token',
        agg_mode: aggMode,
        use_kl_loss: c.klBeta > 0,
        kl_loss_coef: c.klBeta,
        kl_loss_type: c.klEstimator === 'k3' ? 'low_var_kl' : 'kl',
        entropy_coeff: c.entropyCoef,
      },
      rollout: {
        n: c.groupSize,
        temperature: c.temperature,
        top_p: c.topP,
        top_k: c.topK > 0 ? c.topK : -1,
        max_num_turns: c.maxTurns,
        stop_when_truncated: c.stopWhenTruncated,
        val_kwargs: { temperature: 0, n: 1 },
      },
    },
    reward_model: { mask_unfinished_reward: c.maskUnfinishedReward },
    algorithm: {
      adv_estimator: c.advantage === 'grpo' ? 'grpo' : 'reinforce_plus_plus',
      switch_agent: {
        enable: c.paramMode === 'separate',
        level: 'step',
        freq: c.switchEvery,
        start_agent: c.startAgent === 'meta' ? 'meta_thinking' : 'reasoning',
      },
    },
    trainer: {
      total_training_steps: c.steps,
      test_freq: c.evalEvery > 0 ? c.evalEvery : -1,
      val_before_train: c.evalBeforeTrain,
      experiment_name: c.name,
    },
  };
  if (c.dualClip === null) notPorted.push('dualClip null: exported as clip_ratio_c 1e9 (dual clip never binds)');
  if (c.frozenAgent !== 'none')
    notPorted.push(`frozenAgent "${c.frozenAgent}": the fork has no permanently frozen external agent (its separated trainer alternates both agents)`);
  if (c.paramMode === 'separate') notPorted.push('paramMode "separate": use the separated trainer (verl/rema_separated_trainer, scripts/rl/separated_rema)');
  const header = [
    `# ReMA verl-fork config generated by ReMA Playground from "${c.name}" (config version ${c.version}, seed ${c.seed})`,
    '# for ziyuwan/ReMA-public@24b5b47 (python -m verl.rema_trainer.main_ppo); pass as Hydra overrides or merge into ppo_trainer.yaml',
    ...(notPorted.length > 0 ? ['# knobs that do not port:', ...notPorted.map((n) => `#  - ${n}`)] : ['# every knob ports']),
  ];
  return { yaml: header.join('\n') + '\n' + stringify(keys), keys, notPorted };
}
