// What one entry of the config's field table says (src/rl/config/fields-*.ts): the field's type and range (what
// validateConfig accepts), its default, its doc with the paper / code source, the value older saved configs read
// it as, and how the page shows it. The TypeScript type of a config is derived from the entries (FieldValue), so a
// field is declared once, like a TRL GRPOConfig dataclass field with its metadata help.

/** Bumped whenever a field changes meaning or is removed; validateConfig rejects other versions. */
export const CONFIG_VERSION = 1;

/** The page's knob groups, in the order the config panel shows them. */
export const CONFIG_GROUPS = [
  'Protocol',
  'Agents',
  'Rollout',
  'Advantage & loss',
  'Optimiser',
  'Data & evaluation',
  'Model',
  'Run',
] as const;
export type ConfigGroup = (typeof CONFIG_GROUPS)[number];

/**
 * How a field appears on the page. The control follows the field's kind (enum: a select, bool: a toggle, int /
 * number: a number input, string: text, strings: a comma-separated list); a field without `ui` has no knob (it is
 * set elsewhere, e.g. model and modelSource by the model picker).
 */
export interface FieldUi {
  group: ConfigGroup;
  label: string;
  /** hidden unless "show all knobs" is on (keeps the first view short) */
  advanced?: boolean;
  /** a number control's practical range where it differs from the validation range (required where that is unbounded) */
  range?: readonly [number, number];
  /** a number control's step (default 1) */
  step?: number;
}

/** How validateConfig checks one field. */
export type FieldSpec =
  | { kind: 'int'; min: number; max?: number }
  | { kind: 'number'; min: number; max?: number; minExclusive?: boolean; maxExclusive?: boolean }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'string' }
  | { kind: 'bool' }
  | { kind: 'strings' }
  | { kind: 'number-or-null'; min: number; minExclusive?: boolean };

interface FieldInfo<V> {
  /** the value when a preset does not say otherwise */
  default: V;
  /** one or two sentences: what the field does, with its paper / code source; the page's hover note */
  doc: string;
  /** a longer explanation (exact behaviour, edge cases) for docs/config.md */
  details?: string;
  /** the value a config saved before this field existed reads as (so older runs, links and files keep loading) */
  legacy?: V;
  ui?: FieldUi;
}

type SpecOf<K extends FieldSpec['kind']> = Extract<FieldSpec, { kind: K }>;

/** One entry of the table: the spec of its kind plus a default of that kind's type. */
export type FieldDef =
  | (SpecOf<'int'> & FieldInfo<number>)
  | (SpecOf<'number'> & FieldInfo<number>)
  | (SpecOf<'enum'> & FieldInfo<string>)
  | (SpecOf<'string'> & FieldInfo<string>)
  | (SpecOf<'bool'> & FieldInfo<boolean>)
  | (SpecOf<'strings'> & FieldInfo<readonly string[]>)
  | (SpecOf<'number-or-null'> & FieldInfo<number | null>);

/** The config value type of one table entry: an enum's values as a union, the others by kind. */
export type FieldValue<F> = F extends { kind: 'enum'; values: readonly (infer V)[] }
  ? V
  : F extends { kind: 'int' | 'number' }
    ? number
    : F extends { kind: 'number-or-null' }
      ? number | null
      : F extends { kind: 'string' }
        ? string
        : F extends { kind: 'bool' }
          ? boolean
          : F extends { kind: 'strings' }
            ? string[]
            : never;
