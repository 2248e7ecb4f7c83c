// Supervised fine-tuning runs (`rema sft`): which chats, how many passes, batch and cutoff, over an
// ExperimentConfig whose model, finetune / LoRA and optimiser fields (lr, lrSchedule, warmupSteps, Adam, gradClip,
// seed, steps) the SFT run uses as `rema train` does. The output is a model folder that `rema train` starts from
// (modelSource "local").
//   tiny-sft-meta / tiny-sft-cot: the embedded model on the tiny task's ReMA multi-turn dialogues (both agents'
//     sides) vs its chain-of-thought answers: the "meta-thinking SFT then RL vs CoT SFT then RL" ablation.
//   paper-sft-7b: the paper's SFT setting (ReMA-public scripts/sft/multi_turn_MAMRP/ps_7b_full.yaml, LLaMA-Factory):
//     one Qwen2.5-7B trained on both agents' dialogues (meta_thinking.jsonl and reasoning.jsonl), the start of the
//     shared-parameter RL of paper-multiturn-7b.
//   paper-sft-mta-7b / paper-sft-ra-7b: one model per agent ({mta,ra}_7b_full.yaml), the start of separate-parameter RL.
//   All three: full fine-tuning, lr 1e-5, 3 epochs, cosine, no warm-up, cutoff 4096, batch 1 per GPU on 8 GPUs (8).
//   The yamls set no weight decay, Adam betas or clipping, so Hugging Face TrainingArguments' defaults hold:
//   weight decay 0, betas (0.9, 0.999), max grad norm 1. LLaMA-Factory's `packing` is not reproduced (one chat per
//   sequence).

import type { ExperimentConfig } from './config.ts';
import { ConfigError } from './config.ts';
import { getPreset } from './presets.ts';

/** `tiny-meta` and `tiny-cot` are generated from the tiny task; `files` reads chat JSONL (sft-chats.ts layouts). */
export type SftData = 'tiny-meta' | 'tiny-cot' | 'files';

export interface SftSettings {
  data: SftData;
  /** chat JSONL paths when data is `files` (relative paths from the repository root or the working directory) */
  files: string[];
  /** tiny task: problems whose dialogues are generated (train split, seeded by the config's seed) */
  tinyProblems: number;
  /** passes over the chats (config.steps > 0 caps the optimiser steps instead) */
  epochs: number;
  /** chats per optimiser step */
  batchSize: number;
  /** tokens per chat; longer chats are cut (LLaMA-Factory cutoff_len) */
  cutoff: number;
}

export interface SftPreset {
  config: ExperimentConfig;
  sft: SftSettings;
}

function tiny(name: string, data: SftData): SftPreset {
  return {
    config: { ...getPreset('tiny-default'), name, steps: 0, lr: 1e-3, lrSchedule: 'cosine' },
    sft: { data, files: [], tinyProblems: 256, epochs: 1, batchSize: 8, cutoff: 1024 },
  };
}

const PAPER_SFT_FILES = {
  meta: 'public/data/sft/meta_thinking.jsonl',
  reasoning: 'public/data/sft/reasoning.jsonl',
} as const;

function paper(name: string, files: string[]): SftPreset {
  return {
    config: {
      ...getPreset('paper-multiturn-7b'),
      name,
      steps: 0,
      lr: 1e-5,
      lrSchedule: 'cosine',
      weightDecay: 0,
      adamBeta1: 0.9,
      adamBeta2: 0.999,
      gradClip: 1,
    },
    sft: { data: 'files', files, tinyProblems: 0, epochs: 3, batchSize: 8, cutoff: 4096 },
  };
}

export const SFT_PRESETS: Readonly<Record<string, SftPreset>> = {
  'tiny-sft-meta': tiny('tiny-sft-meta', 'tiny-meta'),
  'tiny-sft-cot': tiny('tiny-sft-cot', 'tiny-cot'),
  'paper-sft-7b': paper('paper-sft-7b', [PAPER_SFT_FILES.meta, PAPER_SFT_FILES.reasoning]),
  'paper-sft-mta-7b': paper('paper-sft-mta-7b', [PAPER_SFT_FILES.meta]),
  'paper-sft-ra-7b': paper('paper-sft-ra-7b', [PAPER_SFT_FILES.reasoning]),
};

export const SFT_PRESET_NAMES: readonly string[] = Object.keys(SFT_PRESETS);

export function getSftPreset(name: string): SftPreset {
  const preset = Object.hasOwn(SFT_PRESETS, name) ? SFT_PRESETS[name] : undefined; // own properties only
  if (preset === undefined)
    throw new ConfigError(`unknown SFT preset "${name}"; SFT presets: ${SFT_PRESET_NAMES.join(', ')}`);
  return structuredClone(preset);
}

/** Checks SFT settings, naming the field. */
export function validateSftSettings(s: SftSettings, source: string): SftSettings {
  const problems: string[] = [];
  const int = (key: keyof SftSettings, min: number) => {
    const v = s[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min)
      problems.push(`"${key}" must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  };
  if (!['tiny-meta', 'tiny-cot', 'files'].includes(s.data))
    problems.push(`"data" must be tiny-meta | tiny-cot | files, got ${JSON.stringify(s.data)}`);
  const files: unknown = s.files;
  if (!Array.isArray(files) || !files.every((f) => typeof f === 'string' && f !== ''))
    problems.push(
      `"files" must be a list of chat JSONL paths such as ["chats.jsonl"] (or use --data FILE), got ${JSON.stringify(files)}`,
    );
  else if (s.data === 'files' && files.length === 0)
    problems.push('"files" must name at least one chat JSONL file when data is "files"');
  else if (s.data !== 'files' && files.length > 0)
    problems.push(
      `"files" is only read when "data" is "files" (it is ${JSON.stringify(s.data)}); set both, or neither`,
    );
  if (s.data !== 'files') int('tinyProblems', 1);
  int('epochs', 1);
  int('batchSize', 1);
  int('cutoff', 2);
  if (problems.length > 0) throw new ConfigError(`${source}: invalid SFT settings:\n  ${problems.join('\n  ')}`);
  return s;
}
