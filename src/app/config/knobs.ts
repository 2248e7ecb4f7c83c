// Every knob of ExperimentConfig as the page shows it: group, label, control, and a hover note saying what the
// knob does and which paper / code setting it reproduces. One table, read by the config panel and the URL codec.
// The notes condense the field docs in src/rl/config.ts and ../shared/notes/rema-paper-and-code.md.
import { enumValues, type ExperimentConfig } from '../../rl/config.ts';

export type KnobKey = Exclude<keyof ExperimentConfig, 'version'>;

export type KnobControl =
  | { kind: 'select'; options: readonly string[] }
  | { kind: 'number'; min: number; max: number; step: number; integer: boolean }
  /** a number, or empty for null (dual clip off) */
  | { kind: 'nullable-number'; min: number; max: number; step: number }
  | { kind: 'boolean' }
  | { kind: 'text' }
  /** comma-separated list */
  | { kind: 'list' };

export interface Knob {
  key: KnobKey;
  label: string;
  group: KnobGroup;
  control: KnobControl;
  note: string;
  /** hidden unless the advanced toggle is on (keeps the first view short) */
  advanced?: boolean;
}

export const knobGroups = ['Protocol', 'Agents', 'Rollout', 'Advantage & loss', 'Optimiser', 'Data & evaluation', 'Model', 'Run'] as const;
export type KnobGroup = (typeof knobGroups)[number];

const int = (min: number, max: number): KnobControl => ({ kind: 'number', min, max, step: 1, integer: true });
const real = (min: number, max: number, step: number): KnobControl => ({ kind: 'number', min, max, step, integer: false });
/** an enum field's control: its values come from the config's field specs, so the page offers exactly what validates */
const select = (key: KnobKey): KnobControl => ({ kind: 'select', options: enumValues(key) });

