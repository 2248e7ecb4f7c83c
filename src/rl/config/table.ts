// The one field table of the experiment config, assembled from the group files (fields-*.ts) in the order a config
// record's keys are written, and everything derived from it that is not validation or text: the ExperimentConfig
// type, the named value types, the defaults, and the values older saved configs read missing fields as.
// Adding a field means adding its entry to a fields-*.ts file (and the code that uses it); docs/config.md is
// regenerated with `npx tsx scripts/docs/gen-config-docs.ts`.
import { ADVANTAGE_FIELDS, ROLLOUT_FIELDS } from './fields-rollout.ts';
import { AGENT_FIELDS, PROTOCOL_FIELDS } from './fields-protocol.ts';
import { DATA_FIELDS, EVALUATION_FIELDS } from './fields-data.ts';
import { LOSS_FIELDS, OPTIMIZER_FIELDS } from './fields-loss.ts';
import { MODEL_FIELDS, RUN_FIELDS } from './fields-run.ts';
import type { FieldDef, FieldValue } from './field.ts';

/** The group files' tables under their docs/config.md section titles, in the order of a config record's keys. */
export const CONFIG_SECTIONS = [
  { title: 'Run', fields: RUN_FIELDS },
  { title: 'Model', fields: MODEL_FIELDS },
  { title: 'Data', fields: DATA_FIELDS },
  { title: 'Protocol', fields: PROTOCOL_FIELDS },
  { title: 'Agents', fields: AGENT_FIELDS },
  { title: 'Rollout', fields: ROLLOUT_FIELDS },
  { title: 'Advantages', fields: ADVANTAGE_FIELDS },
  { title: 'Loss', fields: LOSS_FIELDS },
  { title: 'Optimiser', fields: OPTIMIZER_FIELDS },
  { title: 'Evaluation', fields: EVALUATION_FIELDS },
] as const satisfies readonly { title: string; fields: Record<string, FieldDef> }[];

/** Every config field, keyed by name, in the order of a config record's keys (the sections' tables in turn). */
export const CONFIG_FIELDS = {
  ...RUN_FIELDS,
  ...MODEL_FIELDS,
  ...DATA_FIELDS,
  ...PROTOCOL_FIELDS,
  ...AGENT_FIELDS,
  ...ROLLOUT_FIELDS,
  ...ADVANTAGE_FIELDS,
  ...LOSS_FIELDS,
  ...OPTIMIZER_FIELDS,
  ...EVALUATION_FIELDS,
} as const;

type Table = typeof CONFIG_FIELDS;

/**
 * The experiment config: one typed, versioned, JSON-serialisable record that fully describes a training run
 * (protocol, rewards, advantage estimator, loss, optimiser, data, model). Flat like TRL's GRPOConfig so that a
 * sweep grid, a URL or `--set` can name any knob by one key. Each field's type comes from its table entry.
 */
export type ExperimentConfig = { -readonly [K in keyof Table]: FieldValue<Table[K]> };
export type ConfigKey = keyof ExperimentConfig;

/** The table seen entry by entry (for code that walks every field). */
export const FIELD_SPECS: Readonly<Record<ConfigKey, FieldDef>> = CONFIG_FIELDS;
export const CONFIG_KEYS = Object.keys(CONFIG_FIELDS) as readonly ConfigKey[];

/** See the `mode` field: multi-turn, single-turn, vrp (evaluation only), vrp-rl, mrp-rl. */
export type ProtocolMode = ExperimentConfig['mode'];
export type AgentRole = ExperimentConfig['startAgent'];
/** which agent, if any, is a frozen external model (the frozenAgent field) */
export type FrozenAgent = ExperimentConfig['frozenAgent'];
export type RatioMode = ExperimentConfig['ratio'];
/** how per-token losses become one number; see losses/aggregate.ts for the exact formulas */
export type Aggregation = ExperimentConfig['aggregation'];
export type AdvantageEstimator = ExperimentConfig['advantage'];
export type StdScaling = ExperimentConfig['stdScaling'];
export type KlEstimator = ExperimentConfig['klEstimator'];
export type LrSchedule = ExperimentConfig['lrSchedule'];
export type DatasetName = ExperimentConfig['trainSet'];
export type PromptSetName = ExperimentConfig['prompts'];

/** A fresh config holding every field's default (the presets state only what differs from it). */
export function configDefaults(): ExperimentConfig {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(FIELD_SPECS))
    out[key] = Array.isArray(field.default) ? [...field.default] : field.default;
  return out as ExperimentConfig;
}

/**
 * Fields added to version 1 after configs were already saved (URL state, saved runs, run JSON, --config files,
 * checkpoints): a config without one of them reads as this value (its entry's `legacy`), so older records keep loading.
 */
export const ADDED_FIELD_DEFAULTS: Partial<ExperimentConfig> = Object.fromEntries(
  Object.entries(FIELD_SPECS).flatMap(([key, field]) => (field.legacy === undefined ? [] : [[key, field.legacy]])),
);
