// The config fields of the data (training and held-out sets, sizes) and of evaluation (how often, whether before
// training).
import type { FieldDef } from './field.ts';

const DATASETS = ['tiny-arith', 'tiny-judge', 'math133', 'math500', 'math8k', 'gsm8k', 'file'] as const;

export const DATA_FIELDS = {
  trainSet: {
    kind: 'enum',
    values: DATASETS,
    default: 'tiny-arith',
    doc: "Training problems. tiny-arith / tiny-judge: the embedded task generator. math133: the paper's 133-sample MATH set (ablations). math8k: MATH levels 3-5 (main runs). file: trainFile.",
    ui: { group: 'Data & evaluation', label: 'train set' },
  },
  trainFile: {
    kind: 'string',
    default: '',
    doc: 'JSONL path when trainSet is "file" (CLI; see data/datasets.ts for the accepted formats); else empty.',
    ui: { group: 'Data & evaluation', label: 'train file', advanced: true },
  },
  trainSize: {
    kind: 'int',
    min: 0,
    default: 0,
    doc: 'Training problems used (generated for tiny tasks, the first N after a seeded shuffle otherwise); 0 = all.',
    ui: { group: 'Data & evaluation', label: 'train size', range: [0, 1_000_000] },
  },
  evalSet: {
    kind: 'enum',
    values: DATASETS,
    default: 'tiny-arith',
    doc: 'Held-out problems for greedy evaluation. The ReMA code validates on a 7-benchmark mix; small runs use MATH500 or the tiny held-out split.',
    ui: { group: 'Data & evaluation', label: 'held-out set' },
  },
  evalFile: {
    kind: 'string',
    default: '',
    doc: 'JSONL path when evalSet is "file" (CLI); else empty.',
    ui: { group: 'Data & evaluation', label: 'held-out file', advanced: true },
  },
  evalSize: {
    kind: 'int',
    min: 0,
    max: 1_000_000,
    default: 64,
    doc: 'Held-out problems per evaluation (a fixed, seeded subset); 0 = all. Keep small in the browser.',
    ui: { group: 'Data & evaluation', label: 'held-out size', range: [0, 100_000] },
  },
} as const satisfies Record<string, FieldDef>;

export const EVALUATION_FIELDS = {
  evalEvery: {
    kind: 'int',
    min: 0,
    default: 10,
    doc: 'Greedy held-out evaluation every this many steps (test_freq); 0 = never. Code: 10.',
    ui: { group: 'Data & evaluation', label: 'evaluate every', range: [0, 10000] },
  },
  evalBeforeTrain: {
    kind: 'bool',
    default: true,
    doc: 'Evaluate once before the first step (val_before_train). verl: on.',
    ui: { group: 'Data & evaluation', label: 'evaluate before training' },
  },
} as const satisfies Record<string, FieldDef>;
