// The verl export's "knobs that do not port": one line for each config field whose value makes a run here differ
// from what the ReMA fork (ziyuwan/ReMA-public@24b5b47) does with the exported overrides, naming the field and
// its value. A field either maps to a fork key (export-verl.ts) or has its rule here; the lines that depend on the
// mapping chosen (aggregation, mini-batches) are written by export-verl.ts.

import type { ExperimentConfig } from './config.ts';
import { configDefaults } from './config.ts';

/** Lines for the fields the fork has no key for, in the field table's order. */
export function unportedKnobs(c: ExperimentConfig): string[] {
  const out: string[] = [];
  const code = configDefaults();
  const add = (when: boolean, line: () => string) => {
    if (when) out.push(line());
  };

  add(
    c.modelSource === 'embedded',
    () => `modelSource "embedded": the embedded "${c.model}" must be copied to a local path for verl`,
  );
  add(
    c.finetune === 'lora',
    () =>
      `finetune "lora" (loraRank ${c.loraRank}, loraAlpha ${c.loraAlpha}, loraTargets ${c.loraTargets.join(',')}): the fork trains all weights (upstream verl has actor_rollout_ref.model.lora_rank)`,
  );
  add(
    c.trainSet.startsWith('tiny') || c.evalSet.startsWith('tiny') || c.prompts === 'tiny',
    () =>
      'the tiny task and its prompts exist only in this playground; export the problems to parquet and use the code prompts',
  );
  add(
    c.trainSet === 'gsm8k' || c.evalSet === 'gsm8k',
    () =>
      'gsm8k: the fork ships GSM8K only inside data/overall_math/test.parquet, the 7-benchmark mix; exported as that file (keep the gsm8k rows by data_source)',
  );
  add(
    c.trainSize > 0,
    () =>
      `trainSize ${c.trainSize}: the fork trains on every row of train_files; cut the parquet to ${c.trainSize} rows`,
  );
  add(c.evalSize > 0, () => `evalSize ${c.evalSize}: verl validates on the whole val_files`);
  add(
    c.mode !== 'multi-turn',
    () =>
      `mode "${c.mode}": the released code trains multi-turn ReMA only (its max_num_turns=1 path has a broken reward); the paper's single-turn / baseline runs used unreleased OpenRLHF code`,
  );
  add(
    c.prompts === 'paper' && c.mode !== 'multi-turn',
    () =>
      `prompts "paper" (${c.mode}): the fork reads its code prompts (prompt/math/*.py), not the paper's App. G text`,
  );
  add(
    !c.maskUnfinishedReward && c.mode === 'multi-turn',
    () => 'maskUnfinishedReward=false is exported, but the paper always masks',
  );
  add(
    c.overflowAnswer !== code.overflowAnswer,
    () =>
      `overflowAnswer "${c.overflowAnswer}": the fork grades the empty dummy message of a cut-short episode ("empty")`,
  );
  add(
    c.endTokenTarget !== code.endTokenTarget,
    () =>
      `endTokenTarget "${c.endTokenTarget}": the fork trains the tokenizer's eos_token after a finished message (encode_conversation)`,
  );
  add(
    c.singleTurnReward !== code.singleTurnReward,
    () =>
      `singleTurnReward "${c.singleTurnReward}": the fork has no single-turn reward of the paper's App. C.2 (its max_num_turns=1 shaping is broken)`,
  );
  add(
    c.frozenAgent !== 'none',
    () =>
      `frozenAgent "${c.frozenAgent}": the fork has no permanently frozen external agent (its separated trainer alternates both agents)`,
  );
  add(
    c.filterGroups,
    () =>
      `filterGroups (Algorithm 1 success-rate filter, filterEpsMin ${c.filterEpsMin}, filterEpsMax ${c.filterEpsMax}): not in the fork (algorithm.filter_groups is DAPO-style, off)`,
  );
  add(
    c.phaseEpochs > 0,
    () =>
      `phaseEpochs ${c.phaseEpochs} (Algorithm 1 phases, probeSamples ${c.probeSamples} per problem): the fork's separated trainer switches agents every switch_agent.freq steps without phases or probes`,
  );
  add(
    c.planSamples > 0,
    () =>
      `planSamples ${c.planSamples}: the fork samples one meta message per turn for each of rollout.n episodes; it has no plans shared by reasoning samples`,
  );
  add(
    c.metaActions !== 'off',
    () =>
      `metaActions "${c.metaActions}": the fork has no JSON meta-actions or grammar-constrained decoding (paper §4.2.2 used vLLM guided decoding)`,
  );
  add(
    c.metaFollowers > 1,
    () =>
      `metaFollowers ${c.metaFollowers}: the fork answers each meta message once; it has no reasoning samples per plan`,
  );
  add(
    c.updateIterations > 0,
    () =>
      `updateIterations ${c.updateIterations} (Algorithm 1's #Update Iteration): the fork has no phases to count; total_training_steps alone ends its run`,
  );
  add(
    c.logprobTemperature !== code.logprobTemperature,
    () =>
      `logprobTemperature "${c.logprobTemperature}": verl divides the logits by the rollout temperature for every training log-prob`,
  );
  add(
    c.decodeBatch !== code.decodeBatch,
    () =>
      `decodeBatch ${c.decodeBatch}: generation batching only (the tokens do not depend on it); vLLM batches by max_num_batched_tokens`,
  );
  add(
    c.activationBudgetMiB !== code.activationBudgetMiB,
    () =>
      `activationBudgetMiB ${c.activationBudgetMiB}: memory only (the gradients do not depend on it); verl recomputes activations when actor_rollout_ref.model.enable_gradient_checkpointing is true`,
  );
  add(
    c.stdScaling !== 'group',
    () =>
      `stdScaling "${c.stdScaling}": the fork always divides by the group std (verl core: algorithm.norm_adv_by_std_in_grpo=false for "none")`,
  );
  add(c.advEps !== 1e-6, () => `advEps ${c.advEps}: fixed at 1e-6 in the code`);
  add(
    c.groupStatsRows !== code.groupStatsRows,
    () =>
      `groupStatsRows "${c.groupStatsRows}": the fork's GRPO statistics count every row of a group, trained tokens or not ("all")`,
  );
  add(
    c.ratio === 'turn-arithmetic',
    () =>
      'ratio "turn-arithmetic" (paper Eq. 13): the code implements only the geometric turn ratio (clip_mode: turn); exported as turn',
  );
  add(
    c.clipLow !== c.clipHigh,
    () =>
      `asymmetric clip (clipLow ${c.clipLow}, clipHigh ${c.clipHigh}): the fork's actor passes one clip_ratio to the loss; exported clip_ratio ${c.clipLow}`,
  );
  add(c.dualClip === null, () => 'dualClip null: exported as clip_ratio_c 1e9 (dual clip never binds)');
  add(
    c.klBeta > 0 && c.klPlacement === 'reward',
    () =>
      'klPlacement "reward" (OpenRLHF REINFORCE++): the fork\'s KL-in-reward step is commented out (rema_trainer/ppo/ray_trainer.py, apply_kl_penalty); exported as the KL loss (use_kl_loss)',
  );
  add(
    c.regularizerMean !== code.regularizerMean,
    () =>
      `regularizerMean "${c.regularizerMean}": the fork averages the KL and entropy terms over trained tokens (dp_rema_actor.update_policy)`,
  );
  add(
    c.oldLogProbs === 'auto',
    () => 'oldLogProbs "auto": verl always recomputes old log-probs (same result, one more forward pass)',
  );
  add(
    c.maxNonFiniteSteps > 0,
    () =>
      `maxNonFiniteSteps ${c.maxNonFiniteSteps}: verl has no stop for steps with NaN / infinite numbers (a diverged run trains on)`,
  );
  return out;
}
