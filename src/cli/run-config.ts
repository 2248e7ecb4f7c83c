// Whether a run folder's config.json is the run a command is asked to continue: the same config as canonical JSON
// (sorted keys, `steps` ignored so a run can be extended, fields added since it was written read at their
// defaults). Shared by `rema train` and `rema sft`.
import { ADDED_FIELD_DEFAULTS, type ExperimentConfig } from '../rl/config.ts';

function canonicalRun(c: ExperimentConfig): string {
  // a run folder written before a field existed holds a config without it: read it with the field's default
  const full: Record<string, unknown> = { ...ADDED_FIELD_DEFAULTS, ...c, steps: 0 };
  return JSON.stringify(full, Object.keys(full).toSorted());
}

export function sameRun(a: ExperimentConfig, b: ExperimentConfig): boolean {
  return canonicalRun(a) === canonicalRun(b);
}
