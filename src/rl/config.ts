// The experiment config's public surface. The config is one field table (src/rl/config/fields-*.ts: per field
// its type and range, default, doc with the paper / code source, and how the page shows it); the TypeScript type,
// the validator, the page's knobs, the link codec, the CLI's --set parsing and docs/config.md are derived from it.
// This file re-exports the parts so that importers name one module.
export {
  CONFIG_GROUPS,
  CONFIG_VERSION,
  type ConfigGroup,
  type FieldDef,
  type FieldSpec,
  type FieldUi,
  type FieldValue,
} from './config/field.ts';
export * from './config/table.ts';
export * from './config/validate.ts';
export * from './config/text.ts';
export { TINY_MODEL_NAME } from './config/fields-run.ts';
