// The config fields of the run (name, seed, steps) and the model (which checkpoint, LoRA or full fine-tuning).
// Defaults follow the ReMA code (ziyuwan/ReMA-public, scripts/rl/rema/example_7b.sh +
// rema_trainer/config/ppo_trainer.yaml) with sizes scaled down to the embedded tiny model, as in every fields-*.ts.
import { CONFIG_VERSION, type FieldDef } from './field.ts';

/** Folder of the embedded default model under public/models. */
export const TINY_MODEL_NAME = 'tiny-rema';

export const RUN_FIELDS = {
  version: {
    kind: 'int',
    min: CONFIG_VERSION,
    max: CONFIG_VERSION,
    default: CONFIG_VERSION,
    doc: "Schema version; must equal this build's CONFIG_VERSION (bumped whenever a field changes meaning or is removed).",
  },
  name: {
    kind: 'string',
    default: '',
    doc: 'Free-form run name, shown in the runs list and written into metrics file names.',
    ui: { group: 'Run', label: 'run name' },
  },
  seed: {
    kind: 'int',
    min: 0,
    max: 0xffffffff,
    default: 0,
    doc: 'Seeds data order, sampling and mini-batch shuffles: same config + seed + backend gives identical metrics.',
    ui: { group: 'Run', label: 'seed', range: [0, 2 ** 31 - 1] },
  },
  steps: {
    kind: 'int',
    min: 0,
    default: 300,
    doc: 'RL steps in the run (one batch of problems each); 0 = evaluate only. Paper: 500 (main), 300 (133-sample ablation).',
    ui: { group: 'Run', label: 'steps', range: [0, 100000] },
  },
} as const satisfies Record<string, FieldDef>;

export const MODEL_FIELDS = {
  modelSource: {
    kind: 'enum',
    values: ['embedded', 'local', 'hub'],
    default: 'embedded',
    doc: 'Where `model` points: embedded = a folder under public/models, local = a directory on disk (CLI) or a picked folder (page), hub = a Hugging Face repo id.',
  },
  model: {
    kind: 'string',
    default: TINY_MODEL_NAME,
    doc: 'Folder name, path or hub id of a Llama / Qwen2-family checkpoint (config.json, model.safetensors, tokenizer.json).',
  },
  finetune: {
    kind: 'enum',
    values: ['lora', 'full'],
    default: 'lora',
    doc: 'lora: frozen base + LoRA adapters (one per agent in separate mode). full: every weight trains (tiny models only; the ReMA code fine-tunes fully).',
    ui: { group: 'Model', label: 'fine-tuning' },
  },
  loraRank: {
    kind: 'int',
    min: 1,
    max: 1024,
    default: 8,
    doc: "LoRA rank r. Default 8: enough for RL's small updates on <1B models (verl examples use 8-64).",
    ui: { group: 'Model', label: 'LoRA rank', range: [1, 256] },
  },
  loraAlpha: {
    kind: 'number',
    min: 0,
    minExclusive: true,
    default: 16,
    doc: 'LoRA alpha; the update is scaled by alpha / r. Default 16 (2r, the common PEFT choice).',
    ui: { group: 'Model', label: 'LoRA alpha', range: [0, 1024], step: 1 },
  },
  loraTargets: {
    kind: 'strings',
    default: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
    doc: 'Linear layers with adapters, by HF module name (comma-separated). Default all attention + MLP projections (verl all-linear).',
    ui: { group: 'Model', label: 'LoRA targets', advanced: true },
  },
} as const satisfies Record<string, FieldDef>;
