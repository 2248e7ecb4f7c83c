// validateConfig: checks a JSON value against the field table (type, range, allowed values per field, then the
// rules across fields), with errors naming the source and each field. Also the range / values text the docs and
// the CLI quote, and the close matches named for an unknown field.
import { CONFIG_VERSION, type FieldSpec } from './field.ts';
import { ADDED_FIELD_DEFAULTS, FIELD_SPECS, type ConfigKey, type ExperimentConfig } from './table.ts';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const INF = Number.POSITIVE_INFINITY;

function describe(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

type Range = { min: number; max?: number; minExclusive?: boolean; maxExclusive?: boolean };

/** A numeric spec's range as an interval, e.g. "[0, 1)", "(1, inf)", "(-inf, inf)". */
export function rangeText(spec: Range): string {
  const lo = spec.min === -INF ? '(-inf' : `${spec.minExclusive ? '(' : '['}${spec.min}`;
  const hi = spec.max === undefined ? 'inf)' : `${spec.max}${spec.maxExclusive ? ')' : ']'}`;
  return `${lo}, ${hi}`;
}

function inRange(x: number, spec: Range): boolean {
  if (spec.minExclusive ? x <= spec.min : x < spec.min) return false;
  if (spec.max !== undefined && (spec.maxExclusive ? x >= spec.max : x > spec.max)) return false;
  return true;
}

/** What a field accepts, in words ("an integer in [1, inf)", "one of a | b", ...): the validator's and the docs' phrase. */
export function acceptedText(spec: FieldSpec): string {
  switch (spec.kind) {
    case 'int':
      return `an integer in ${rangeText(spec)}`;
    case 'number':
      return `a number in ${rangeText(spec)}`;
    case 'number-or-null':
      return `null or a number in ${rangeText(spec)}`;
    case 'enum':
      return `one of ${spec.values.join(' | ')}`;
    case 'string':
      return 'a string';
    case 'bool':
      return 'true or false';
    case 'strings':
      return 'an array of strings';
  }
}

/** Whether a value is what the spec accepts. */
function accepts(spec: FieldSpec, value: unknown): boolean {
  switch (spec.kind) {
    case 'int':
      return typeof value === 'number' && Number.isInteger(value) && inRange(value, spec);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && inRange(value, spec);
    case 'number-or-null':
      return value === null || (typeof value === 'number' && Number.isFinite(value) && inRange(value, spec));
    case 'enum':
      return typeof value === 'string' && spec.values.includes(value);
    case 'string':
      return typeof value === 'string';
    case 'bool':
      return typeof value === 'boolean';
    case 'strings':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
  }
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

/** Config fields whose names are close to `key` (case-insensitive edit distance <= 2, or one name containing the other), closest first, at most 3. */
export function closeFieldNames(key: string): string[] {
  const k = key.toLowerCase();
  return Object.keys(FIELD_SPECS)
    .map((name) => {
      const n = name.toLowerCase();
      const contains = k.length >= 4 && (n.includes(k) || k.includes(n));
      return { name, d: contains ? 0.5 : editDistance(k, n) };
    })
    .filter((c) => c.d <= 2)
    .toSorted((a, b) => a.d - b.d)
    .slice(0, 3)
    .map((c) => c.name);
}

/** "unknown field "x"", with the close field names when there are some. */
export function unknownFieldText(key: string): string {
  const close = closeFieldNames(key);
  return `unknown field "${key}"${close.length > 0 ? ` (did you mean ${close.map((c) => `"${c}"`).join(', ')}?)` : ''}`;
}

/** Rules that involve more than one field. Returns problems as `field "x" ...` strings. */
export function crossFieldProblems(c: ExperimentConfig): string[] {
  const out: string[] = [];
  if (c.filterEpsMin > c.filterEpsMax)
    out.push(`field "filterEpsMin" (${c.filterEpsMin}) must be <= filterEpsMax (${c.filterEpsMax})`);
  if (c.trainSet === 'file' && c.trainFile === '')
    out.push('field "trainFile" must name a JSONL file when trainSet is "file"');
  if (c.evalSet === 'file' && c.evalFile === '')
    out.push('field "evalFile" must name a JSONL file when evalSet is "file"');
  if (c.model === '') out.push('field "model" must not be empty');
  if (c.mode === 'vrp' && c.steps > 0)
    out.push('field "steps" must be 0 for mode "vrp" (evaluation only; use "vrp-rl" to train)');
  if (c.paramMode === 'separate' && (c.mode === 'vrp' || c.mode === 'vrp-rl' || c.mode === 'mrp-rl'))
    out.push(`field "paramMode" must be "shared" for single-agent mode "${c.mode}"`);
  if (c.mode !== 'multi-turn' && c.maxTurns !== 1 && c.mode !== 'vrp')
    out.push(`field "maxTurns" must be 1 for mode "${c.mode}" (single-response protocol)`);
  if (c.miniBatches > c.problemsPerStep * c.groupSize)
    out.push(
      `field "miniBatches" (${c.miniBatches}) must not exceed the rollouts per step (${c.problemsPerStep * c.groupSize})`,
    );
  if (c.frozenAgent !== 'none' && c.mode !== 'multi-turn' && c.mode !== 'single-turn')
    out.push(
      `field "frozenAgent" ("${c.frozenAgent}") needs a two-agent mode (multi-turn or single-turn), not "${c.mode}"`,
    );
  if (c.klPlacement === 'reward' && c.advantage !== 'reinforce++')
    out.push(
      `field "klPlacement" ("reward", OpenRLHF REINFORCE++) needs advantage "reinforce++", not "${c.advantage}"`,
    );
  if (c.phaseEpochs > 0 && !(c.mode === 'single-turn' && c.paramMode === 'separate'))
    out.push(
      `field "phaseEpochs" (${c.phaseEpochs}: Algorithm 1 phases) needs mode "single-turn" with paramMode "separate"; use 0 otherwise`,
    );
  if (c.metaFollowers > 1 && c.mode !== 'single-turn')
    out.push(
      `field "metaFollowers" (${c.metaFollowers} reasoning answers per plan) needs mode "single-turn", not "${c.mode}"; use 1 otherwise`,
    );
  if (
    c.singleTurnReward === 'consistency' &&
    c.mode === 'single-turn' &&
    c.frozenAgent !== 'meta' &&
    c.metaFollowers < 2
  )
    out.push(
      'field "singleTurnReward" ("consistency", the agreement of the reasoning answers to one plan) needs metaFollowers >= 2: with one answer per plan the agreement is always 1 when an answer was found, so the meta agent learns nothing from it',
    );
  if (c.updateIterations > 0 && c.phaseEpochs === 0)
    out.push(
      `field "updateIterations" (${c.updateIterations}) counts Algorithm 1's phases and needs phaseEpochs > 0; use 0 otherwise`,
    );
  if (c.finetune === 'lora' && c.loraTargets.length === 0)
    out.push('field "loraTargets" must list at least one module');
  if (c.metaActions === 'json' && c.mode !== 'single-turn')
    out.push(
      `field "metaActions" ("json": one meta-action, then the answer; paper Sec. 4.2.2) needs mode "single-turn", not "${c.mode}"`,
    );
  return out;
}

/**
 * Validates a parsed JSON value as an ExperimentConfig. Fields absent from `json` are taken from `base`;
 * unknown fields, wrong types, out-of-range values and inconsistent combinations throw a ConfigError whose
 * message lists every problem, each naming `source` and the field.
 */
export function validateConfig(json: unknown, source: string, base?: ExperimentConfig): ExperimentConfig {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new ConfigError(`${source}: a config must be a JSON object, got ${describe(json)}`);
  const record = json as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(record)) {
    if (key === 'extends' || key === '$comment') continue;
    if (!Object.hasOwn(FIELD_SPECS, key)) problems.push(unknownFieldText(key));
  }
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(FIELD_SPECS) as [ConfigKey, FieldSpec][]) {
    const has = Object.prototype.hasOwnProperty.call(record, key);
    const added = ADDED_FIELD_DEFAULTS[key];
    if (!has && base === undefined && added !== undefined) {
      out[key] = added;
      continue;
    }
    if (!has && base === undefined) {
      problems.push(`missing field "${key}"`);
      continue;
    }
    const value = has ? record[key] : base![key];
    if (!accepts(spec, value)) {
      if (key === 'version')
        problems.push(
          `field "version" must be ${CONFIG_VERSION} (this build's config version), got ${describe(value)}`,
        );
      else problems.push(`field "${key}" must be ${acceptedText(spec)}, got ${describe(value)}`);
    }
    out[key] = Array.isArray(value) ? [...value] : value;
  }
  if (problems.length === 0) problems.push(...crossFieldProblems(out as unknown as ExperimentConfig));
  if (problems.length > 0) throw new ConfigError(`${source}: invalid config:\n  ${problems.join('\n  ')}`);
  return out as unknown as ExperimentConfig;
}