export const knobs: readonly Knob[] = [
  // Protocol
  { key: 'mode', label: 'mode', group: 'Protocol', control: select('mode'),
    note: 'Rollout protocol. multi-turn: ReMA multi-turn MAMRP, MTA and RA alternate until the MTA says [FINISH] (paper §3.2.2, released code). single-turn: one plan then one solution (paper §3.2.1, Table 1). vrp: plain CoT, no RL (Table 1 baseline). vrp-rl: RL on the CoT prompt. mrp-rl: one agent writes plan + solution (paper Eq. 3-4).' },
  { key: 'prompts', label: 'prompt set', group: 'Protocol', control: select('prompts'),
    note: 'Prompt texts. paper: appendix G verbatim; code: the released prompt files; tiny: the short prompts the embedded tiny model was trained with (use this with tiny-rema).' },
  { key: 'maxTurns', label: 'max turns', group: 'Protocol', control: int(1, 30),
    note: 'Maximum rounds (one MTA + one RA message each). Code: 30 when training, 10 in the eval script. Reaching it ends the episode with reach_max_turn.' },
  { key: 'maxTokensPerTurn', label: 'tokens per turn', group: 'Protocol', control: int(4, 4096),
    note: 'Token cap per generated message (data.max_response_length per turn). Code: 512; the paper ablates 256 vs 1024 (Fig. 6).' },
  { key: 'maxPromptTokens', label: 'prompt token cap', group: 'Protocol', control: int(16, 32768), advanced: true,
    note: 'Cap on each agent\'s rendered chat per turn; longer ends the episode with completion_token_exceeded. Code: 4096.' },
  { key: 'stopWhenTruncated', label: 'stop when truncated', group: 'Protocol', control: { kind: 'boolean' }, advanced: true,
    note: 'End the episode when a message hits the per-turn cap (finish reason stop_when_truncated). Code: on.' },
  { key: 'maskUnfinishedReward', label: 'mask unfinished reward', group: 'Protocol', control: { kind: 'boolean' },
    note: 'Reward 0 unless the MTA said [FINISH] and nothing was truncated (code mask_unfinished_reward=True, paper App. D.2).' },
  { key: 'overflowAnswer', label: 'overflow answer', group: 'Protocol', control: select('overflowAnswer'), advanced: true,
    note: 'What an episode cut short (reasoning chat over the prompt cap, truncated meta message) answers. empty: an empty dummy reasoning message ends it and "" is graded (released code); previous: the last real reasoning answer is graded. Matters only without the unfinished-reward mask.' },
  { key: 'endTokenTarget', label: 'end token trained', group: 'Protocol', control: select('endTokenTarget'), advanced: true,
    note: 'Target trained after a message that ended normally. eos: the tokenizer\'s eos_token (released code); template: the chat template\'s closing token (e.g. <|im_end|>). They differ for base models such as Qwen2.5-7B.' },
  { key: 'singleTurnReward', label: 'single-turn reward', group: 'Protocol', control: select('singleTurnReward'), advanced: true,
    note: 'single-turn / vrp-rl / mrp-rl reward. base: paper App. C.2 (+1 correct, -0.5 wrong but boxed, -1 no box; the MTA gets -1 if it leaks \\boxed). binary: 1 or 0. consistency: App. C.2\'s alternative for the MTA (share of its reasoning samples giving the most frequent answer; the paper saw it invite answer leakage).' },
  // Agents
  { key: 'paramMode', label: 'parameters', group: 'Agents', control: select('paramMode'),
    note: 'shared: one set of trainable weights, roles differ by system prompt (code default, paper Fig. 6 "Turn-Ratio"). separate: one adapter per agent, trained in alternation (paper ablation "separate params").' },
  { key: 'switchEvery', label: 'switch agent every', group: 'Agents', control: int(1, 1000),
    note: 'Separate mode: the trained agent switches every this many steps (code switch_agent.freq = 10).' },
  { key: 'startAgent', label: 'first trained agent', group: 'Agents', control: select('startAgent'), advanced: true,
    note: 'Separate mode: which agent trains first (code start_agent = meta_thinking).' },
  { key: 'frozenAgent', label: 'frozen agent', group: 'Agents', control: select('frozenAgent'), advanced: true,
    note: 'An agent that never trains and runs on an external ONNX model (paper Algorithm 1 freezes one agent while the other trains; here for the whole run). none: both agents are the engine model. Needs multi-turn or single-turn.' },
  { key: 'filterGroups', label: 'filter groups', group: 'Agents', control: { kind: 'boolean' }, advanced: true,
    note: 'Single-turn separate mode (paper Algorithm 1): keep only problems whose group success rate lies in [eps min, eps max].' },
  { key: 'filterEpsMin', label: 'filter eps min', group: 'Agents', control: real(0, 1, 0.05), advanced: true,
    note: 'Lower success-rate bound of the filter. Paper (MATH): 0.2.' },
  { key: 'filterEpsMax', label: 'filter eps max', group: 'Agents', control: real(0, 1, 0.05), advanced: true,
    note: 'Upper success-rate bound of the filter. Paper (MATH): 0.8.' },
  { key: 'phaseEpochs', label: 'phase passes', group: 'Agents', control: int(0, 100), advanced: true,
    note: 'Single-turn, separate parameters: Algorithm 1 as written (paper §3.2.1, App. D.1). Each phase trains one agent with its partner frozen, over a dataset built once at the phase start by the success-rate probe, for this many passes ("#Training Episode", paper: 4) of fresh samples; then the other agent. 0: switch every "switch every" steps, filtering the step\'s own samples.' },
  { key: 'probeSamples', label: 'probe samples', group: 'Agents', control: int(1, 100), advanced: true,
    note: 'Samples per problem in a phase\'s success-rate probe, not trained on (Algorithm 1: 10). Reasoning phase: one greedy plan answered this many times; meta phase: this many plans answered greedily.' },
  { key: 'planSamples', label: 'plans per problem', group: 'Agents', control: int(0, 64), advanced: true,
    note: 'Reasoning agent\'s training in single-turn separate mode: the frozen meta agent samples this many plans per problem at the rollout temperature (paper: 4 at T = 1), each answered group-size times; 0 = one greedy plan.' },
  // Rollout
  { key: 'problemsPerStep', label: 'problems per step', group: 'Rollout', control: int(1, 1024),
    note: 'Problems per RL step (data.train_batch_size). Code: 128; scaled down for the browser.' },
  { key: 'groupSize', label: 'group size G', group: 'Rollout', control: int(1, 64),
    note: 'Rollouts per problem, the GRPO group (rollout.n). Code: 16; paper single-turn: 4.' },
  { key: 'temperature', label: 'temperature', group: 'Rollout', control: real(0, 2, 0.05),
    note: 'Sampling temperature for training rollouts. Code: 1.0. Evaluation is always greedy.' },
  { key: 'logprobTemperature', label: 'log-prob temperature', group: 'Rollout', control: select('logprobTemperature'), advanced: true,
    note: 'Temperature of the training log-probs and entropies. rollout: softmax(logits / T), T the rollout temperature (verl divides the logits by it); one: softmax(logits). Same at T = 1.' },
  { key: 'topP', label: 'top-p', group: 'Rollout', control: real(0.05, 1, 0.05), advanced: true,
    note: 'Nucleus mass; 1 disables. Code: 1.0.' },
  { key: 'topK', label: 'top-k', group: 'Rollout', control: int(0, 1000), advanced: true,
    note: 'Keep the k most likely tokens; 0 disables. Code: -1 (off).' },
  // Advantage & loss
  { key: 'advantage', label: 'advantage', group: 'Advantage & loss', control: select('advantage'),
    note: 'grpo: group-normalised outcome (code multi-turn script). reinforce++: batch-whitened returns (paper single-turn runs, OpenRLHF).' },
  { key: 'stdScaling', label: 'std scaling', group: 'Advantage & loss', control: select('stdScaling'),
    note: 'Divide advantages by the group std (code, verl), the batch std (TRL "batch"), or not at all (Dr. GRPO).' },
  { key: 'advEps', label: 'std epsilon', group: 'Advantage & loss', control: real(0, 1, 1e-6), advanced: true,
    note: 'Added to the std before dividing. Code / verl: 1e-6 (TRL: 1e-4).' },
  { key: 'groupStatsRows', label: 'group stats rows', group: 'Advantage & loss', control: select('groupStatsRows'), advanced: true,
    note: 'Rows in the GRPO mean / std. all: every episode\'s row, even one with no trained token (reward 0), as the released code; trained: only rows with trained tokens (a group of 8 can shrink to 6).' },
  { key: 'ratio', label: 'ratio mode', group: 'Advantage & loss', control: select('ratio'),
    note: 'Importance-ratio granularity. token: per token (paper Fig. 6 "Token-Ratio"). turn-geometric: exp of the mean log-ratio per turn (released code). turn-arithmetic: mean of token ratios per turn (paper Eq. 13).' },
  { key: 'aggregation', label: 'aggregation', group: 'Advantage & loss',
    control: select('aggregation'),
    note: 'How per-token losses become one number. trajectory: mean over turns then rows (code multi-turn script). token-mean: global token mean (DAPO). seq-mean-token-sum-norm: Dr. GRPO constant length.' },
  { key: 'clipLow', label: 'clip eps low', group: 'Advantage & loss', control: real(0, 1, 0.01),
    note: 'PPO clip floor 1 - eps for negative advantages. Code: 0.2.' },
  { key: 'clipHigh', label: 'clip eps high', group: 'Advantage & loss', control: real(0, 1, 0.01),
    note: 'PPO clip ceiling 1 + eps for positive advantages. Code: 0.2; DAPO clip-higher: 0.28.' },
  { key: 'dualClip', label: 'dual clip c', group: 'Advantage & loss', control: { kind: 'nullable-number', min: 1, max: 100, step: 0.5 }, advanced: true,
    note: 'Bounds the loss of negative-advantage samples at c·|A|; empty disables. Code: 3.0.' },
  { key: 'logRatioClip', label: 'log-ratio cap', group: 'Advantage & loss', control: real(0, 20, 0.5), advanced: true,
    note: 'Upper cap on the log-ratio before exp (code log_ratio_clip_c, the paper\'s "pre-clip ... upper bound of 3.0").' },
  { key: 'lossNormLength', label: 'Dr. GRPO length', group: 'Advantage & loss', control: int(0, 1_000_000), advanced: true,
    note: 'Constant length for seq-mean-token-sum-norm; 0 = maxTurns · (tokens per turn + 1).' },
  { key: 'klBeta', label: 'KL beta', group: 'Advantage & loss', control: real(0, 1, 0.001),
    note: 'KL-to-reference coefficient (reference = base weights, adapters off). Code multi-turn: 0 (KL removed); paper single-turn (REINFORCE++): 0.01.' },
  { key: 'klPlacement', label: 'KL placement', group: 'Advantage & loss', control: select('klPlacement'), advanced: true,
    note: 'loss: beta · KL in the loss (verl, TRL). reward: OpenRLHF REINFORCE++ (the paper\'s single-turn runs): −beta · (log π_old − log π_ref) per token in the reward, returns summed to the end, advantages whitened over the batch\'s tokens. Needs REINFORCE++.' },
  { key: 'klEstimator', label: 'KL estimator', group: 'Advantage & loss', control: select('klEstimator'), advanced: true,
    note: 'k1 = logπ − logπref; k3 = exp(ref − logπ) − (ref − logπ) − 1 (verl low_var_kl).' },
  { key: 'entropyCoef', label: 'entropy bonus', group: 'Advantage & loss', control: real(0, 1, 0.001), advanced: true,
    note: 'Loss −= coef · mean entropy. Code script: 0. Raising it is one way out of the Echo Trap.' },
  { key: 'regularizerMean', label: 'KL / entropy mean', group: 'Advantage & loss', control: select('regularizerMean'), advanced: true,
    note: 'How the KL and entropy terms are averaged. token: mean over trained tokens (released code, whatever the loss aggregation); aggregation: weighted like the policy loss.' },
  { key: 'oldLogProbs', label: 'old log-probs', group: 'Advantage & loss', control: select('oldLogProbs'), advanced: true,
    note: 'auto: skip the re-scoring pass when fully on-policy (ratio exactly 1); score: always re-score after rollout (verl).' },
  // Optimiser
  { key: 'lr', label: 'learning rate', group: 'Optimiser', control: real(0, 1, 1e-5),
    note: 'AdamW learning rate. Code: 1e-6 (7B, full fine-tuning); paper single-turn: 5e-7. Tiny models and LoRA need far larger.' },
  { key: 'lrSchedule', label: 'schedule', group: 'Optimiser', control: select('lrSchedule'), advanced: true,
    note: 'Learning-rate schedule over the run\'s steps. Code: constant.' },
  { key: 'warmupSteps', label: 'warm-up steps', group: 'Optimiser', control: int(0, 10000), advanced: true,
    note: 'Linear warm-up steps. Code: 0.' },
  { key: 'weightDecay', label: 'weight decay', group: 'Optimiser', control: real(0, 1, 0.001), advanced: true,
    note: 'AdamW weight decay. verl default: 0.01.' },
  { key: 'adamBeta1', label: 'Adam β1', group: 'Optimiser', control: real(0, 0.9999, 0.001), advanced: true, note: 'AdamW β1. verl: 0.9.' },
  { key: 'adamBeta2', label: 'Adam β2', group: 'Optimiser', control: real(0, 0.99999, 0.0001), advanced: true, note: 'AdamW β2. verl: 0.999.' },
  { key: 'gradClip', label: 'grad clip', group: 'Optimiser', control: real(0, 100, 0.1),
    note: 'Global gradient-norm clip; 0 disables. Code: 1.0.' },
  { key: 'ppoEpochs', label: 'PPO epochs', group: 'Optimiser', control: int(1, 16),
    note: 'Passes over each step\'s rollouts (ppo_epochs). Code: 1, fully on-policy, so clipping is inactive.' },
  { key: 'miniBatches', label: 'mini-batches', group: 'Optimiser', control: int(1, 64),
    note: 'Optimiser steps per epoch. Code script: 1; the paper text says 4. More than 1 makes the ratio and clipping matter.' },
  { key: 'maxNonFiniteSteps', label: 'stop after NaN steps', group: 'Optimiser', control: int(0, 1000), advanced: true,
    note: 'Stop training after this many consecutive steps with NaN / infinite loss, log-probs or gradients (the run diverged, usually from too high a learning rate); 0 = never stop. Not in the ReMA code.' },
  // Data & evaluation
  { key: 'trainSet', label: 'train set', group: 'Data & evaluation', control: select('trainSet'),
    note: 'Training problems. tiny-arith / tiny-judge: the embedded generator. math133: the paper\'s 133-sample ablation set. math8k: MATH levels 3-5 (main runs).' },
  { key: 'trainFile', label: 'train file', group: 'Data & evaluation', control: { kind: 'text' }, advanced: true,
    note: 'JSONL path when the train set is "file" (CLI).' },
  { key: 'trainSize', label: 'train size', group: 'Data & evaluation', control: int(0, 1_000_000),
    note: 'Training problems used (generated for tiny tasks); 0 = all.' },
  { key: 'evalSet', label: 'held-out set', group: 'Data & evaluation', control: select('evalSet'),
    note: 'Held-out problems for greedy evaluation. The code validates on a 7-benchmark mix; small runs use MATH500 or the tiny held-out split.' },
  { key: 'evalFile', label: 'held-out file', group: 'Data & evaluation', control: { kind: 'text' }, advanced: true,
    note: 'JSONL path when the held-out set is "file" (CLI).' },
  { key: 'evalSize', label: 'held-out size', group: 'Data & evaluation', control: int(0, 100_000),
    note: 'Held-out problems per evaluation (fixed seeded subset); 0 = all. Keep small in the browser.' },
  { key: 'evalEvery', label: 'evaluate every', group: 'Data & evaluation', control: int(0, 10000),
    note: 'Greedy held-out evaluation every this many steps (test_freq); 0 = never. Code: 10.' },
  { key: 'evalBeforeTrain', label: 'evaluate before training', group: 'Data & evaluation', control: { kind: 'boolean' },
    note: 'Evaluate once before the first step (val_before_train). verl: on.' },
  // Model
  { key: 'finetune', label: 'fine-tuning', group: 'Model', control: select('finetune'),
    note: 'lora: frozen base + LoRA adapters (one per agent in separate mode). full: every weight trains (tiny models only; the ReMA code fine-tunes fully).' },
  { key: 'loraRank', label: 'LoRA rank', group: 'Model', control: int(1, 256), note: 'LoRA rank r. Default 8.' },
  { key: 'loraAlpha', label: 'LoRA alpha', group: 'Model', control: real(0, 1024, 1), note: 'The update is scaled by alpha / r. Default 16.' },
  { key: 'loraTargets', label: 'LoRA targets', group: 'Model', control: { kind: 'list' }, advanced: true,
    note: 'Linear layers with adapters, by HF module name (comma-separated). Default all attention + MLP projections.' },
  // Run
  { key: 'name', label: 'run name', group: 'Run', control: { kind: 'text' }, note: 'Free-form name shown in the runs list.' },
  { key: 'seed', label: 'seed', group: 'Run', control: int(0, 2 ** 31 - 1),
    note: 'Seeds data order, sampling and shuffles: same config + seed + backend gives identical metrics.' },
  { key: 'steps', label: 'steps', group: 'Run', control: int(0, 100000),
    note: 'RL steps in the run; Train stops there. Paper: 500 (main), 300 (133-sample ablation).' },
];

export const knobByKey: ReadonlyMap<string, Knob> = new Map(knobs.map((k) => [k.key, k]));
